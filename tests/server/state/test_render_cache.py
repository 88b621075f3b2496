"""The RenderCache contract over the memory, SQLite and Redis indexes.

Memory and SQLite take an injected clock, so their expiry is tested without waiting; Redis
expires entries by its own clock, so for it the test reads the TTL it set.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio

from renderkit_server.state.render_cache import (
    CachedEntry,
    MemoryRenderCache,
    RenderCache,
    SqliteRenderCache,
)
from renderkit_server.state.render_cache.redis import RedisRenderCache
from tests.server.state.conftest import backend_of

pytestmark = pytest.mark.anyio

ENTRY = CachedEntry(
    storage_key="images/2026/11/24/a.png",
    content_type="image/png",
    size=3,
    facts={"width": 2, "height": 1, "warnings": ["w"]},
    created=1.5,
)
OTHER = CachedEntry(
    storage_key="images/2026/11/24/b.png", content_type="image/png", size=4, facts={}, created=2
)


class Clock:
    """Unix seconds that only move when a test moves them."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def cache(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RenderCache]:
    """An empty index of each kind."""
    async with backend_of(
        request,
        memory=MemoryRenderCache,
        sqlite=lambda: SqliteRenderCache(tmp_path / "cache.sqlite3"),
        redis=RedisRenderCache,
    ) as backend:
        yield backend


@pytest.fixture(params=["memory", "sqlite"])
async def clocked(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[RenderCache, Clock]]:
    """An index of each kind that takes a clock, and its clock."""
    clock = Clock()
    backend: RenderCache
    if request.param == "memory":
        backend = MemoryRenderCache(clock=clock)
    else:
        backend = SqliteRenderCache(tmp_path / "cache.sqlite3", clock=clock)
    yield backend, clock
    await backend.aclose()


async def test_every_index_satisfies_the_protocol(cache: RenderCache) -> None:
    assert isinstance(cache, RenderCache)


async def test_an_entry_round_trips_and_an_unknown_key_is_none(cache: RenderCache) -> None:
    assert await cache.get("k") is None
    await cache.put("k", ENTRY, 10)
    assert await cache.get("k") == ENTRY
    assert await cache.get("missing") is None


async def test_putting_a_key_again_replaces_its_entry(cache: RenderCache) -> None:
    await cache.put("k", ENTRY, 10)
    await cache.put("k", OTHER, 10)
    assert await cache.get("k") == OTHER


async def test_closing_twice_is_a_no_op(cache: RenderCache) -> None:
    await cache.aclose()
    await cache.aclose()


async def test_an_entry_expires_after_its_ttl(clocked: tuple[RenderCache, Clock]) -> None:
    cache, clock = clocked
    await cache.put("k", ENTRY, 10)
    clock.now = 109.9
    assert await cache.get("k") == ENTRY
    clock.now = 110.0
    assert await cache.get("k") is None


async def test_a_redis_entry_is_one_key_expiring_with_its_ttl(
    redis_client: redis.asyncio.Redis,
) -> None:
    await RedisRenderCache(redis_client).put("k", ENTRY, 10)
    assert 0 < await redis_client.ttl("renderkit:cache:k") <= 10


async def test_sqlite_entries_are_shared_by_two_instances_on_one_file(tmp_path: Path) -> None:
    clock = Clock()
    writer = SqliteRenderCache(tmp_path / "cache.sqlite3", clock=clock)
    reader = SqliteRenderCache(tmp_path / "cache.sqlite3", clock=clock)
    try:
        await writer.put("k", ENTRY, 10)
        assert await reader.get("k") == ENTRY
        clock.now = 110.0
        assert await reader.get("k") is None
    finally:
        await writer.aclose()
        await reader.aclose()
