"""The render cache on Redis, shared by every replica (see :mod:`.base`).

Each entry is one string, ``renderkit:cache:<key>``, holding the entry's JSON and expiring
with it, so Redis drops stale entries by itself.
"""

from __future__ import annotations

import redis.asyncio

from renderkit_server.state._redis import redis_errors
from renderkit_server.state.render_cache.base import CachedEntry

__all__ = ["RedisRenderCache"]

_WHAT = "render cache"


class RedisRenderCache:
    """See :class:`~renderkit_server.state.render_cache.base.RenderCache`.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the entries.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:cache") -> None:
        self._client = client
        self._prefix = prefix

    def __repr__(self) -> str:
        return f"RedisRenderCache({self._prefix!r})"

    async def get(self, key: str) -> CachedEntry | None:
        """See :meth:`RenderCache.get`."""
        with redis_errors(_WHAT):
            raw: bytes | str | None = await self._client.get(f"{self._prefix}:{key}")
        return None if raw is None else CachedEntry.from_json(raw)

    async def put(self, key: str, entry: CachedEntry, ttl: int) -> None:
        """See :meth:`RenderCache.put`."""
        with redis_errors(_WHAT):
            await self._client.set(f"{self._prefix}:{key}", entry.to_json(), ex=ttl)

    async def aclose(self) -> None:
        """The client belongs to the shared state, which closes it last."""
