"""Stores of every kind for the contract: memory, SQLite and a real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from renderkit_server.quotas.stores import MemoryUsageStore, SqliteUsageStore, UsageStore
from renderkit_server.quotas.stores.redis import RedisUsageStore
from tests.server._redis import redis_server, require_redis_server
from tests.server.quotas.stores._shared import flush


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    require_redis_server()
    with redis_server() as url:
        yield url


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[UsageStore]:
    """A fresh, empty store of each kind; Redis is flushed before each test."""
    backend: UsageStore
    if request.param == "memory":
        backend = MemoryUsageStore()
    elif request.param == "sqlite":
        backend = SqliteUsageStore(tmp_path / "usage.db")
    else:
        url = request.getfixturevalue("redis_url")
        await flush(url)
        backend = RedisUsageStore(url)
    yield backend
    await backend.aclose()


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[UsageStore, UsageStore]]:
    """Two independent store instances on one shared backend, like two server replicas."""
    first: UsageStore
    second: UsageStore
    if request.param == "sqlite":
        first = SqliteUsageStore(tmp_path / "usage.db")
        second = SqliteUsageStore(tmp_path / "usage.db")
    else:
        url = request.getfixturevalue("redis_url")
        await flush(url)
        first, second = RedisUsageStore(url), RedisUsageStore(url)
    yield first, second
    await first.aclose()
    await second.aclose()
