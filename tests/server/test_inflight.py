"""The cross-replica in-flight limiter and the Redis revocation feed, on a real redis-server."""

from __future__ import annotations

import subprocess
import time
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
import redis.asyncio

from renderkit import RenderTimeoutError, TenantBusyError
from renderkit_server._redis import connect
from renderkit_server.inflight import LocalInflightLimiter
from renderkit_server.inflight_redis import RedisInflightLimiter
from renderkit_server.keys import InvalidKeyError, KeyService, KeySigner
from renderkit_server.keys.revocation_redis import RedisRevocationStore

from ._redis import REDIS_SERVER, redis_server, require_redis_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def redis_url() -> Iterator[str]:
    require_redis_server()
    with redis_server() as url:
        yield url


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[redis.asyncio.Redis]:
    redis_client = connect(redis_url)
    yield redis_client
    await redis_client.aclose()


async def test_a_key_over_its_cap_waits_the_queue_timeout_then_gets_tenant_busy(
    client: redis.asyncio.Redis,
) -> None:
    replica_a = RedisInflightLimiter(client, queue_timeout=5)
    replica_b = RedisInflightLimiter(client, queue_timeout=0.4)
    async with replica_a.hold("k", 2), replica_a.hold("k", 2):
        started = time.monotonic()
        with pytest.raises(TenantBusyError) as info:
            async with replica_b.hold("k", 2):
                pytest.fail("a third lease was granted under a cap of 2")
        assert 0.35 < time.monotonic() - started < 2
        assert info.value.retry_after >= 1
        async with replica_b.hold("other key", 2):  # caps are per key
            assert await client.zcard("renderkit:inflight:k") == 2
    assert await client.zcard("renderkit:inflight:k") == 0


async def test_a_waiting_render_gets_the_lease_as_soon_as_it_is_released(
    client: redis.asyncio.Redis,
) -> None:
    limiter = RedisInflightLimiter(client, queue_timeout=5)
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
    client: redis.asyncio.Redis,
) -> None:
    limiter = RedisInflightLimiter(client, queue_timeout=1)
    with pytest.raises(RenderTimeoutError):
        async with limiter.hold("k", 1):
            raise RenderTimeoutError("too slow", timeout=1)
    assert await client.zcard("renderkit:inflight:k") == 0
    async with limiter.hold("k", 1):
        pass


async def test_a_lease_is_renewed_while_its_render_runs_past_the_lease_time(
    client: redis.asyncio.Redis,
) -> None:
    limiter = RedisInflightLimiter(client, queue_timeout=0.1, lease_seconds=0.6)
    async with limiter.hold("k", 1):
        await anyio.sleep(1.5)  # over twice the lease time
        with pytest.raises(TenantBusyError):
            async with limiter.hold("k", 1):
                pass


async def test_uncapped_keys_and_the_local_limiter_take_no_lease(
    client: redis.asyncio.Redis,
) -> None:
    async with RedisInflightLimiter(client, queue_timeout=0).hold("vip", None):
        assert await client.exists("renderkit:inflight:vip") == 0
    async with LocalInflightLimiter().hold("k", 1), LocalInflightLimiter().hold("k", 1):
        pass


async def test_a_revocation_reaches_a_follower_at_once_and_only_once(
    client: redis.asyncio.Redis,
) -> None:
    store = RedisRevocationStore(client)
    with _Feed() as feed, anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(store.follow, feed.on_revoked, feed.on_connected)
            await feed.connections.receive()
            assert await store.revoke("lineage", before=3) is True
            assert await store.revoke("lineage", before=2) is False  # thresholds only grow
            assert await store.revoke("other", before=1) is True
            assert await feed.revoked.receive() == ("lineage", 3)
            assert await feed.revoked.receive() == ("other", 1)
            group.cancel_scope.cancel()
    assert await store.load_all() == {"lineage": 3, "other": 1}


async def test_the_revocation_feed_reconnects_and_reloads_after_redis_restarts() -> None:
    require_redis_server()
    with redis_server() as url:
        port = url.rsplit(":", 1)[1].split("/")[0]
    # The server above is stopped; start one on the same port and stop it under the feed.
    server = _start(port)
    client = connect(url, timeout=1)
    store = RedisRevocationStore(client)
    try:
        with _Feed() as feed, anyio.fail_after(20):
            async with anyio.create_task_group() as group:
                group.start_soon(store.follow, feed.on_revoked, feed.on_connected)
                await feed.connections.receive()
                server.kill()
                server.wait()
                server = _start(port)
                await feed.connections.receive()  # reconnected (and the caller reloaded)
                await store.revoke("after restart", before=1)
                assert await feed.revoked.receive() == ("after restart", 1)
                group.cancel_scope.cancel()
    finally:
        server.kill()
        server.wait()
        await client.aclose()


class _Feed:
    """The follower's callbacks, as streams a test can wait on."""

    def __init__(self) -> None:
        self._revoked_in, self.revoked = anyio.create_memory_object_stream[tuple[str, int]](10)
        self._connected_in, self.connections = anyio.create_memory_object_stream[None](10)

    def on_revoked(self, key_id: str, before: int) -> None:
        self._revoked_in.send_nowait((key_id, before))

    async def on_connected(self) -> None:
        await self._connected_in.send(None)

    def __enter__(self) -> _Feed:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for stream in (self._revoked_in, self.revoked, self._connected_in, self.connections):
            stream.close()


def _start(port: str) -> subprocess.Popen[bytes]:
    command = [REDIS_SERVER, "--port", port, "--bind", "127.0.0.1", "--save", ""]
    proc = subprocess.Popen(
        [*command, "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(0.3)  # redis-server listens within milliseconds; the feed retries anyway
    return proc


async def test_revocations_a_redis_restart_lost_are_written_back_by_the_replicas(
    client: redis.asyncio.Redis,
) -> None:
    signer = KeySigner.from_secret("test-secret-that-is-long-enough")
    async with KeyService(signer, RedisRevocationStore(client)) as keys:
        issued = await keys.issue("a@example.com", "starter")
        await keys.regenerate(issued.key)
        await client.flushall()  # what a restart without persistence leaves

        await keys.refresh()

        assert await RedisRevocationStore(client).load_all() == {issued.key_id: 1}
    async with KeyService(signer, RedisRevocationStore(client)) as later_replica:
        with pytest.raises(InvalidKeyError):
            later_replica.verify(issued.key)
