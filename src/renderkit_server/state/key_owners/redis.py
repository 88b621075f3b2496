"""Key owners in one Redis hash, shared by every replica."""

from __future__ import annotations

import redis.asyncio

from renderkit_server.state._redis import RedisTextMap

__all__ = ["RedisKeyOwnerStore"]


class RedisKeyOwnerStore(RedisTextMap):
    """Entries in one Redis hash (``<prefix>:owners``), shared by every replica; ``put``,
    ``get``, ``delete`` and ``aclose`` as :class:`KeyOwnerStore` says.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the hash.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:keys") -> None:
        super().__init__(client, f"{prefix}:owners", what="key owner store")

    def __repr__(self) -> str:
        return f"RedisKeyOwnerStore({self.key!r})"
