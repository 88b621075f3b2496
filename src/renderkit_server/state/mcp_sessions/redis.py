"""Ended MCP sessions on Redis, so a session ended on one replica is refused by all.

One key per ended session, ``renderkit:mcp:ended:<sha256 of the id>`` (the id itself is a
bearer credential of sorts, so it is not stored), set with ``SET NX EX``: the NX makes
ending atomic across replicas and the expiry bounds what is remembered.
"""

from __future__ import annotations

import hashlib

import redis.asyncio

from renderkit_server.state._redis import redis_errors
from renderkit_server.state.mcp_sessions.base import REMEMBER_ENDED_FOR

__all__ = ["RedisEndedSessions"]

_WHAT = "MCP session store"


class RedisEndedSessions:
    """See :class:`~renderkit_server.state.mcp_sessions.base.EndedSessions`.

    Args:
        client: the Redis client; its owner closes it.
        prefix: namespace of the keys.
        remember_for: seconds each ended session is remembered.
    """

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        prefix: str = "renderkit:mcp",
        remember_for: int = REMEMBER_ENDED_FOR,
    ) -> None:
        self._client = client
        self._prefix = f"{prefix}:ended"
        self._remember_for = remember_for

    def _key(self, session_id: str) -> str:
        return f"{self._prefix}:{hashlib.sha256(session_id.encode()).hexdigest()}"

    async def is_ended(self, session_id: str) -> bool:
        """See :meth:`EndedSessions.is_ended`."""
        with redis_errors(_WHAT):
            return bool(await self._client.exists(self._key(session_id)))

    async def end(self, session_id: str) -> bool:
        """See :meth:`EndedSessions.end`."""
        with redis_errors(_WHAT):
            created = await self._client.set(
                self._key(session_id), b"1", nx=True, ex=self._remember_for
            )
        return bool(created)
