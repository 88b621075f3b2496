"""The failed-work budget: timed-out calls spend a key's browser time, shared by replicas."""

from __future__ import annotations

import datetime
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import attrs
import pytest

from renderkit_server.quotas import (
    FailedWorkBudget,
    FailedWorkExhaustedError,
    MemoryUsageStore,
    PlanLimits,
    SqliteUsageStore,
    UsageStore,
    UsageStoreUnavailableError,
    default_plans,
)
from renderkit_server.state._redis import connect
from renderkit_server.state.usage.redis import RedisUsageStore
from tests.server._redis import redis_server, require_redis_server

pytestmark = pytest.mark.anyio

# 10 s into an hour window: 3590 s remain.
START = datetime.datetime(2026, 11, 27, 0, 0, 10, tzinfo=datetime.UTC)
PLANS = default_plans() | {
    "tiny": PlanLimits(failed_work_seconds=30, failed_work_window=3600),
}


class FakeClock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime.datetime:
        return self.now


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    require_redis_server()
    with redis_server() as url:
        yield url


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[UsageStore, UsageStore]]:
    """Two store instances on one backend, like two replicas (one shared object in memory)."""
    first: UsageStore
    second: UsageStore
    if request.param == "memory":
        first = second = MemoryUsageStore()
    elif request.param == "sqlite":
        first, second = SqliteUsageStore(tmp_path / "u.db"), SqliteUsageStore(tmp_path / "u.db")
    else:
        url = request.getfixturevalue("redis_url")
        client = connect(url)
        await client.flushdb()
        await client.aclose()
        first, second = RedisUsageStore(url), RedisUsageStore(url)
    yield first, second
    await first.aclose()
    await second.aclose()


def _budget(store: UsageStore, clock: FakeClock) -> FailedWorkBudget:
    return FailedWorkBudget(store, PLANS.__getitem__, clock=clock)


async def test_timeouts_on_one_replica_spend_the_keys_budget_on_every_replica(
    replicas: tuple[UsageStore, UsageStore],
) -> None:
    clock = FakeClock()
    one, two = (_budget(store, clock) for store in replicas)
    await one.spend("k1", "tiny", 10)
    await two.spend("k1", "tiny", 9.2)  # rounded up: 10
    await one.check("k1", "tiny")  # 20 of 30 s
    await two.spend("k1", "tiny", 10)
    with pytest.raises(FailedWorkExhaustedError) as caught:
        await one.check("k1", "tiny")
    error = caught.value
    assert (error.metric, error.plan, error.limit, error.remaining) == (
        "failed_work_seconds",
        "tiny",
        30,
        0,
    )
    assert error.retry_after == 3590
    assert error.headers()["Retry-After"] == "3590"
    # Another key of the same plan is untouched, and checking spends nothing.
    for _ in range(3):
        await two.check("k2", "tiny")


async def test_the_budget_comes_back_when_its_window_ends(
    replicas: tuple[UsageStore, UsageStore],
) -> None:
    clock = FakeClock()
    budget = _budget(replicas[0], clock)
    await budget.spend("k", "tiny", 30)
    with pytest.raises(FailedWorkExhaustedError):
        await budget.check("k", "tiny")
    clock.now += datetime.timedelta(seconds=3590)
    await budget.check("k", "tiny")


async def test_a_plan_without_a_budget_is_never_refused() -> None:
    clock = FakeClock()
    budget = _budget(MemoryUsageStore(), clock)
    await budget.spend("k", "vip", 10_000)
    await budget.check("k", "vip")


async def test_the_budget_does_not_share_counters_with_the_burst_limit() -> None:
    store = MemoryUsageStore()
    clock = FakeClock()
    plans = {"p": attrs.evolve(PLANS["tiny"], failed_work_window=60)}
    budget = FailedWorkBudget(store, plans.__getitem__, clock=clock)
    start = int(START.timestamp()) // 60 * 60
    for _ in range(50):  # the key's burst counter of the same minute
        await store.hit("k", start, 60, None)
    await budget.check("k", "p")


async def test_a_failing_store_refuses_the_check_but_not_the_timed_out_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = MemoryUsageStore()
    await store.aclose()
    budget = _budget(store, FakeClock())
    with pytest.raises(UsageStoreUnavailableError):
        await budget.check("k", "starter")
    with caplog.at_level(logging.WARNING, logger="renderkit_server"):
        await budget.spend("k", "starter", 5)
    assert "timed-out call" in caplog.text
