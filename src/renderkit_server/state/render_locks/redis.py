"""A :class:`~renderkit_server.state.render_locks.base.RenderLocks` on Redis, shared by
every replica.

Each lock is one key, ``renderkit:lock:<name>``, set with ``SET NX PX`` to a random token:
Redis expires it by itself if its holder dies. Releasing compares the token in a script, so
a holder whose lock expired cannot free the next holder's.
"""

from __future__ import annotations

import asyncio
import math
import time
import uuid

import redis.asyncio

from renderkit_server.state._redis import redis_errors
from renderkit_server.state.render_locks.base import POLL_SECONDS

__all__ = ["RedisRenderLocks"]

_WHAT = "render lock store"

# KEYS[1] lock; ARGV[1] token. Delete only the caller's own lock.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisRenderLocks:
    """Locks as expiring Redis keys.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the lock keys.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:lock") -> None:
        self._client = client
        self._prefix = prefix
        self._release = client.register_script(_RELEASE)

    def __repr__(self) -> str:
        return f"RedisRenderLocks(prefix={self._prefix!r})"

    async def acquire(self, name: str, seconds: float) -> str | None:
        """See :meth:`RenderLocks.acquire`."""
        token = uuid.uuid4().hex
        millis = max(math.ceil(seconds * 1000), 1)
        with redis_errors(_WHAT):
            taken = await self._client.set(f"{self._prefix}:{name}", token, nx=True, px=millis)
        return token if taken else None

    async def release(self, name: str, token: str) -> None:
        """See :meth:`RenderLocks.release`."""
        with redis_errors(_WHAT):
            await self._release(keys=[f"{self._prefix}:{name}"], args=[token])

    async def wait(self, name: str, timeout: float) -> None:
        """See :meth:`RenderLocks.wait`; looks every :data:`POLL_SECONDS`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with redis_errors(_WHAT):
                if not await self._client.exists(f"{self._prefix}:{name}"):
                    return
            await asyncio.sleep(POLL_SECONDS)

    async def aclose(self) -> None:
        """Nothing of its own to close: the client belongs to the caller."""
