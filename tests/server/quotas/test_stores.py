"""The UsageStore contract, run over the memory, SQLite and real Redis backends."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio

from renderkit import ConfigurationError, StorageUnavailableError
from renderkit_server.quotas.redis_store import RedisUsageStore
from renderkit_server.quotas.stores import (
    MemoryUsageStore,
    Reservation,
    SqliteUsageStore,
    UsageStore,
)
from tests.server._redis import redis_server, require_redis_server

pytestmark = pytest.mark.anyio

PERIOD = "2026-11"
WINDOW = 1_790_000_040  # a multiple of 60


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    require_redis_server()
    with redis_server() as url:
        yield url


async def _flush(url: str) -> None:
    client = redis.asyncio.Redis.from_url(url)
    try:
        await client.flushdb()
    finally:
        await client.aclose()


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
        await _flush(url)
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
        await _flush(url)
        first, second = RedisUsageStore(url), RedisUsageStore(url)
    yield first, second
    await first.aclose()
    await second.aclose()


async def test_every_backend_satisfies_the_protocol(store: UsageStore) -> None:
    assert isinstance(store, UsageStore)


async def test_reserve_within_limit_adds_the_amount_and_returns_the_new_total(
    store: UsageStore,
) -> None:
    first = await store.reserve("key-1", "images", PERIOD, 3, 10)
    second = await store.reserve("key-1", "images", PERIOD, 7, 10)

    assert first == Reservation(allowed=True, used=3, limit=10)
    assert second == Reservation(allowed=True, used=10, limit=10)
    assert second.remaining == 0


async def test_reserve_past_the_limit_adds_nothing_and_reports_current_usage(
    store: UsageStore,
) -> None:
    await store.reserve("key-1", "images", PERIOD, 8, 10)

    refused = await store.reserve("key-1", "images", PERIOD, 3, 10)

    assert refused == Reservation(allowed=False, used=8, limit=10)
    assert refused.remaining == 2
    assert await store.usage("key-1", PERIOD) == {"images": 8}


async def test_reserve_larger_than_the_limit_on_a_new_counter_is_refused(
    store: UsageStore,
) -> None:
    refused = await store.reserve("key-1", "pdfs", PERIOD, 11, 10)

    assert refused == Reservation(allowed=False, used=0, limit=10)
    assert await store.usage("key-1", PERIOD) == {}


async def test_a_zero_amount_reads_a_full_counter_without_being_refused(
    store: UsageStore,
) -> None:
    await store.reserve("key-1", "images", PERIOD, 10, 10)

    assert await store.reserve("key-1", "images", PERIOD, 0, 10) == Reservation(
        allowed=True, used=10, limit=10
    )


async def test_a_limit_of_zero_refuses_everything(store: UsageStore) -> None:
    assert not (await store.reserve("key-1", "parses", PERIOD, 1, 0)).allowed
    assert not (await store.hit("key-1", WINDOW, 60, 0)).allowed


async def test_no_limit_never_refuses(store: UsageStore) -> None:
    for _ in range(3):
        result = await store.reserve("key-1", "images", PERIOD, 1_000_000, None)
        assert result.allowed
    assert result == Reservation(allowed=True, used=3_000_000, limit=None)
    assert result.remaining is None


async def test_fifty_concurrent_reserves_against_a_limit_of_ten_allow_exactly_ten(
    store: UsageStore,
) -> None:
    results = await asyncio.gather(
        *(store.reserve("key-1", "images", PERIOD, 1, 10) for _ in range(50))
    )

    assert sum(r.allowed for r in results) == 10
    assert sorted(r.used for r in results if r.allowed) == list(range(1, 11))
    assert await store.usage("key-1", PERIOD) == {"images": 10}


async def test_release_after_a_failed_call_restores_the_count(store: UsageStore) -> None:
    await store.reserve("key-1", "images", PERIOD, 10, 10)

    await store.release("key-1", "images", PERIOD, 1)

    assert await store.usage("key-1", PERIOD) == {"images": 9}
    assert (await store.reserve("key-1", "images", PERIOD, 1, 10)).allowed


async def test_release_never_goes_below_zero(store: UsageStore) -> None:
    await store.reserve("key-1", "images", PERIOD, 2, 10)

    await store.release("key-1", "images", PERIOD, 5)

    assert await store.usage("key-1", PERIOD) == {}
    assert await store.reserve("key-1", "images", PERIOD, 10, 10) == Reservation(
        allowed=True, used=10, limit=10
    )


async def test_release_of_a_counter_never_charged_is_a_no_op(store: UsageStore) -> None:
    await store.release("key-1", "images", PERIOD, 5)

    assert await store.usage("key-1", PERIOD) == {}


async def test_usage_is_isolated_per_key_id_period_and_metric(store: UsageStore) -> None:
    await store.reserve("key-1", "images", "2026-11", 2, 10)
    await store.reserve("key-1", "pdfs", "2026-11", 1, 10)
    await store.reserve("key-1", "images", "2026-12", 5, 10)
    await store.reserve("key-2", "images", "2026-11", 10, 10)

    assert await store.usage("key-1", "2026-11") == {"images": 2, "pdfs": 1}
    assert await store.usage("key-1", "2026-12") == {"images": 5}
    assert await store.usage("key-2", "2026-11") == {"images": 10}
    assert await store.usage("key-3", "2026-11") == {}
    assert (await store.reserve("key-1", "images", "2026-11", 8, 10)).allowed


async def test_hit_counts_requests_until_the_window_is_full(store: UsageStore) -> None:
    results = [await store.hit("key-1", WINDOW, 60, 3) for _ in range(4)]

    assert [r.allowed for r in results] == [True, True, True, False]
    assert [r.used for r in results] == [1, 2, 3, 3]
    assert results[-1].limit == 3


async def test_hit_starts_afresh_in_the_next_window(store: UsageStore) -> None:
    for _ in range(3):
        await store.hit("key-1", WINDOW, 60, 3)

    result = await store.hit("key-1", WINDOW + 60, 60, 3)

    assert result == Reservation(allowed=True, used=1, limit=3)


async def test_hit_windows_are_separate_per_key(store: UsageStore) -> None:
    await store.hit("key-1", WINDOW, 60, 1)

    assert (await store.hit("key-2", WINDOW, 60, 1)).allowed
    assert not (await store.hit("key-1", WINDOW, 60, 1)).allowed


async def test_hit_without_limit_always_allows(store: UsageStore) -> None:
    results = [await store.hit("key-1", WINDOW, 60, None) for _ in range(20)]

    assert all(r.allowed for r in results)
    assert results[-1].used == 20


async def test_fifty_concurrent_hits_against_a_limit_of_ten_allow_exactly_ten(
    store: UsageStore,
) -> None:
    results = await asyncio.gather(*(store.hit("key-1", WINDOW, 60, 10) for _ in range(50)))

    assert sum(r.allowed for r in results) == 10


async def test_bursts_do_not_touch_monthly_usage(store: UsageStore) -> None:
    await store.hit("key-1", WINDOW, 60, 10)

    assert await store.usage("key-1", PERIOD) == {}


@pytest.mark.parametrize("amount", [-1, 1.5, True])
async def test_invalid_amounts_raise_value_error(store: UsageStore, amount: object) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the type is the contract here
        await store.reserve("key-1", "images", PERIOD, amount, 10)  # type: ignore[arg-type]
    with pytest.raises(ValueError):  # noqa: PT011
        await store.release("key-1", "images", PERIOD, amount)  # type: ignore[arg-type]


async def test_a_negative_limit_raises_value_error(store: UsageStore) -> None:
    with pytest.raises(ValueError):  # noqa: PT011
        await store.reserve("key-1", "images", PERIOD, 1, -1)
    with pytest.raises(ValueError):  # noqa: PT011
        await store.hit("key-1", WINDOW, 60, -1)


async def test_ping_succeeds_on_a_working_store(store: UsageStore) -> None:
    await store.ping()


async def test_a_closed_store_raises_storage_unavailable(store: UsageStore) -> None:
    await store.aclose()
    await store.aclose()  # closing twice is a no-op

    with pytest.raises(StorageUnavailableError):
        await store.ping()
    with pytest.raises(StorageUnavailableError):
        await store.reserve("key-1", "images", PERIOD, 1, 10)
    with pytest.raises(StorageUnavailableError):
        await store.hit("key-1", WINDOW, 60, 10)


# Shared backends: several replicas on one database stay exact.


async def test_two_replicas_sharing_a_backend_allow_exactly_ten_of_fifty(
    replicas: tuple[UsageStore, UsageStore],
) -> None:
    first, second = replicas
    calls = [
        (first if i % 2 else second).reserve("key-1", "images", PERIOD, 1, 10) for i in range(50)
    ]

    results = await asyncio.gather(*calls)

    assert sum(r.allowed for r in results) == 10
    assert await first.usage("key-1", PERIOD) == {"images": 10}
    assert await second.usage("key-1", PERIOD) == {"images": 10}


async def test_two_replicas_share_burst_windows(
    replicas: tuple[UsageStore, UsageStore],
) -> None:
    first, second = replicas
    calls = [(first if i % 2 else second).hit("key-1", WINDOW, 60, 10) for i in range(50)]

    results = await asyncio.gather(*calls)

    assert sum(r.allowed for r in results) == 10


_SQLITE_WORKER = textwrap.dedent(
    """
    import asyncio, sys
    from renderkit_server.quotas.stores import SqliteUsageStore

    async def main():
        store = SqliteUsageStore(sys.argv[1])
        results = await asyncio.gather(
            *(store.reserve("key-1", "images", "2026-11", 1, 10) for _ in range(30))
        )
        await store.aclose()
        print(sum(r.allowed for r in results))

    asyncio.run(main())
    """
)


def test_two_processes_sharing_a_sqlite_file_allow_exactly_ten(tmp_path: Path) -> None:
    path = str(tmp_path / "usage.db")
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _SQLITE_WORKER, path], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    allowed = [int(worker.communicate(timeout=60)[0]) for worker in workers]

    assert all(worker.returncode == 0 for worker in workers)
    assert sum(allowed) == 10
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT used FROM usage").fetchall() == [(10,)]


# Backend-specific behaviour.


async def test_sqlite_deletes_ended_burst_windows(tmp_path: Path) -> None:
    store = SqliteUsageStore(tmp_path / "usage.db")
    for offset in range(0, 600, 60):
        await store.hit("key-1", WINDOW + offset, 60, 10)
    await store.aclose()

    with sqlite3.connect(tmp_path / "usage.db") as conn:
        starts = [row[0] for row in conn.execute("SELECT window_start FROM burst")]
    # The current window and the one before it are kept for replicas with lagging clocks.
    assert sorted(starts) == [WINDOW + 480, WINDOW + 540]


async def test_sqlite_uses_wal_mode(tmp_path: Path) -> None:
    store = SqliteUsageStore(tmp_path / "usage.db")
    await store.ping()
    await store.aclose()

    with sqlite3.connect(tmp_path / "usage.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_sqlite_failure_raises_storage_unavailable_without_the_path(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "secret-dir-name" / "usage.db"
    store = SqliteUsageStore(missing)

    with pytest.raises(StorageUnavailableError) as info:
        await store.ping()
    assert "secret-dir-name" not in str(info.value)
    assert isinstance(info.value.__cause__, sqlite3.Error)
    await store.aclose()


async def test_memory_store_forgets_ended_burst_windows() -> None:
    store = MemoryUsageStore()
    for offset in range(0, 600, 60):
        await store.hit("key-1", WINDOW + offset, 60, 10)

    assert list(store._windows) == [("key-1", WINDOW + 540, 60)]


async def test_redis_keys_are_namespaced_and_expire(redis_url: str) -> None:
    await _flush(redis_url)
    store = RedisUsageStore(redis_url)
    await store.reserve("key-1", "images", PERIOD, 1, 10)
    await store.hit("key-1", WINDOW, 60, 10)
    await store.aclose()

    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    try:
        keys = sorted(await client.keys("*"))
        ttls = [await client.ttl(key) for key in keys]
    finally:
        await client.aclose()
    assert keys == [
        f"renderkit:usage:burst:60:{WINDOW}:key-1",
        f"renderkit:usage:monthly:{PERIOD}:key-1",
    ]
    assert 60 < ttls[0] <= 120
    assert 32 * 86_400 < ttls[1] <= 64 * 86_400


async def test_redis_store_leaves_a_client_it_was_given_open(redis_url: str) -> None:
    client = redis.asyncio.Redis.from_url(redis_url)
    store = RedisUsageStore(client)
    await store.ping()
    await store.aclose()

    assert await client.ping()
    await client.aclose()


async def test_unreachable_redis_raises_storage_unavailable_without_the_password() -> None:
    from tests.server._redis import _free_port

    store = RedisUsageStore(f"redis://:hunter2-secret@127.0.0.1:{_free_port()}/0", timeout=1)

    with pytest.raises(StorageUnavailableError) as info:
        await store.ping()
    assert "hunter2-secret" not in str(info.value)
    with pytest.raises(StorageUnavailableError):
        await store.reserve("key-1", "images", PERIOD, 1, 10)
    await store.aclose()


def test_a_malformed_redis_url_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError) as info:
        RedisUsageStore("http://user:hunter2-secret@example.invalid")
    assert "hunter2-secret" not in str(info.value)
