"""The InflightLimiter contract over the local and Redis limiters, and what only Redis
does: cap a key's leases over every replica, wait for one, renew it while its render runs.

The Redis tests pause in real time: leases expire by the Redis server's clock (``TIME``
inside the scripts), which a test cannot inject.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import anyio
import pytest
import redis.asyncio

from renderkit import RenderTimeoutError, TenantBusyError
from renderkit_server.state.inflight import InflightLimiter, LocalInflightLimiter
from renderkit_server.state.inflight.redis import RedisInflightLimiter
from tests.server.state.conftest import fresh_redis

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "redis"])
async def limiter(request: pytest.FixtureRequest) -> AsyncIterator[InflightLimiter]:
    """A limiter of each kind; the Redis one on an empty database."""
    backend: InflightLimiter
    client: redis.asyncio.Redis | None = None
    if request.param == "memory":
        backend = LocalInflightLimiter()
    else:
        client = await fresh_redis(request.getfixturevalue("redis_url"))
        backend = RedisInflightLimiter(client, queue_timeout=1)
    yield backend
    await backend.aclose()
    if client is not None:
        await client.aclose()


async def test_every_limiter_satisfies_the_protocol(limiter: InflightLimiter) -> None:
    assert isinstance(limiter, InflightLimiter)


async def test_an_uncapped_key_is_granted_at_once_however_many_it_holds(
    limiter: InflightLimiter,
) -> None:
    with anyio.fail_after(1):
        async with limiter.hold("vip", None), limiter.hold("vip", None), limiter.hold("vip", None):
            pass


async def test_a_failing_body_propagates_its_own_error_and_frees_the_lease(
    limiter: InflightLimiter,
) -> None:
    with pytest.raises(RenderTimeoutError):
        async with limiter.hold("k", 1):
            raise RenderTimeoutError("too slow", timeout=1)
    with anyio.fail_after(1):
        async with limiter.hold("k", 1):
            pass


async def test_a_lease_released_can_be_taken_again_at_once(limiter: InflightLimiter) -> None:
    with anyio.fail_after(2):
        for _ in range(3):
            async with limiter.hold("k", 1):
                pass


async def test_the_local_limiter_grants_past_the_cap_as_the_pool_caps_instead() -> None:
    limiter = LocalInflightLimiter()
    with anyio.fail_after(1):
        async with limiter.hold("k", 1), limiter.hold("k", 1):
            pass


async def test_an_uncapped_key_takes_no_lease_on_redis(redis_client: redis.asyncio.Redis) -> None:
    async with RedisInflightLimiter(redis_client, queue_timeout=0).hold("vip", None):
        assert await redis_client.exists("renderkit:inflight:vip") == 0


async def test_a_key_over_its_cap_waits_the_queue_timeout_then_gets_tenant_busy(
    redis_client: redis.asyncio.Redis,
) -> None:
    replica_a = RedisInflightLimiter(redis_client, queue_timeout=5)
    replica_b = RedisInflightLimiter(redis_client, queue_timeout=0.4)
    async with replica_a.hold("k", 2), replica_a.hold("k", 2):
        started = time.monotonic()
        with pytest.raises(TenantBusyError) as info:
            async with replica_b.hold("k", 2):
                pytest.fail("a third lease was granted under a cap of 2")
        assert 0.35 < time.monotonic() - started < 2
        assert info.value.retry_after >= 1
        async with replica_b.hold("other key", 2):  # caps are per key
            assert await redis_client.zcard("renderkit:inflight:k") == 2
    assert await redis_client.zcard("renderkit:inflight:k") == 0


async def test_a_waiting_render_gets_the_lease_as_soon_as_it_is_released(
    redis_client: redis.asyncio.Redis,
) -> None:
    limiter = RedisInflightLimiter(redis_client, queue_timeout=5)
    order: list[str] = []

    async def first() -> None:
        async with limiter.hold("k", 1):
            order.append("first")
            await anyio.sleep(0.5)
        order.append("first released")

    async with anyio.create_task_group() as group:
        group.start_soon(first)
        await anyio.sleep(0.1)
        async with limiter.hold("k", 1):
            order.append("second")
    assert order == ["first", "first released", "second"]


async def test_a_failing_render_propagates_its_error_and_releases_its_lease(
    redis_client: redis.asyncio.Redis,
) -> None:
    limiter = RedisInflightLimiter(redis_client, queue_timeout=1)
    with pytest.raises(RenderTimeoutError):
        async with limiter.hold("k", 1):
            raise RenderTimeoutError("too slow", timeout=1)
    assert await redis_client.zcard("renderkit:inflight:k") == 0
    async with limiter.hold("k", 1):
        pass


async def test_a_lease_is_renewed_while_its_render_runs_past_the_lease_time(
    redis_client: redis.asyncio.Redis,
) -> None:
    limiter = RedisInflightLimiter(redis_client, queue_timeout=0.1, lease_seconds=0.6)
    async with limiter.hold("k", 1):
        await anyio.sleep(1.5)  # over twice the lease time
        with pytest.raises(TenantBusyError):
            async with limiter.hold("k", 1):
                pass
