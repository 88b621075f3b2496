"""Which addresses a browser rendering untrusted input may reach.

The default policy allows only public http(s) addresses: anything that resolves to a private,
loopback, link-local (cloud metadata lives there), multicast, reserved or unspecified address
is refused, in IPv4 and IPv6 (including every IPv6 spelling that embeds an IPv4 address:
mapped, translated, compatible, 6to4, Teredo and NAT64).
Operators can allow private targets for development and tests.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
from urllib.parse import urlsplit

import attrs

from renderkit.core.errors import BlockedUrlError

__all__ = ["IPAddress", "UrlPolicy", "is_public_address"]

#: An IPv4 or IPv6 address.
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Names the switch: without it a developer pointing at localhost cannot tell what to change.
_PRIVATE_REFUSED = (
    "private addresses are not allowed "
    "(BrowserConfig.allow_private_network permits them, for development)"
)
_METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata", "instance-data"})
# IPv6 ranges whose last 32 bits are an IPv4 address a host or translator may reach:
# NAT64's well-known prefix (RFC 6052), IPv4-translated (::ffff:0:0:0/96, RFC 2765) and the
# deprecated IPv4-compatible form (::/96; Python calls ::7f00:1 global).
_EMBEDS_V4_LOW = (
    ipaddress.ip_network("64:ff9b::/96"),
    ipaddress.ip_network("::ffff:0:0:0/96"),
    ipaddress.ip_network("::/96"),
)
# NAT64's local-use prefix (RFC 8215): the IPv4 address sits where the operator chose, and
# the range is never public.
_LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")
# Not "private" by the RFC 1918 definition, yet never public: carrier-grade NAT and the
# benchmarking range.
_NON_PUBLIC_V4 = (ipaddress.ip_network("100.64.0.0/10"), ipaddress.ip_network("198.18.0.0/15"))


def is_public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """True when ``address`` is routable on the public internet."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in _LOCAL_NAT64:
            return False
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and any(address in net for net in _EMBEDS_V4_LOW):
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is None and address.teredo:
            embedded = address.teredo[1]
        if embedded is not None and not is_public_address(embedded):
            return False
    if isinstance(address, ipaddress.IPv4Address) and any(address in net for net in _NON_PUBLIC_V4):
        return False
    return address.is_global and not address.is_multicast


def _literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    # Browsers accept legacy IPv4 spellings (2130706433, 0x7f000001, 0177.0.0.1, 127.1);
    # inet_aton parses exactly those forms.
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


@attrs.frozen(kw_only=True, cache_hash=False, slots=False)
class UrlPolicy:
    """Decides whether the browser may fetch a URL.

    Attributes:
        allow_private: allow private, loopback and link-local targets (development only).
        resolve_timeout: seconds allowed for resolving a hostname.
    """

    allow_private: bool = False
    resolve_timeout: float = 5.0
    allow_networks: tuple[str, ...] = ()
    """CIDR ranges allowed even though they are not public (an operator's internal host)."""

    @functools.cached_property
    def _allowed(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        return tuple(ipaddress.ip_network(n, strict=False) for n in self.allow_networks)

    def _permitted(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return is_public_address(address) or any(address in net for net in self._allowed)

    async def check(self, url: str, *, field: str | None = "url") -> None:
        """Return if ``url`` may be fetched.

        Args:
            url: the URL.
            field: the request field the URL came from, named by the error (the page's
                ``url`` unless told).

        Raises:
            BlockedUrlError: a non-http(s) scheme, or a host that is (or resolves to) a
                non-public address, or that does not resolve.
        """
        await self._vet(url, field, pin=False)

    async def resolve(self, url: str, *, field: str | None = "url") -> tuple[IPAddress, ...]:
        """The addresses of ``url``'s host that may be reached, for a caller connecting itself.

        Connect to one of these, never to a fresh resolution of the name: a second lookup
        may answer differently (DNS rebinding). Only http(s) URLs have addresses.

        Raises:
            BlockedUrlError: as :meth:`check`, and for ``data:``, ``blob:`` or ``about:``.
        """
        return await self._vet(url, field, pin=True)

    async def _vet(self, url: str, field: str | None, *, pin: bool) -> tuple[IPAddress, ...]:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") and not pin:
            return ()
        if parts.scheme not in ("http", "https"):
            msg = f"the {parts.scheme or 'empty'} scheme is not allowed"
            raise BlockedUrlError(msg, url=url, field=field)
        host = (parts.hostname or "").rstrip(".").lower()
        if not host:
            msg = "the URL has no host"
            raise BlockedUrlError(msg, url=url, field=field)
        if self.allow_private and not pin:
            return ()
        if not self.allow_private and (
            host in _METADATA_HOSTS or host == "localhost" or host.endswith(".localhost")
        ):
            msg = _PRIVATE_REFUSED
            raise BlockedUrlError(msg, url=url, field=field, private=True)
        literal = _literal_address(host)
        if literal is not None:
            addresses = [literal]
        else:
            addresses = await self._resolve(host, url, field)
        if not self.allow_private and not all(self._permitted(a) for a in addresses):
            msg = _PRIVATE_REFUSED
            raise BlockedUrlError(msg, url=url, field=field, private=True)
        return tuple(addresses)

    async def _resolve(self, host: str, url: str, field: str | None) -> list[IPAddress]:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.resolve_timeout):
                infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (OSError, TimeoutError) as exc:
            msg = "the host could not be resolved"
            raise BlockedUrlError(msg, url=url, field=field) from exc
        # The address is a str for the INET families getaddrinfo answers with here; the
        # "%zone" suffix of a scoped IPv6 address is not part of the address.
        return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
