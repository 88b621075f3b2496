"""DNS-rebinding protection for the MCP endpoint: which Host and Origin headers it answers.

A web page can point a name it controls at 127.0.0.1 and then post to a local MCP server
from the victim's browser. The transport therefore answers only a Host it serves (loopback,
the host of ``public_url``, or one in ``mcp_allowed_hosts``), and a browser's Origin must
name one of those hosts or be a configured CORS origin. Clients that are not browsers send
no Origin and have nothing to rebind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from renderkit_server.mcp.protocol import INVALID_REQUEST, RpcError
from renderkit_server.settings import Settings

__all__ = ["allowed_hosts", "check_origin", "host_allowed"]

_LOOPBACK = ("localhost", "127.0.0.1", "[::1]", "::1")


def host_allowed(host: str, allowed: Iterable[str]) -> bool:
    """Whether a ``Host`` value (``name`` or ``name:port``) is served.

    Loopback names are always served. An entry ``*`` allows any host, an entry with a port
    only that port, an entry without one every port of the name.
    """
    host = host.strip().lower()
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name.startswith("[") and "]" in name:
        name = name[: name.index("]") + 1]
    if name in _LOOPBACK:
        return True
    for entry in allowed:
        if entry == "*" or entry == host or (":" not in entry.strip("[]") and entry == name):
            return True
    return False


def allowed_hosts(settings: Settings) -> list[str]:
    """The configured hosts besides loopback: ``mcp_allowed_hosts`` and ``public_url``'s."""
    hosts = [h.lower() for h in settings.mcp_allowed_hosts]
    if settings.public_url:
        netloc = urlsplit(settings.public_url).netloc.lower()
        if netloc:
            hosts.append(netloc)
    return hosts


def check_origin(headers: Mapping[str, str], settings: Settings) -> None:
    """Refuse a request whose Host is not served, or whose browser Origin is not allowed.

    Raises:
        RpcError: -32600 with HTTP 403, naming the refused Host or Origin.
    """
    allowed = allowed_hosts(settings)
    host = headers.get("host", "")
    if not host_allowed(host, allowed):
        raise RpcError(
            INVALID_REQUEST,
            f"host {host[:100]!r} is not served here (set RENDERKIT_MCP_ALLOWED_HOSTS)",
            http_status=403,
        )
    origin = headers.get("origin")
    if origin is None:
        return  # not a browser: nothing to rebind
    if origin in settings.cors_origins:
        return
    parts = urlsplit(origin)
    if parts.scheme in ("http", "https") and host_allowed(parts.netloc, allowed):
        return
    raise RpcError(INVALID_REQUEST, f"origin {origin[:100]!r} is not allowed", http_status=403)
