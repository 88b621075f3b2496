"""URL-signing secrets in one Redis hash, shared by every replica."""

from __future__ import annotations

import redis.asyncio

from renderkit_server.state._redis import RedisTextMap
from renderkit_server.state.url_secrets.base import UrlSecret, decode, encode

__all__ = ["RedisUrlSecretStore"]


class RedisUrlSecretStore:
    """Entries in one Redis hash (``<prefix>:url-secrets``), shared by every replica.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the hash.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:keys") -> None:
        self._map = RedisTextMap(client, f"{prefix}:url-secrets", what="URL-signing secret store")

    def __repr__(self) -> str:
        return f"RedisUrlSecretStore({self._map.key!r})"

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """See :meth:`UrlSecretStore.put`."""
        await self._map.put(public_id, encode(entry))

    async def get(self, public_id: str) -> UrlSecret | None:
        """See :meth:`UrlSecretStore.get`."""
        value = await self._map.get(public_id)
        return None if value is None else decode(value)

    async def aclose(self) -> None:
        """The client belongs to its owner."""
