"""MCP session ids that carry their negotiated revision and need no server-side table.

A session id is ``<revision>.<random>.<mac>``: HMAC-signed like the API keys
(:mod:`renderkit_server.signing`), so any replica (and the same server after a restart)
recognises it, and it tells the transport which revision the client negotiated (a
2024-11-05 client sends no ``MCP-Protocol-Version`` header, so without it the server could
not know). Only ended sessions are remembered, in a bounded in-memory set: after a DELETE
the id answers 404, as the transport requires.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict

from renderkit_server import signing
from renderkit_server.mcp.protocol import SUPPORTED_VERSIONS

__all__ = ["McpSessions"]

_MAC_BYTES = 18


class McpSessions:
    """Mint, check and end session ids.

    Args:
        secret: the MAC key (derived from the server secret for this one purpose).
        remember_ended: how many ended sessions to remember (oldest forgotten first).
    """

    #: What the server secret is derived for (see :func:`renderkit_server.signing.current_key`).
    PURPOSE = "renderkit-mcp-sessions"

    def __init__(self, secret: bytes, *, remember_ended: int = 10_000) -> None:
        self._secret = secret
        self._ended: OrderedDict[str, None] = OrderedDict()
        self._remember = remember_ended

    @classmethod
    def from_secret(cls, secret: str) -> McpSessions:
        """Sessions keyed by the server secret's current entry.

        Args:
            secret: ``RENDERKIT_SECRET``.

        Returns:
            The session registry.
        """
        return cls(signing.current_key(secret, cls.PURPOSE))

    def mint(self, version: str) -> str:
        """A new session id for a client that negotiated ``version``."""
        body = f"{version}.{signing.b64encode(secrets.token_bytes(16))}"
        return f"{body}.{signing.mac(self._secret, body, size=_MAC_BYTES)}"

    def version(self, session_id: str) -> str | None:
        """The revision of a live session id; None if forged, malformed or ended."""
        if len(session_id) > 200 or not session_id.isascii() or session_id in self._ended:
            return None
        body, _, mac = session_id.rpartition(".")
        version = body.split(".", 1)[0]
        if version not in SUPPORTED_VERSIONS:
            return None
        if not signing.verify(self._secret, body, mac, size=_MAC_BYTES):
            return None
        return version

    def end(self, session_id: str) -> bool:
        """End a live session; False when it was not live (unknown or already ended)."""
        if self.version(session_id) is None:
            return False
        self._ended[session_id] = None
        while len(self._ended) > self._remember:
            self._ended.popitem(last=False)
        return True
