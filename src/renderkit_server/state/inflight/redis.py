"""A key's in-flight cap held over every replica: leases in a Redis sorted set.

Each key has ``renderkit:inflight:<key_id>``, a sorted set of lease ids scored by their
expiry (milliseconds, Redis server time, so replicas' clocks do not matter). One Lua script
drops expired leases and takes a new one if fewer than ``cap`` remain, atomically. A
replica renews its leases while their renders run and removes them at the end; a replica
that dies holding one stops renewing, so its lease expires and is reclaimed by the next
acquire, at most ``lease_seconds`` later.

Over the cap a render waits, polling with backoff, up to the queue timeout and then fails
with :class:`~renderkit.TenantBusyError` (429 TOO_MANY_IN_FLIGHT), as the local scheduler
does.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator

import anyio
import redis.asyncio

from renderkit import RenderkitError, TenantBusyError
from renderkit_server.state._redis import redis_errors

__all__ = ["RedisInflightLimiter"]

logger = logging.getLogger("renderkit_server")

_WHAT = "in-flight lease store"

# KEYS[1] lease set; ARGV: lease id, cap, lease milliseconds. 1 if granted, 0 if full.
_ACQUIRE = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
    return 0
end
redis.call('ZADD', KEYS[1], now_ms + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""

# KEYS[1] lease set; ARGV: lease id, lease milliseconds. Re-adds a lease reclaimed while
# this replica stalled: its render is still running, so it must count.
_RENEW = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local added = redis.call('ZADD', KEYS[1], now_ms + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return added
"""


class RedisInflightLimiter:
    """See :class:`~renderkit_server.state.inflight.base.InflightLimiter`; exact across replicas.

    Args:
        client: the Redis client; its owner closes it.
        queue_timeout: seconds a render waits for a lease before 429.
        lease_seconds: how long a lease lives without renewal: how soon a dead replica's
            leases are reclaimed. Renewed every third of it.
        prefix: namespace of the lease sets.
    """

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        queue_timeout: float,
        lease_seconds: float = 30.0,
        prefix: str = "renderkit:inflight",
    ) -> None:
        self._client = client
        self._queue_timeout = queue_timeout
        self._lease_ms = max(1, round(lease_seconds * 1000))
        self._prefix = prefix
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)

    def __repr__(self) -> str:
        return f"RedisInflightLimiter(prefix={self._prefix!r})"

    @contextlib.asynccontextmanager
    async def hold(self, key_id: str, cap: int | None) -> AsyncIterator[None]:
        """See :meth:`InflightLimiter.hold`."""
        if cap is None:
            yield
            return
        key = f"{self._prefix}:{key_id}"
        lease = secrets.token_hex(12)
        await self._wait_for_lease(key, lease, cap)
        failure: Exception | None = None
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._keep_renewed, key, lease)
                try:
                    yield
                except Exception as exc:
                    # Raised again below, outside the task group, which would otherwise
                    # wrap the render's own error in an ExceptionGroup.
                    failure = exc
                finally:
                    group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self._release(key, lease)
        if failure is not None:
            raise failure

    async def _wait_for_lease(self, key: str, lease: str, cap: int) -> None:
        deadline = time.monotonic() + self._queue_timeout
        pause = 0.05
        while True:
            with redis_errors(_WHAT):
                granted = await self._acquire(keys=[key], args=[lease, cap, self._lease_ms])
            if granted:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                msg = (
                    f"this key already has its {cap} renders in flight across the service; "
                    "wait for one to finish"
                )
                raise TenantBusyError(msg, retry_after=1.0)
            # Backoff keeps a queue of waiting renders from hammering Redis.
            await anyio.sleep(min(pause, left))
            pause = min(pause * 2, 0.5)

    async def _keep_renewed(self, key: str, lease: str) -> None:
        while True:
            await anyio.sleep(self._lease_ms / 3000)
            try:
                with redis_errors(_WHAT):
                    if await self._renew(keys=[key], args=[lease, self._lease_ms]):
                        logger.warning("an in-flight lease had expired while its render ran")
            except RenderkitError:
                # The render goes on; the lease may lapse and the cap be exceeded briefly.
                logger.warning("could not renew an in-flight lease", exc_info=True)

    async def _release(self, key: str, lease: str) -> None:
        try:
            with redis_errors(_WHAT):
                await self._client.zrem(key, lease)
        except RenderkitError:
            # Not fatal: the lease expires on its own within lease_seconds.
            logger.warning("could not release an in-flight lease", exc_info=True)

    async def aclose(self) -> None:
        """Nothing to release: the client belongs to the caller."""
