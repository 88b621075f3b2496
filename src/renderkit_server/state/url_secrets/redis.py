"""URL-signing secrets in one Redis hash, shared by every replica."""

from __future__ import annotations

import redis.asyncio

from renderkit_server.state._redis import redis_errors
from renderkit_server.state.url_secrets.base import UrlSecret, decode, encode

__all__ = ["RedisUrlSecretStore"]


class RedisUrlSecretStore:
    """Entries in one Redis hash (``<prefix>:url-secrets``), shared by every replica.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the hash.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:keys") -> None:
        self._client = client
        self._key = f"{prefix}:url-secrets"

    def __repr__(self) -> str:
        return f"RedisUrlSecretStore({self._key!r})"

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """See :meth:`UrlSecretStore.put`."""
        with redis_errors("URL-signing secret store"):
            await self._client.hset(self._key, public_id, encode(entry))

    async def get(self, public_id: str) -> UrlSecret | None:
        """See :meth:`UrlSecretStore.get`."""
        with redis_errors("URL-signing secret store"):
            value = await self._client.hget(self._key, public_id)
        if value is None:
            return None
        return decode(value.decode() if isinstance(value, bytes) else str(value))

    async def aclose(self) -> None:
        """The client belongs to its owner."""
