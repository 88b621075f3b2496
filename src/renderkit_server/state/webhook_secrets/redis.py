"""Webhook secrets in one Redis hash, shared by every replica."""

from __future__ import annotations

import redis.asyncio

from renderkit_server.state._redis import redis_errors
from renderkit_server.state.webhook_secrets.base import WebhookSecretEntry, decode, encode

__all__ = ["RedisWebhookSecretStore"]

_WHAT = "webhook secret store"

# Compare-and-set in one step: a rotation racing another must not overwrite it.
_REPLACE = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
"""


class RedisWebhookSecretStore:
    """Entries in one Redis hash (``<prefix>:webhook-secrets``), shared by every replica.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the hash.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:keys") -> None:
        self._client = client
        self._key = f"{prefix}:webhook-secrets"
        self._replace = client.register_script(_REPLACE)

    def __repr__(self) -> str:
        return f"RedisWebhookSecretStore({self._key!r})"

    async def get(self, lineage: str) -> WebhookSecretEntry | None:
        """See :meth:`WebhookSecretStore.get`."""
        with redis_errors(_WHAT):
            value = await self._client.hget(self._key, lineage)
        return None if value is None else decode(_text(value))

    async def create(self, lineage: str, entry: WebhookSecretEntry) -> WebhookSecretEntry:
        """See :meth:`WebhookSecretStore.create`."""
        with redis_errors(_WHAT):
            await self._client.hsetnx(self._key, lineage, encode(entry))
            value = await self._client.hget(self._key, lineage)
        assert value is not None  # never deleted once written
        return decode(_text(value))

    async def replace(
        self, lineage: str, expected: WebhookSecretEntry, entry: WebhookSecretEntry
    ) -> bool:
        """See :meth:`WebhookSecretStore.replace`."""
        with redis_errors(_WHAT):
            done = await self._replace(
                keys=[self._key], args=[lineage, encode(expected), encode(entry)]
            )
        return bool(done)

    async def aclose(self) -> None:
        """The client belongs to its owner."""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
