"""Key owners in one Redis hash, shared by every replica."""

from __future__ import annotations

import redis.asyncio

from renderkit_server.state._redis import redis_errors

__all__ = ["RedisKeyOwnerStore"]


class RedisKeyOwnerStore:
    """Entries in one Redis hash (``<prefix>:owners``), shared by every replica.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the hash.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:keys") -> None:
        self._client = client
        self._key = f"{prefix}:owners"

    def __repr__(self) -> str:
        return f"RedisKeyOwnerStore({self._key!r})"

    async def put(self, key_id: str, email: str) -> None:
        """See :meth:`KeyOwnerStore.put`."""
        with redis_errors("key owner store"):
            await self._client.hset(self._key, key_id, email)

    async def get(self, key_id: str) -> str | None:
        """See :meth:`KeyOwnerStore.get`."""
        with redis_errors("key owner store"):
            value = await self._client.hget(self._key, key_id)
        if value is None:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)

    async def delete(self, key_id: str) -> None:
        """See :meth:`KeyOwnerStore.delete`."""
        with redis_errors("key owner store"):
            await self._client.hdel(self._key, key_id)

    async def aclose(self) -> None:
        """The client belongs to its owner."""
