"""The EndedSessions contract over the memory and Redis stores."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

import anyio
import pytest
import redis.asyncio

from renderkit_server.state.mcp_sessions import EndedSessions, MemoryEndedSessions
from renderkit_server.state.mcp_sessions.redis import RedisEndedSessions
from tests.server.state.conftest import fresh_redis

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EndedSessions]:
    """An empty store of each kind."""
    if request.param == "memory":
        yield MemoryEndedSessions()
    else:
        client = await fresh_redis(request.getfixturevalue("redis_url"))
        yield RedisEndedSessions(client)
        await client.aclose()


async def test_every_store_satisfies_the_protocol(store: EndedSessions) -> None:
    assert isinstance(store, EndedSessions)


async def test_a_session_is_live_until_ended_and_ending_it_twice_is_refused(
    store: EndedSessions,
) -> None:
    assert await store.is_ended("s1") is False
    assert await store.end("s1") is True
    assert await store.is_ended("s1") is True
    assert await store.end("s1") is False
    assert await store.is_ended("s2") is False


async def test_of_concurrent_ends_of_one_session_exactly_one_succeeds(
    store: EndedSessions,
) -> None:
    results: list[bool] = []

    async def end() -> None:
        results.append(await store.end("s1"))

    async with anyio.create_task_group() as group:
        for _ in range(10):
            group.start_soon(end)
    assert sorted(results) == [False] * 9 + [True]


async def test_the_memory_store_forgets_the_oldest_beyond_what_it_remembers() -> None:
    store = MemoryEndedSessions(remember=2)
    for session_id in ("a", "b", "c"):
        await store.end(session_id)
    assert [await store.is_ended(s) for s in ("a", "b", "c")] == [False, True, True]


async def test_redis_keeps_a_hash_of_the_id_never_the_id_and_lets_it_expire(
    redis_client: redis.asyncio.Redis,
) -> None:
    await RedisEndedSessions(redis_client, remember_for=60).end("secret-session-id")
    digest = hashlib.sha256(b"secret-session-id").hexdigest()
    assert await redis_client.keys("*") == [f"renderkit:mcp:ended:{digest}".encode()]
    assert 0 < await redis_client.ttl(f"renderkit:mcp:ended:{digest}") <= 60
