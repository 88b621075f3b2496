"""Key revocations on Redis: one hash shared by every replica, and a channel announcing
each revocation so every replica applies it at once.

Key layout (the prefix is configurable):

* ``renderkit:keys:revoked``: a hash of ``key_id -> before``; it never expires, like the
  keys it revokes.
* ``renderkit:keys:revoked``, the channel: ``"<key_id> <before>"`` published by the same
  script that raised the threshold, so nothing is announced that was not stored.

A subscriber that was disconnected cannot know what it missed, so each (re)connection is
followed by a full reload (:class:`~renderkit_server.state.revocations.base.RevocationFeed`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

import anyio
import redis.asyncio
import redis.exceptions

from renderkit import RenderkitError
from renderkit_server.state._redis import redis_errors

__all__ = ["RedisRevocationStore"]

logger = logging.getLogger("renderkit_server")

_WHAT = "key revocation store"

# KEYS[1] hash (also the channel name); ARGV: key_id, before. Compare-and-set, then announce.
_REVOKE = """
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if current >= tonumber(ARGV[2]) then
    return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PUBLISH', KEYS[1], ARGV[1] .. ' ' .. ARGV[2])
return 1
"""

# Pauses between reconnection attempts of the subscriber, in seconds (the last repeats).
_BACKOFF = (0.1, 0.2, 0.5, 1.0)


_CLOSE_SECONDS = 5.0


class RedisRevocationStore:
    """Revocation thresholds in a Redis hash, announced on a channel.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the hash and channel.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:keys") -> None:
        self._client = client
        self._key = f"{prefix}:revoked"
        self._revoke = client.register_script(_REVOKE)

    def __repr__(self) -> str:
        return f"RedisRevocationStore({self._key!r})"

    async def revoke(self, key_id: str, *, before: int) -> bool:
        """See :meth:`RevocationStore.revoke`; the revocation is published to every replica."""
        with redis_errors(_WHAT):
            raised = await self._revoke(keys=[self._key], args=[key_id, before])
        return bool(raised)

    async def load_all(self) -> dict[str, int]:
        """See :meth:`RevocationStore.load_all`."""
        with redis_errors(_WHAT):
            raw: dict[Any, Any] = await self._client.hgetall(self._key)
        return {_text(key_id): int(before) for key_id, before in raw.items()}

    async def follow(
        self,
        on_revoked: Callable[[str, int], None],
        on_connected: Callable[[], Awaitable[None]],
    ) -> NoReturn:
        """See :meth:`RevocationFeed.follow`."""
        failures = 0
        while True:
            try:
                await self._listen(on_revoked, on_connected)
            except (redis.exceptions.RedisError, RenderkitError, OSError) as exc:
                # Redis restarting or unreachable: keep the last known table, try again.
                logger.warning("key revocation feed lost (%s); reconnecting", type(exc).__name__)
            await anyio.sleep(_BACKOFF[min(failures, len(_BACKOFF) - 1)])
            failures += 1

    async def _listen(
        self,
        on_revoked: Callable[[str, int], None],
        on_connected: Callable[[], Awaitable[None]],
    ) -> None:
        pubsub = self._client.pubsub(ignore_subscribe_messages=True)
        reconnects = _Reconnects()
        try:
            with redis_errors(_WHAT):
                await pubsub.subscribe(self._key)
            # The client retries a broken connection once, and a pub/sub connection then
            # subscribes again by itself: the feed would never hear of the outage, and
            # revocations announced during it would wait for the next periodic reload.
            connection: Any = pubsub.connection  # typed None by redis-py until subscribed
            connection.register_connect_callback(reconnects.seen)
            await on_connected()
            heard = reconnects.count
            while True:
                if reconnects.count != heard:
                    heard = reconnects.count
                    await on_connected()  # reconnected under the feed: reload what was missed
                # A bounded wait rather than listen(): that would hit the client's socket
                # timeout on a quiet channel and look like a failure. redis_errors raises a
                # cancellation the wait swallowed (its own timeout racing the shutdown's
                # cancel): this loop would otherwise poll for ever and hang the shutdown.
                with redis_errors(_WHAT):
                    message = await pubsub.get_message(timeout=1.0)
                if message is None or message.get("type") != "message":
                    continue
                key_id, _, before = _text(message["data"]).rpartition(" ")
                if before.isdigit():
                    on_revoked(key_id, int(before))
        finally:
            subscribed: Any = pubsub.connection
            if subscribed is not None:
                subscribed.deregister_connect_callback(reconnects.seen)
            # Shielded so a cancelled feed still returns its connection, bounded so a
            # server that stopped answering cannot hold the shutdown.
            with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_SECONDS):
                await pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves it untyped

    async def aclose(self) -> None:
        """Nothing to release: the client belongs to the caller."""


class _Reconnects:
    """Counts the connections a pub/sub connection made after its first (redis-py keeps
    connect callbacks as weak methods, so this is an object the feed holds)."""

    def __init__(self) -> None:
        self.count = 0

    def seen(self, connection: object) -> None:
        """A connect callback: the connection was (re)established."""
        self.count += 1


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
