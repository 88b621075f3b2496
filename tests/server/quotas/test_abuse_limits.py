"""Abuse limits of QuotaService on keys and key e-mails, and failing closed without a store."""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

import pytest

from renderkit import StorageUnavailableError
from renderkit_server.quotas import (
    MemoryUsageStore,
    QuotaService,
    RateLimitedError,
    Reservation,
    UsageStoreUnavailableError,
    WindowLimit,
)

pytestmark = pytest.mark.anyio

UTC = datetime.UTC
START = datetime.datetime(2026, 11, 30, 23, 58, 30, tzinfo=UTC)
HOUR = 3600


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime.datetime:
        return self.now


def service(store: MemoryUsageStore, clock: Clock, **limits: object) -> QuotaService:
    return QuotaService(store, clock=clock, **limits)  # type: ignore[arg-type]


async def test_regeneration_is_limited_per_key_lineage() -> None:
    clock = Clock()
    quotas = service(
        MemoryUsageStore(), clock, regeneration_per_key=WindowLimit(limit=2, window=HOUR)
    )
    for address in ("203.0.113.1", "203.0.113.2"):
        await quotas.limit_regeneration("lineage-a", address)
    with pytest.raises(RateLimitedError) as info:
        await quotas.limit_regeneration("lineage-a", "203.0.113.3")
    await quotas.limit_regeneration("lineage-b", "203.0.113.3")
    assert (info.value.metric, info.value.limit, info.value.remaining) == ("key_regeneration", 2, 0)
    assert info.value.retry_after == 90  # the hour ends at midnight UTC


async def test_regeneration_is_limited_per_client_address_across_lineages() -> None:
    quotas = service(
        MemoryUsageStore(), Clock(), regeneration_per_address=WindowLimit(limit=1, window=HOUR)
    )
    await quotas.limit_regeneration("lineage-a", "203.0.113.1")
    with pytest.raises(RateLimitedError) as info:
        await quotas.limit_regeneration("lineage-b", "203.0.113.1")
    assert info.value.metric == "key_regeneration_address"


async def test_key_emails_fold_case_and_plus_tags_into_one_mailbox() -> None:
    quotas = service(MemoryUsageStore(), Clock(), key_email=(WindowLimit(limit=2, window=HOUR),))
    await quotas.limit_key_email("victim@example.com")
    await quotas.limit_key_email("VICTIM+promo@Example.com")
    with pytest.raises(RateLimitedError) as info:
        await quotas.limit_key_email("victim+other@example.com")
    await quotas.limit_key_email("other@example.com")
    assert info.value.metric == "key_email"


async def test_every_key_email_window_is_enforced_and_the_daily_one_outlasts_the_hour() -> None:
    clock = Clock()
    quotas = service(
        MemoryUsageStore(),
        clock,
        key_email=(WindowLimit(limit=3, window=24 * HOUR), WindowLimit(limit=2, window=HOUR)),
    )
    clock.now = datetime.datetime(2026, 11, 30, 1, 0, tzinfo=UTC)
    await quotas.limit_key_email("a@x.io")
    await quotas.limit_key_email("a@x.io")
    with pytest.raises(RateLimitedError) as hourly:
        await quotas.limit_key_email("a@x.io")
    assert hourly.value.limit == 2
    clock.now += datetime.timedelta(hours=1)
    # The refused e-mail above used a daily slot (checked first); the third is refused daily.
    with pytest.raises(RateLimitedError) as daily:
        await quotas.limit_key_email("a@x.io")
    assert daily.value.limit == 3
    assert daily.value.reset_at == datetime.datetime(2026, 12, 1, tzinfo=UTC)


async def test_abuse_counters_hold_no_raw_address() -> None:
    store = MemoryUsageStore()
    quotas = service(store, Clock())
    await quotas.limit_regeneration("lineage-a", "203.0.113.7")
    await quotas.limit_key_email("victim@example.com")
    for key_id, _, _ in store._windows:
        assert "203.0.113.7" not in key_id and "victim" not in key_id


async def test_a_limit_of_none_never_counts() -> None:
    store = MemoryUsageStore()
    quotas = service(
        store,
        Clock(),
        regeneration_per_key=WindowLimit(limit=None, window=HOUR),
        regeneration_per_address=WindowLimit(limit=None, window=HOUR),
        key_email=(),
    )
    for _ in range(50):
        await quotas.limit_regeneration("lineage-a", "203.0.113.7")
        await quotas.limit_key_email("a@x.io")
    assert not store._windows


class BrokenStore(MemoryUsageStore):
    async def hit(
        self, key_id: str, window_start: int, window_seconds: int, limit: int | None
    ) -> Reservation:
        msg = "the redis usage store failed (ConnectionError)"
        raise StorageUnavailableError(msg)


async def test_every_limit_fails_closed_with_a_retry_hint_when_the_store_fails() -> None:
    quotas = QuotaService(BrokenStore(), unavailable_retry_after=7)
    calls = [
        quotas.reserve("lineage-a", "starter", {"images": 1}),
        quotas.limit_issuance("203.0.113.7"),
        quotas.limit_regeneration("lineage-a", "203.0.113.7"),
        quotas.limit_key_email("a@x.io"),
    ]
    for call in calls:
        with pytest.raises(UsageStoreUnavailableError) as info:
            await call
        assert info.value.retry_after == 7
        assert isinstance(info.value.__cause__, StorageUnavailableError)


async def test_limit_counters_are_named_by_a_keyed_hash_not_a_plain_hash_of_the_address() -> None:
    address = "203.0.113.7"
    counted: list[str] = []

    class Recording(MemoryUsageStore):
        async def hit(self, key: str, *args: Any, **kwargs: Any) -> Reservation:
            counted.append(key)
            return await super().hit(key, *args, **kwargs)

    for pepper in (b"one", b"two"):
        await QuotaService(Recording(), pepper=pepper).limit_issuance(address)
    plain = hashlib.sha256(address.encode()).hexdigest()[:32]
    assert len(set(counted)) == 2  # the secret changes the name
    assert all(address not in key and plain not in key for key in counted)
