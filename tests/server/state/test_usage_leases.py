"""The billing-lease part of the UsageStore contract, over the memory, SQLite and Redis
backends.

Memory and SQLite take an injected clock, moved by the test; Redis measures leases by its
own server time, so its tests use leases of a second or two and really wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import attrs
import pytest

from renderkit_server.state.usage import Lease, MemoryUsageStore, SqliteUsageStore, UsageStore
from renderkit_server.state.usage.redis import RedisUsageStore
from tests.server.state._usage import PERIOD, flush

pytestmark = pytest.mark.anyio

#: Long enough for a Redis round trip, short enough to wait out.
SHORT = 1.0


@attrs.define
class Clock:
    """Unix seconds that only move when the test says so."""

    now: float = 1_790_000_000.0

    def __call__(self) -> float:
        return self.now


@attrs.frozen
class Backend:
    """A store and how to let ``seconds`` pass for it."""

    store: UsageStore
    wait: Callable[[float], Awaitable[None]]


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    """A fresh store of each kind with its way of passing time."""
    clock = Clock()

    async def advance(seconds: float) -> None:
        clock.now += seconds

    store: UsageStore
    wait = advance
    if request.param == "memory":
        store = MemoryUsageStore(clock=clock)
    elif request.param == "sqlite":
        store = SqliteUsageStore(tmp_path / "usage.db", clock=clock)
    else:
        url = request.getfixturevalue("redis_url")
        await flush(url)
        store = RedisUsageStore(url)
        wait = asyncio.sleep
    yield Backend(store=store, wait=wait)
    await store.aclose()


async def _lease(store: UsageStore, amount: int = 1, limit: int | None = 10) -> Lease:
    reservation = await store.lease("key-1", "images", PERIOD, amount, limit, SHORT)
    assert reservation.lease is not None
    return reservation.lease


async def test_a_lease_counts_against_the_limit_but_is_not_usage(backend: Backend) -> None:
    store = backend.store
    reservation = await store.lease("key-1", "images", PERIOD, 3, 10, SHORT)

    assert reservation.allowed
    assert reservation.used == 3
    assert reservation.lease is not None
    assert reservation.lease.amount == 3
    assert await store.usage("key-1", PERIOD) == {}
    assert await store.in_flight("key-1", PERIOD) == {"images": 3}


async def test_a_committed_lease_becomes_usage_and_leaves_in_flight(backend: Backend) -> None:
    store = backend.store
    await store.commit(await _lease(store, 2))

    assert await store.usage("key-1", PERIOD) == {"images": 2}
    assert await store.in_flight("key-1", PERIOD) == {}


async def test_a_second_commit_naming_the_same_job_charges_nothing(backend: Backend) -> None:
    store = backend.store
    assert await store.commit(await _lease(store, 2), once="job-1")
    second = await _lease(store, 2)

    assert not await store.commit(second, once="job-1")
    assert await store.usage("key-1", PERIOD) == {"images": 2}
    assert await store.in_flight("key-1", PERIOD) == {}
    assert await store.commit(await _lease(store, 1), once="job-2")
    assert await store.commit(await _lease(store, 1))
    assert await store.usage("key-1", PERIOD) == {"images": 4}


async def test_a_dropped_lease_is_neither_usage_nor_held(backend: Backend) -> None:
    store = backend.store
    await store.drop(await _lease(store, 2))

    assert await store.usage("key-1", PERIOD) == {}
    assert await store.in_flight("key-1", PERIOD) == {}
    assert (await store.lease("key-1", "images", PERIOD, 10, 10, SHORT)).allowed


async def test_the_limit_counts_committed_usage_plus_live_leases(backend: Backend) -> None:
    store = backend.store
    await store.commit(await _lease(store, 4))
    await _lease(store, 5)

    refused = await store.lease("key-1", "images", PERIOD, 2, 10, SHORT)
    allowed = await store.lease("key-1", "images", PERIOD, 1, 10, SHORT)

    assert not refused.allowed
    assert refused.lease is None
    assert refused.used == 9
    assert allowed.allowed
    assert allowed.used == 10


async def test_fifty_concurrent_leases_against_a_limit_of_ten_allow_exactly_ten(
    backend: Backend,
) -> None:
    store = backend.store
    results = await asyncio.gather(
        *(store.lease("key-1", "images", PERIOD, 1, 10, 30) for _ in range(50))
    )

    assert sum(r.allowed for r in results) == 10
    assert await store.in_flight("key-1", PERIOD) == {"images": 10}


async def test_a_lease_not_committed_before_its_expiry_is_no_longer_counted(
    backend: Backend,
) -> None:
    store = backend.store
    await _lease(store, 10)
    assert not (await store.lease("key-1", "images", PERIOD, 1, 10, SHORT)).allowed

    await backend.wait(SHORT + 0.3)

    assert await store.in_flight("key-1", PERIOD) == {}
    assert await store.usage("key-1", PERIOD) == {}
    assert (await store.lease("key-1", "images", PERIOD, 10, 10, SHORT)).allowed


async def test_a_renewed_lease_outlives_its_first_expiry(backend: Backend) -> None:
    store = backend.store
    lease = await _lease(store, 4)

    await backend.wait(SHORT * 0.6)
    renewed = await store.renew(lease, SHORT * 2)
    await backend.wait(SHORT * 0.8)

    assert renewed is not None
    assert renewed.expires_at > lease.expires_at
    assert await store.in_flight("key-1", PERIOD) == {"images": 4}


async def test_an_expired_lease_cannot_be_renewed(backend: Backend) -> None:
    store = backend.store
    lease = await _lease(store)
    await backend.wait(SHORT + 0.3)

    assert await store.renew(lease, SHORT) is None
    assert await store.in_flight("key-1", PERIOD) == {}


async def test_committing_a_settled_amount_charges_it_even_past_the_limit(
    backend: Backend,
) -> None:
    store = backend.store
    lease = await _lease(store, 8)

    await store.commit(attrs.evolve(lease, amount=12))

    assert await store.usage("key-1", PERIOD) == {"images": 12}
    assert not (await store.lease("key-1", "images", PERIOD, 1, 10, SHORT)).allowed


async def test_a_lease_committed_after_its_expiry_is_still_charged(backend: Backend) -> None:
    store = backend.store
    lease = await _lease(store, 3)
    await backend.wait(SHORT + 0.3)

    await store.commit(lease)

    assert await store.usage("key-1", PERIOD) == {"images": 3}


async def test_in_flight_is_per_key_and_period_summed_per_metric(backend: Backend) -> None:
    store = backend.store
    await store.lease("key-1", "images", PERIOD, 1, None, SHORT)
    await store.lease("key-1", "images", PERIOD, 2, None, SHORT)
    await store.lease("key-1", "pdfs", PERIOD, 1, None, SHORT)
    await store.lease("key-2", "images", PERIOD, 5, None, SHORT)
    await store.lease("key-1", "images", "2026-10", 7, None, SHORT)

    assert await store.in_flight("key-1", PERIOD) == {"images": 3, "pdfs": 1}


async def test_export_lists_the_committed_usage_of_every_key_in_a_period(
    backend: Backend,
) -> None:
    store = backend.store
    await store.reserve("key-1", "images", PERIOD, 2, None)
    await store.reserve("key-1", "pdfs", PERIOD, 1, None)
    await store.reserve("key-2", "images", PERIOD, 4, None)
    await store.reserve("key-3", "images", "2026-10", 9, None)
    await store.lease("key-4", "images", PERIOD, 1, None, SHORT)

    assert await store.export(PERIOD) == {
        "key-1": {"images": 2, "pdfs": 1},
        "key-2": {"images": 4},
    }


@pytest.mark.parametrize("seconds", [0, -1, float("inf"), float("nan"), True])
async def test_invalid_lease_lengths_raise_value_error(backend: Backend, seconds: float) -> None:
    with pytest.raises(ValueError, match="lease seconds"):
        await backend.store.lease("key-1", "images", PERIOD, 1, None, seconds)
