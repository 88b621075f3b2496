"""Monthly quotas and burst limits enforced by QuotaService, and key issuance limits."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import attrs
import pytest

from renderkit import ConfigurationError, StorageUnavailableError
from renderkit_server.quotas import (
    METRICS,
    MemoryUsageStore,
    PlanLimits,
    QuotaExceededError,
    QuotaService,
    QuotaTicket,
    RateLimitedError,
    Reservation,
    SqliteUsageStore,
    UsageStore,
    audio_charges,
    default_plans,
    plans_from_mapping,
)

pytestmark = pytest.mark.anyio

UTC = datetime.UTC
START = datetime.datetime(2026, 11, 30, 23, 58, 30, tzinfo=UTC)


class FakeClock:
    """A clock tests move by hand."""

    def __init__(self, now: datetime.datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime.datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += datetime.timedelta(**delta)


def no_burst(plans: dict[str, PlanLimits]) -> dict[str, PlanLimits]:
    return {name: attrs.evolve(limits, burst_per_minute=None) for name, limits in plans.items()}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store() -> MemoryUsageStore:
    return MemoryUsageStore()


@pytest.fixture
def quotas(store: MemoryUsageStore, clock: FakeClock) -> QuotaService:
    return QuotaService(store, default_plans(), clock=clock)


def test_audio_charges_round_the_duration_up_to_the_millisecond() -> None:
    assert audio_charges(characters=120, seconds=7.0004) == {
        "audio_characters": 120,
        "audio_minutes": 7001,
    }


# Monthly quotas.


async def test_a_committed_reservation_charges_the_store_and_reports_headers(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    ticket = await quotas.reserve("key-1", "starter", {"images": 1})
    await ticket.commit()

    assert await store.usage("key-1", "2026-11") == {"images": 1}
    assert ticket.period == "2026-11"
    assert ticket.charges == {"images": 1}
    assert ticket.headers() == {
        "X-RateLimit-Limit": "5000",
        "X-RateLimit-Remaining": "4999",
        "X-RateLimit-Reset": "2026-12-01T00:00:00Z",
        "RateLimit-Policy": '"burst_per_minute";q=10;w=60',
        "RateLimit": '"burst_per_minute";r=9;t=30',  # 23:58:30, the window ends at 23:59
    }


async def test_an_exhausted_quota_raises_quota_exceeded_with_reset_details(
    store: MemoryUsageStore, clock: FakeClock
) -> None:
    plans = no_burst(plans_from_mapping({"starter": {"pdfs": 2}}))
    quotas = QuotaService(store, plans, clock=clock)
    await (await quotas.reserve("key-1", "starter", {"pdfs": 2})).commit()

    with pytest.raises(QuotaExceededError) as info:
        await quotas.reserve("key-1", "starter", {"pdfs": 1})

    error = info.value
    assert (error.metric, error.plan, error.limit, error.remaining) == ("pdfs", "starter", 2, 0)
    assert error.reset_at == datetime.datetime(2026, 12, 1, tzinfo=UTC)
    assert error.retry_after == 90  # from 23:58:30 to midnight
    assert error.headers() == {
        "Retry-After": "90",
        "X-RateLimit-Limit": "2",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": "2026-12-01T00:00:00Z",
    }
    assert await store.usage("key-1", "2026-11") == {"pdfs": 2}


async def test_retry_after_is_at_least_one_second(store: MemoryUsageStore) -> None:
    clock = FakeClock(datetime.datetime(2026, 11, 30, 23, 59, 59, 999_000, tzinfo=UTC))
    quotas = QuotaService(store, plans_from_mapping({"starter": {"pdfs": 0}}), clock=clock)

    with pytest.raises(QuotaExceededError) as info:
        await quotas.reserve("key-1", "starter", {"pdfs": 1})

    assert info.value.retry_after == 1


async def test_quotas_reset_when_the_month_rolls_over(
    store: MemoryUsageStore, clock: FakeClock
) -> None:
    quotas = QuotaService(store, plans_from_mapping({"starter": {"images": 1}}), clock=clock)
    await (await quotas.reserve("key-1", "starter", {"images": 1})).commit()
    with pytest.raises(QuotaExceededError):
        await quotas.reserve("key-1", "starter", {"images": 1})

    clock.advance(minutes=2)  # 2026-12-01 00:00:30
    ticket = await quotas.reserve("key-1", "starter", {"images": 1})
    await ticket.commit()

    assert ticket.period == "2026-12"
    assert await quotas.usage("key-1") == {"images": 1}
    assert await store.usage("key-1", "2026-11") == {"images": 1}


async def test_quotas_are_isolated_per_key_id(store: MemoryUsageStore, clock: FakeClock) -> None:
    quotas = QuotaService(store, plans_from_mapping({"starter": {"images": 1}}), clock=clock)
    await (await quotas.reserve("key-1", "starter", {"images": 1})).commit()

    ticket = await quotas.reserve("key-2", "starter", {"images": 1})
    await ticket.commit()

    assert ticket.api_key_id == "key-2"
    assert await store.usage("key-1", "2026-11") == {"images": 1}
    assert await store.usage("key-2", "2026-11") == {"images": 1}


async def test_a_later_refused_metric_releases_the_earlier_ones(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    too_long = audio_charges(characters=100, seconds=61 * 60)

    with pytest.raises(QuotaExceededError) as info:
        await quotas.reserve("key-1", "starter", too_long)

    assert info.value.metric == "audio_minutes"
    assert info.value.limit == 60
    assert info.value.remaining == 60
    assert await store.usage("key-1", "2026-11") == {}


async def test_audio_minutes_are_metered_exactly_in_milliseconds(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    for _ in range(3):
        await quotas.reserve("key-1", "starter", audio_charges(characters=10, seconds=0.5))

    ticket = await quotas.reserve(
        "key-1", "starter", audio_charges(characters=10, seconds=59.5), main_metric="audio_minutes"
    )

    assert await store.in_flight("key-1", "2026-11") == {
        "audio_characters": 40,
        "audio_minutes": 61_000,
    }
    assert ticket.headers()["X-RateLimit-Remaining"] == "58"  # 58.98 minutes left
    await ticket.commit()
    assert await store.usage("key-1", "2026-11") == {
        "audio_characters": 10,
        "audio_minutes": 59_500,
    }


async def test_releasing_a_ticket_refunds_every_charge_once(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    await (await quotas.reserve("key-1", "starter", {"images": 1})).commit()
    ticket = await quotas.reserve("key-1", "starter", {"images": 2, "screenshots": 1})

    await ticket.release()
    await ticket.release()

    assert ticket.released
    assert await store.usage("key-1", "2026-11") == {"images": 1}


async def test_metered_keeps_the_charge_of_a_successful_call(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    async with quotas.metered("key-1", "starter", {"images": 1}) as ticket:
        pass

    assert not ticket.released
    assert await store.usage("key-1", "2026-11") == {"images": 1}


async def test_metered_refunds_a_call_that_fails(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    async def failing_call() -> None:
        async with quotas.metered("key-1", "starter", {"images": 1}):
            msg = "render failed"
            raise RuntimeError(msg)

    with pytest.raises(RuntimeError):
        await failing_call()

    assert await store.usage("key-1", "2026-11") == {}


async def test_metered_refunds_a_cancelled_call(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    entered = anyio.Event()

    async def call() -> None:
        async with quotas.metered("key-1", "starter", {"images": 1}):
            entered.set()
            await anyio.sleep_forever()

    async with anyio.create_task_group() as tg:
        tg.start_soon(call)
        await entered.wait()
        tg.cancel_scope.cancel()

    assert await store.usage("key-1", "2026-11") == {}


async def test_fifty_concurrent_calls_against_a_quota_of_ten_succeed_exactly_ten_times(
    store: MemoryUsageStore, clock: FakeClock
) -> None:
    plans = no_burst(plans_from_mapping({"starter": {"images": 10}}))
    quotas = QuotaService(store, plans, clock=clock)

    results = await asyncio.gather(
        *(quotas.reserve("key-1", "starter", {"images": 1}) for _ in range(50)),
        return_exceptions=True,
    )

    assert sum(isinstance(r, QuotaTicket) for r in results) == 10
    assert sum(isinstance(r, QuotaExceededError) for r in results) == 40


async def test_vip_is_never_refused_and_its_usage_is_still_recorded(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    charges = dict.fromkeys(METRICS, 1_000_000)
    for _ in range(100):
        ticket = await quotas.reserve("key-vip", "vip", charges)
        await ticket.commit()

    assert ticket.headers() == {}
    assert await store.usage("key-vip", "2026-11") == dict.fromkeys(METRICS, 100_000_000)


async def test_an_unknown_plan_is_a_configuration_error(quotas: QuotaService) -> None:
    with pytest.raises(ConfigurationError):
        await quotas.reserve("key-1", "platinum", {"images": 1})


@pytest.mark.parametrize("charges", [{"videos": 1}, {"images": -1}, {"images": 0.5}])
async def test_invalid_charges_raise_value_error(
    quotas: QuotaService, store: MemoryUsageStore, charges: dict[str, object]
) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the type is the contract here
        await quotas.reserve("key-1", "starter", charges)  # type: ignore[arg-type]
    assert await store.usage("key-1", "2026-11") == {}


# Settling a measured amount.


async def test_adjust_refunds_an_overestimate(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    ticket = await quotas.reserve("key-1", "starter", audio_charges(characters=50, seconds=30))

    await quotas.adjust(ticket, "audio_minutes", 12_345)
    await ticket.commit()

    assert ticket.charges["audio_minutes"] == 12_345
    assert await store.usage("key-1", "2026-11") == {
        "audio_characters": 50,
        "audio_minutes": 12_345,
    }


async def test_adjust_charges_an_underestimate_even_past_the_limit(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    ticket = await quotas.reserve(
        "key-1", "starter", {"audio_minutes": 59 * 60_000}, main_metric="audio_minutes"
    )

    await quotas.adjust(ticket, "audio_minutes", 61 * 60_000)
    await ticket.commit()

    assert await store.usage("key-1", "2026-11") == {"audio_minutes": 61 * 60_000}
    assert ticket.headers()["X-RateLimit-Remaining"] == "0"
    with pytest.raises(QuotaExceededError):
        await quotas.reserve("key-1", "starter", {"audio_minutes": 1})


async def test_adjust_can_charge_a_metric_measured_after_the_call(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    ticket = await quotas.reserve("key-1", "starter", {"audio_characters": 10})

    await quotas.adjust(ticket, "audio_minutes", 4_000)
    await ticket.release()

    assert await store.usage("key-1", "2026-11") == {}


async def test_adjusting_a_released_ticket_is_an_error(quotas: QuotaService) -> None:
    ticket = await quotas.reserve("key-1", "starter", {"audio_minutes": 1_000})
    await ticket.release()

    with pytest.raises(RuntimeError):
        await quotas.adjust(ticket, "audio_minutes", 2_000)


# Burst limits.


async def test_the_burst_limit_refuses_the_eleventh_request_of_a_minute(
    quotas: QuotaService,
) -> None:
    for _ in range(10):
        await quotas.reserve("key-1", "starter", {"images": 1})

    with pytest.raises(RateLimitedError) as info:
        await quotas.reserve("key-1", "starter", {"images": 1})

    error = info.value
    assert (error.metric, error.plan, error.limit, error.remaining) == (
        "burst_per_minute",
        "starter",
        10,
        0,
    )
    assert error.reset_at == datetime.datetime(2026, 11, 30, 23, 59, tzinfo=UTC)
    assert error.retry_after == 30


async def test_a_refused_burst_charges_no_monthly_quota(
    quotas: QuotaService, store: MemoryUsageStore
) -> None:
    for _ in range(10):
        await (await quotas.reserve("key-1", "starter", {"images": 1})).commit()

    with pytest.raises(RateLimitedError):
        await quotas.reserve("key-1", "starter", {"pdfs": 1})

    assert await store.usage("key-1", "2026-11") == {"images": 10}


async def test_the_burst_limit_frees_up_in_the_next_minute(
    quotas: QuotaService, clock: FakeClock
) -> None:
    for _ in range(10):
        await quotas.reserve("key-1", "starter", {"images": 1})

    clock.advance(seconds=30)

    assert isinstance(await quotas.reserve("key-1", "starter", {"images": 1}), QuotaTicket)


async def test_burst_limits_are_per_key(quotas: QuotaService) -> None:
    for _ in range(10):
        await quotas.reserve("key-1", "starter", {"images": 1})

    assert isinstance(await quotas.reserve("key-2", "starter", {"images": 1}), QuotaTicket)


async def test_a_call_without_monthly_charges_reports_only_the_burst_window(
    quotas: QuotaService,
) -> None:
    ticket = await quotas.reserve("key-1", "pro", {})

    assert ticket.main_metric is None
    assert ticket.headers() == {
        "RateLimit-Policy": '"burst_per_minute";q=60;w=60',
        "RateLimit": '"burst_per_minute";r=59;t=30',
    }


async def test_overridden_burst_limits_apply(store: MemoryUsageStore, clock: FakeClock) -> None:
    quotas = QuotaService(store, plans_from_mapping({"pro": {"burst_per_minute": 2}}), clock=clock)
    await quotas.reserve("key-1", "pro", {"images": 1})
    await quotas.reserve("key-1", "pro", {"images": 1})

    with pytest.raises(RateLimitedError) as info:
        await quotas.reserve("key-1", "pro", {"images": 1})
    assert info.value.limit == 2


async def test_vip_has_no_burst_limit(quotas: QuotaService) -> None:
    for _ in range(500):
        await quotas.reserve("key-vip", "vip", {"images": 1})


# Failures of the store.


class FailingStore(MemoryUsageStore):
    """Fails every lease of one metric, as if the backend went down mid-call."""

    def __init__(self, failing_metric: str) -> None:
        super().__init__()
        self.failing_metric = failing_metric

    async def lease(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None, seconds: float
    ) -> Reservation:
        if metric == self.failing_metric:
            msg = "the usage store failed"
            raise StorageUnavailableError(msg)
        return await super().lease(key_id, metric, period, amount, limit, seconds)


async def test_a_store_failure_mid_call_releases_the_earlier_charges(clock: FakeClock) -> None:
    store = FailingStore("pdfs")
    quotas = QuotaService(store, clock=clock)

    with pytest.raises(StorageUnavailableError):
        await quotas.reserve("key-1", "starter", {"images": 1, "pdfs": 1})

    assert await store.usage("key-1", "2026-11") == {}
    assert await store.in_flight("key-1", "2026-11") == {}


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[UsageStore]:
    store = SqliteUsageStore(tmp_path / "usage.db")
    yield store
    await store.aclose()


async def test_the_service_works_over_a_shared_sqlite_store(
    sqlite_store: UsageStore, clock: FakeClock
) -> None:
    quotas = QuotaService(sqlite_store, plans_from_mapping({"starter": {"images": 3}}), clock=clock)

    results = await asyncio.gather(
        *(quotas.reserve("key-1", "starter", {"images": 1}) for _ in range(8)),
        return_exceptions=True,
    )

    assert sum(isinstance(r, QuotaTicket) for r in results) == 3
    assert sum(isinstance(r, QuotaExceededError) for r in results) == 5


# Self-service key issuance.


async def test_key_issuance_is_limited_per_client_address(
    store: MemoryUsageStore, clock: FakeClock
) -> None:
    quotas = QuotaService(store, clock=clock, issuance_limit=2, issuance_window=3600)
    await quotas.limit_issuance("203.0.113.7")
    await quotas.limit_issuance("203.0.113.7")

    with pytest.raises(RateLimitedError) as info:
        await quotas.limit_issuance("203.0.113.7")
    await quotas.limit_issuance("198.51.100.1")

    error = info.value
    assert (error.metric, error.limit, error.remaining) == ("key_issuance", 2, 0)
    assert error.reset_at == datetime.datetime(2026, 12, 1, tzinfo=UTC)
    assert error.retry_after == 90


async def test_key_issuance_frees_up_in_the_next_window(
    store: MemoryUsageStore, clock: FakeClock
) -> None:
    quotas = QuotaService(store, clock=clock, issuance_limit=1, issuance_window=3600)
    await quotas.limit_issuance("203.0.113.7")

    clock.advance(hours=1)

    await quotas.limit_issuance("203.0.113.7")


async def test_key_issuance_counters_hold_no_raw_address(
    store: MemoryUsageStore, clock: FakeClock
) -> None:
    quotas = QuotaService(store, clock=clock, issuance_limit=1)

    await quotas.limit_issuance("203.0.113.7")

    assert all("203.0.113.7" not in key_id for key_id, _, _ in store._windows)


async def test_key_issuance_without_a_limit_is_never_refused(
    store: MemoryUsageStore, clock: FakeClock
) -> None:
    quotas = QuotaService(store, clock=clock, issuance_limit=None)

    for _ in range(50):
        await quotas.limit_issuance("203.0.113.7")


@pytest.mark.parametrize("kwargs", [{"issuance_limit": -1}, {"issuance_window": 0}])
def test_invalid_issuance_settings_raise_configuration_error(kwargs: dict[str, int]) -> None:
    with pytest.raises(ConfigurationError):
        QuotaService(MemoryUsageStore(), **kwargs)
