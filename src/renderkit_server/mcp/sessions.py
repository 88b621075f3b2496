"""MCP session ids that carry their negotiated revision and need no server-side table.

A session id is ``<revision>.<random>.<mac>``: HMAC-signed like the API keys, so any replica
(and the same server after a restart) recognises it, and it tells the transport which
revision the client negotiated (a 2024-11-05 client sends no ``MCP-Protocol-Version``
header, so without it the server could not know). Only ended sessions are remembered,
in a bounded in-memory set: after a DELETE the id answers 404, as the transport requires.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections import OrderedDict

from renderkit_server.mcp.protocol import SUPPORTED_VERSIONS

__all__ = ["McpSessions"]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class McpSessions:
    """Mint, check and end session ids.

    Args:
        secret: the MAC key (derived from the server secret for this one purpose).
        remember_ended: how many ended sessions to remember (oldest forgotten first).
    """

    def __init__(self, secret: bytes, *, remember_ended: int = 10_000) -> None:
        self._secret = secret
        self._ended: OrderedDict[str, None] = OrderedDict()
        self._remember = remember_ended

    def _mac(self, body: str) -> str:
        return _b64(hmac.new(self._secret, body.encode("ascii"), hashlib.sha256).digest()[:18])

    def mint(self, version: str) -> str:
        """A new session id for a client that negotiated ``version``."""
        body = f"{version}.{_b64(secrets.token_bytes(16))}"
        return f"{body}.{self._mac(body)}"

    def version(self, session_id: str) -> str | None:
        """The revision of a live session id; None if forged, malformed or ended."""
        if len(session_id) > 200 or not session_id.isascii() or session_id in self._ended:
            return None
        body, _, mac = session_id.rpartition(".")
        version = body.split(".", 1)[0]
        if version not in SUPPORTED_VERSIONS:
            return None
        if not hmac.compare_digest(mac.encode("ascii", "replace"), self._mac(body).encode()):
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
