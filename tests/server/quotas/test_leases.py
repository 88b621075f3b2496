"""Quota tickets hold billing leases: charged on commit, free on release or expiry."""

from __future__ import annotations

import asyncio

import pytest

from renderkit import ConfigurationError
from renderkit_server.quotas import (
    MemoryUsageStore,
    QuotaExceededError,
    QuotaService,
    plans_from_mapping,
)
from tests.server.quotas.test_service import FakeClock, no_burst

pytestmark = pytest.mark.anyio

PERIOD = "2026-11"


class SecondsClock:
    """Unix seconds the test moves by hand, for the store's lease expiries."""

    def __init__(self) -> None:
        self.now = 1_790_000_000.0

    def __call__(self) -> float:
        return self.now


def _service(store: MemoryUsageStore, images: int = 2, lease_seconds: float = 60) -> QuotaService:
    plans = no_burst(plans_from_mapping({"starter": {"images": images}}))
    return QuotaService(store, plans, clock=FakeClock(), lease_seconds=lease_seconds)


async def test_a_reservation_holds_the_quota_without_being_usage() -> None:
    store = MemoryUsageStore()
    quotas = _service(store)
    await quotas.reserve("key-1", "starter", {"images": 1})
    await quotas.reserve("key-1", "starter", {"images": 1})

    with pytest.raises(QuotaExceededError):
        await quotas.reserve("key-1", "starter", {"images": 1})
    assert await quotas.usage("key-1") == {}
    assert await quotas.in_flight("key-1") == {"images": 2}


async def test_the_leases_of_a_call_never_committed_expire_and_free_the_quota() -> None:
    seconds = SecondsClock()
    store = MemoryUsageStore(clock=seconds)
    quotas = _service(store, images=1, lease_seconds=60)
    await quotas.reserve("key-1", "starter", {"images": 1})  # its process "dies" here

    seconds.now += 61
    ticket = await quotas.reserve("key-1", "starter", {"images": 1})
    await ticket.commit()

    assert await quotas.usage("key-1") == {"images": 1}
    assert await quotas.in_flight("key-1") == {}


async def test_commit_charges_once_and_a_later_release_refunds() -> None:
    store = MemoryUsageStore()
    quotas = _service(store)
    ticket = await quotas.reserve("key-1", "starter", {"images": 1})

    await ticket.commit()
    await ticket.commit()
    assert ticket.committed
    assert await store.usage("key-1", PERIOD) == {"images": 1}

    await ticket.release()
    assert await store.usage("key-1", PERIOD) == {}


async def test_a_released_ticket_cannot_be_committed() -> None:
    quotas = _service(MemoryUsageStore())
    ticket = await quotas.reserve("key-1", "starter", {"images": 1})
    await ticket.release()

    with pytest.raises(RuntimeError, match="released"):
        await ticket.commit()
    assert await quotas.in_flight("key-1") == {}


async def test_a_kept_alive_ticket_outlives_its_lease_length() -> None:
    store = MemoryUsageStore()
    quotas = _service(store, lease_seconds=0.3)
    ticket = await quotas.reserve("key-1", "starter", {"images": 1})

    async with ticket.kept_alive():
        await asyncio.sleep(0.8)
        assert await quotas.in_flight("key-1") == {"images": 1}

    await asyncio.sleep(0.5)
    assert await quotas.in_flight("key-1") == {}


async def test_an_error_inside_kept_alive_reaches_the_caller_unwrapped() -> None:
    quotas = _service(MemoryUsageStore(), lease_seconds=0.3)
    ticket = await quotas.reserve("key-1", "starter", {"images": 1})

    with pytest.raises(KeyError):
        async with ticket.kept_alive():
            raise KeyError("boom")


async def test_metered_commits_on_success_and_leaves_nothing_in_flight() -> None:
    quotas = _service(MemoryUsageStore())

    async with quotas.metered("key-1", "starter", {"images": 1}):
        assert await quotas.in_flight("key-1") == {"images": 1}

    assert await quotas.usage("key-1") == {"images": 1}
    assert await quotas.in_flight("key-1") == {}


@pytest.mark.parametrize("lease_seconds", [0, -5, float("inf")])
def test_a_non_positive_lease_length_is_a_configuration_error(lease_seconds: float) -> None:
    with pytest.raises(ConfigurationError, match="lease_seconds"):
        QuotaService(MemoryUsageStore(), lease_seconds=lease_seconds)
