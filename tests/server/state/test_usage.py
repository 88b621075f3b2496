"""The UsageStore contract, run over the memory, SQLite and real Redis backends.

Each behaviour is written once; the ``store`` fixture gives every backend, and ``replicas``
two instances sharing one SQLite file or one Redis.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from renderkit import StorageUnavailableError
from renderkit_server.state.usage import (
    MemoryUsageStore,
    Reservation,
    SqliteUsageStore,
    UsageStore,
)
from renderkit_server.state.usage.redis import RedisUsageStore
from tests.server.state._usage import PERIOD, WINDOW
from tests.server.state.conftest import backend_of, replicas_of

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[UsageStore]:
    """A fresh, empty store of each kind; Redis is flushed before each test."""
    async with backend_of(
        request,
        memory=MemoryUsageStore,
        sqlite=lambda: SqliteUsageStore(tmp_path / "usage.db"),
        redis=RedisUsageStore,
    ) as backend:
        yield backend


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[UsageStore, UsageStore]]:
    """Two independent store instances on one shared backend, like two server replicas."""
    async with replicas_of(
        request, sqlite=lambda: SqliteUsageStore(tmp_path / "usage.db"), redis=RedisUsageStore
    ) as pair:
        yield pair


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
