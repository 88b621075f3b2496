"""The JobStore contract on Redis, plus what only a shared Redis shows: replicas that never
claim one job twice, keys that Redis itself expires, and the claim of a dead worker voided."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import pytest
import redis.asyncio

from renderkit_server.state.jobs import JobStore
from renderkit_server.state.jobs.redis import RedisJobStore
from tests.server.state.conftest import fresh_redis
from tests.server.state.jobs_contract import DAY, FakeClock, JobStoreContract, new_job


class TestRedisJobStore(JobStoreContract):
    @pytest.fixture
    async def client(self, redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
        client = await fresh_redis(redis_url)
        yield client
        await client.aclose()

    @pytest.fixture
    def make_store(self, client: redis.asyncio.Redis) -> Callable[[FakeClock], JobStore]:
        return lambda clock: RedisJobStore(client, clock=clock)


@pytest.mark.anyio
async def test_two_replicas_on_one_redis_never_claim_the_same_job(redis_url: str) -> None:
    clock = FakeClock()
    first, second = await fresh_redis(redis_url), await fresh_redis(redis_url)
    a, b = RedisJobStore(first, clock=clock), RedisJobStore(second, clock=clock)
    try:
        jobs = [new_job(clock) for _ in range(20)]
        await a.submit(jobs)

        claims = await asyncio.gather(*(s.claim("w", 30) for s in (a, b) * 12))

        ids = [c.job.id for c in claims if c is not None]
        assert sorted(ids) == sorted(j.id for j in jobs)
        seen = await b.get(jobs[0].id, owner="lineage-a")
        assert seen is not None
        assert seen.status == "running"
    finally:
        await first.aclose()
        await second.aclose()


@pytest.mark.anyio
async def test_job_keys_are_namespaced_and_expire_a_day_after_their_retention(
    redis_url: str,
) -> None:
    clock = FakeClock()
    client = await fresh_redis(redis_url)
    try:
        store = RedisJobStore(client, clock=clock)
        job = new_job(clock)
        await store.submit([job])

        keys = sorted(k.decode() for k in await client.keys("*"))
        expire_at = await client.expiretime(f"renderkit:jobs:job:{job.id}")
    finally:
        await client.aclose()
    assert all(k.startswith("renderkit:jobs:") for k in keys)
    assert f"renderkit:jobs:job:{job.id}" in keys
    assert expire_at == int(job.expires_at + DAY)


@pytest.mark.anyio
async def test_a_job_record_keeps_empty_lists_and_nested_json_as_given(redis_url: str) -> None:
    clock = FakeClock()
    client = await fresh_redis(redis_url)
    try:
        store = RedisJobStore(client, clock=clock)
        job = new_job(clock, metadata={"tags": [], "nested": {"empty": {}, "list": [1, [2]]}})
        await store.submit([job])
        claim = await store.claim("w", 30)
        assert claim is not None
        done = await store.finish(claim, status="succeeded", result={"facts": [], "ok": True})
    finally:
        await client.aclose()
    assert done is not None
    assert done.metadata == job.metadata
    assert done.result == {"facts": [], "ok": True}


@pytest.mark.anyio
async def test_a_sweep_cleans_an_owners_indexes_even_after_redis_dropped_the_job_itself(
    redis_url: str,
) -> None:
    clock = FakeClock()
    client = await fresh_redis(redis_url)
    try:
        store = RedisJobStore(client, clock=clock)
        jobs = [new_job(clock, retention=10) for _ in range(600)]
        await store.submit(jobs)
        await client.delete(f"renderkit:jobs:job:{jobs[0].id}")  # as Redis's own expiry would
        clock.advance(11)

        deleted = await store.sweep()

        left = sorted(k.decode() for k in await client.keys("renderkit:jobs:*"))
    finally:
        await client.aclose()
    assert deleted == 599  # one key was already gone; every other in steps of 500
    assert left == ["renderkit:jobs:ranks"]


@pytest.mark.anyio
async def test_a_cancellation_the_redis_client_swallowed_is_raised_after_the_call(
    redis_client: redis.asyncio.Redis,
) -> None:
    store = RedisJobStore(redis_client)

    async def worker() -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        # What redis-py does when the cancel lands at the wrong moment of a command:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0)
        await store.claim("w", 30)
        pytest.fail("the worker ran on after its cancellation")

    with pytest.raises(asyncio.CancelledError):
        await asyncio.create_task(worker())
