"""The client address of a request, for per-address abuse limits.

The server never believes a header by default: the address is the TCP peer (uvicorn runs
with ``proxy_headers=False``, see :mod:`renderkit_server.main`). Only when the peer is one
of the operator's trusted proxies is ``X-Forwarded-For`` read, and then from the right:
each proxy appends the address it received the request from, so the right-most entries
were written by proxies the operator runs and everything left of the first untrusted hop
was written by the client, who can put anything there. The walk skips trusted hops and
takes the first untrusted one; a malformed entry stops it and the last trusted hop is used,
so a garbled header can never make two clients share, or one client rotate, an address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import Any

from litestar.connection import ASGIConnection

from renderkit import ConfigurationError

__all__ = ["PRIVATE_NETWORKS", "TrustedProxies", "client_address", "request_client_address"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

#: What the deprecated ``RENDERKIT_TRUST_FORWARDED_FOR=true`` trusts: loopback and the
#: private ranges, where a reverse proxy run by the operator usually sits.
PRIVATE_NETWORKS: tuple[str, ...] = (
    "127.0.0.0/8",
    "::1/128",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "fc00::/7",
)


class TrustedProxies:
    """The networks whose ``X-Forwarded-For`` entries are believed.

    Args:
        networks: CIDRs or single addresses, e.g. ``("10.0.0.0/8", "192.0.2.7")``.

    Raises:
        ConfigurationError: an entry is not an address or network.
    """

    def __init__(self, networks: Iterable[str] = ()) -> None:
        parsed: list[Network] = []
        for network in networks:
            try:
                parsed.append(ipaddress.ip_network(network.strip(), strict=False))
            except ValueError:
                msg = f"trusted proxy {network[:50]!r} is not an IP address or CIDR network"
                raise ConfigurationError(msg) from None
        self._networks = tuple(parsed)

    def __bool__(self) -> bool:
        return bool(self._networks)

    def __repr__(self) -> str:
        return f"TrustedProxies({[str(n) for n in self._networks]!r})"

    def trusts(self, address: Address) -> bool:
        """Whether ``address`` is one of the trusted proxies."""
        return any(address in network for network in self._networks)


def _parse(value: str) -> Address | None:
    value = value.strip()
    # "[2001:db8::1]:443" and "192.0.2.1:443" carry ports some proxies append.
    if value.startswith("["):
        value = value[1 : value.find("]")] if "]" in value else ""
    elif value.count(":") == 1:
        value = value.partition(":")[0]
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # a dual-stack socket's view of an IPv4 client
    return address


def client_address(peer: str | None, forwarded_for: Sequence[str], trusted: TrustedProxies) -> str:
    """Return the address a request came from.

    Args:
        peer: the TCP peer's host (``request.client.host``), ``None`` when unknown.
        forwarded_for: every ``X-Forwarded-For`` header value, in the order received.
        trusted: the proxies whose headers are believed.

    Returns:
        The peer when it is not a trusted proxy; otherwise the right-most untrusted
        ``X-Forwarded-For`` hop, or the last trusted hop when the header has no untrusted
        entry or a malformed one. ``"unknown"`` without a peer.
    """
    if not peer:
        return "unknown"
    current = _parse(peer)
    if current is None or not trusted.trusts(current):
        return peer if current is None else str(current)
    # Several headers are one list joined in order (RFC 9110, section 5.3).
    hops = [hop for value in forwarded_for for hop in value.split(",")]
    for hop in reversed(hops):
        parsed = _parse(hop)
        if parsed is None:
            break
        current = parsed
        if not trusted.trusts(current):
            break
    return str(current)


def request_client_address(
    connection: ASGIConnection[Any, Any, Any, Any], trusted: TrustedProxies
) -> str:
    """:func:`client_address` of a Litestar request (every ``X-Forwarded-For`` header)."""
    peer = connection.client.host if connection.client else None
    return client_address(peer, connection.headers.getall("x-forwarded-for", []), trusted)
