"""MCP session ids that carry their negotiated revision and need no server-side table.

A session id is ``<revision>.<random>.<mac>``: HMAC-signed like the API keys
(:mod:`renderkit_server.signing`), so any replica (and the same server after a restart)
recognises it, and it tells the transport which revision the client negotiated (a
2024-11-05 client sends no ``MCP-Protocol-Version`` header, so without it the server could
not know). Only ended sessions are remembered, in an :class:`EndedSessions` store: after a
DELETE the id answers 404, as the transport requires, on every replica sharing the store
(:mod:`renderkit_server.state.mcp_sessions`).
"""

from __future__ import annotations

import secrets

from renderkit_server import signing
from renderkit_server.mcp.protocol import SUPPORTED_VERSIONS
from renderkit_server.state.mcp_sessions.base import EndedSessions
from renderkit_server.state.mcp_sessions.memory import MemoryEndedSessions

__all__ = ["McpSessions"]

_MAC_BYTES = 18


class McpSessions:
    """Mint, check and end session ids.

    Args:
        secret: the MAC key (derived from the server secret for this one purpose).
        ended: where ended sessions are remembered; this process's memory by default.
    """

    #: What the server secret is derived for (see :func:`renderkit_server.signing.current_key`).
    PURPOSE = "renderkit-mcp-sessions"

    def __init__(self, secret: bytes, *, ended: EndedSessions | None = None) -> None:
        self._secret = secret
        self._ended = ended if ended is not None else MemoryEndedSessions()

    @classmethod
    def from_secret(cls, secret: str, *, ended: EndedSessions | None = None) -> McpSessions:
        """Sessions keyed by the server secret's current entry.

        Args:
            secret: ``RENDERKIT_SECRET``.
            ended: where ended sessions are remembered (see :class:`McpSessions`).

        Returns:
            The session registry.
        """
        return cls(signing.current_key(secret, cls.PURPOSE), ended=ended)

    def mint(self, version: str) -> str:
        """A new session id for a client that negotiated ``version``."""
        body = f"{version}.{signing.b64encode(secrets.token_bytes(16))}"
        return f"{body}.{signing.mac(self._secret, body, size=_MAC_BYTES)}"

    async def version(self, session_id: str) -> str | None:
        """The revision of a live session id; None if forged, malformed or ended.

        Raises:
            StorageUnavailableError: the ended-session store could not be reached.
        """
        version = self._signed_version(session_id)
        if version is None or await self._ended.is_ended(session_id):
            return None
        return version

    async def end(self, session_id: str) -> bool:
        """End a live session; False when it was not live (unknown or already ended).

        Raises:
            StorageUnavailableError: the ended-session store could not be reached.
        """
        if self._signed_version(session_id) is None:
            return False
        return await self._ended.end(session_id)

    def _signed_version(self, session_id: str) -> str | None:
        # Signature first: a forged id never costs a store round trip.
        if len(session_id) > 200 or not session_id.isascii():
            return None
        body, _, mac = session_id.rpartition(".")
        version = body.split(".", 1)[0]
        if version not in SUPPORTED_VERSIONS:
            return None
        if not signing.verify(self._secret, body, mac, size=_MAC_BYTES):
            return None
        return version
