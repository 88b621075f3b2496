"""The RenderLocks contract over the memory, SQLite and Redis backends.

Expiry is real time on every backend (the memory one reads the monotonic clock, SQLite the
wall clock, Redis its own), so those tests use locks of a fraction of a second.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from renderkit_server.state.render_locks import MemoryRenderLocks, RenderLocks, SqliteRenderLocks
from renderkit_server.state.render_locks.redis import RedisRenderLocks
from tests.server.state.conftest import backend_of, replicas_of

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def locks(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RenderLocks]:
    """Locks of each kind, on an empty backend."""
    async with backend_of(
        request,
        memory=MemoryRenderLocks,
        sqlite=lambda: SqliteRenderLocks(tmp_path / "locks.sqlite3"),
        redis=RedisRenderLocks,
    ) as backend:
        yield backend


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[RenderLocks, RenderLocks]]:
    """Two instances on one backend, like two server replicas."""
    async with replicas_of(
        request,
        sqlite=lambda: SqliteRenderLocks(tmp_path / "locks.sqlite3"),
        redis=RedisRenderLocks,
    ) as pair:
        yield pair


async def test_every_backend_satisfies_the_protocol(locks: RenderLocks) -> None:
    assert isinstance(locks, RenderLocks)


async def test_a_held_lock_is_refused_until_its_holder_releases_it(locks: RenderLocks) -> None:
    token = await locks.acquire("image-1", 30)

    assert token is not None
    assert await locks.acquire("image-1", 30) is None
    assert await locks.acquire("image-2", 30) is not None
    await locks.release("image-1", token)
    assert await locks.acquire("image-1", 30) is not None


async def test_a_stale_token_does_not_release_the_next_holders_lock(locks: RenderLocks) -> None:
    stale = await locks.acquire("image-1", 0.2)
    assert stale is not None
    await asyncio.sleep(0.4)
    current = await locks.acquire("image-1", 30)
    assert current is not None

    await locks.release("image-1", stale)

    assert await locks.acquire("image-1", 30) is None


async def test_a_lock_whose_holder_vanished_frees_itself_when_its_time_is_up(
    locks: RenderLocks,
) -> None:
    assert await locks.acquire("image-1", 0.3) is not None
    started = time.monotonic()

    await locks.wait("image-1", 5)

    assert 0.1 < time.monotonic() - started < 2
    assert await locks.acquire("image-1", 30) is not None


async def test_a_waiter_returns_soon_after_the_lock_is_released(locks: RenderLocks) -> None:
    token = await locks.acquire("image-1", 30)
    assert token is not None

    async def release_later() -> None:
        await asyncio.sleep(0.2)
        await locks.release("image-1", token)

    started = time.monotonic()
    await asyncio.gather(locks.wait("image-1", 10), release_later())

    assert time.monotonic() - started < 1


async def test_a_waiter_gives_up_after_its_timeout(locks: RenderLocks) -> None:
    assert await locks.acquire("image-1", 30) is not None
    started = time.monotonic()

    await locks.wait("image-1", 0.3)

    assert 0.25 < time.monotonic() - started < 2
    assert await locks.acquire("image-1", 30) is None


async def test_twenty_simultaneous_acquires_have_one_winner(locks: RenderLocks) -> None:
    tokens = await asyncio.gather(*(locks.acquire("image-1", 30) for _ in range(20)))

    assert sum(token is not None for token in tokens) == 1


async def test_two_replicas_on_one_backend_share_their_locks(
    replicas: tuple[RenderLocks, RenderLocks],
) -> None:
    first, second = replicas
    tokens = await asyncio.gather(
        *(locks.acquire("image-1", 30) for locks in (first, second) for _ in range(5))
    )

    assert sum(token is not None for token in tokens) == 1
