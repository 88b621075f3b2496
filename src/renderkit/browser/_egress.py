"""An egress proxy that enforces the network policy on everything Chromium fetches.

Request interception sees a request's first hop only: Chromium follows redirects inside its
network stack, and resolves hostnames itself after any check we make (DNS rebinding). So a
locally launched Chromium sends all traffic through this small forward proxy instead, which
resolves each host once, refuses non-public addresses, and connects to the very address it
checked. HTTPS goes through ``CONNECT`` tunnels; plain HTTP requests are forwarded one per
connection (``Connection: close``), so every request, redirects included, is checked.

A browser context's door remembers the addresses it vetted, per host, for as long as the
context lives (one capture): its later connections to a host go to the address vetted first,
with no lookup of their own, as Chromium's per-context host cache would without a proxy.
Nothing is remembered across contexts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Sequence
from urllib.parse import urlsplit

from renderkit.core.errors import BlockedUrlError
from renderkit.core.netpolicy import IPAddress, UrlPolicy
from renderkit.core.waits import cancel_and_wait

__all__ = ["BLOCKED_HEADER", "EgressDoor", "EgressProxy"]

logger = logging.getLogger("renderkit.browser")

_HEADER_LIMIT = 64 * 1024
_CONNECT_TIMEOUT = 10.0
_BLOCKED_BODY = b"renderkit: this address is not allowed\n"
#: The header (lower case, as Playwright names headers) marking the proxy's refusals.
BLOCKED_HEADER = "x-renderkit-blocked"


#: (monotonic time, host) of recently refused destinations, newest last.
Refusals = deque[tuple[float, str]]


#: The address a door's context connects to, by host name (lower case): vetted once.
Vetted = dict[str, str]


def _refusals() -> Refusals:
    return deque(maxlen=256)


def _since(refused: Refusals, moment: float) -> list[str]:
    return [host for at, host in refused if at >= moment]


class EgressDoor:
    """One browser context's own listener on the proxy: what the proxy refused through it
    was asked for by that context's pages alone.

    Contexts of different callers share a browser, and so its proxy. A refusal noted per
    browser would name one caller's refused host in another's warning or error; a context
    sent to a door of its own (Chromium takes a proxy per context) keeps them apart.
    """

    def __init__(
        self, server: asyncio.Server, refused: Refusals, vetted: Vetted, doors: set[EgressDoor]
    ) -> None:
        self._server = server
        self._refused = refused
        self._vetted = vetted
        self._doors = doors
        doors.add(self)
        self.port: int = server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``, for the context's ``proxy`` option."""
        return f"http://127.0.0.1:{self.port}"

    def refused_since(self, moment: float) -> list[str]:
        """Hosts refused through this door at or after ``moment`` (``time.monotonic()``)."""
        return _since(self._refused, moment)

    def remember(self, url: str, addresses: Sequence[IPAddress]) -> None:
        """Connect this context to ``url``'s host at ``addresses[0]``, without a lookup.

        ``addresses`` must be what the proxy's policy answered for ``url`` just now
        (:meth:`UrlPolicy.resolve`, every address vetted): the capture that checked its URL
        before taking the context then has its page's host looked up once, not twice.
        """
        host = urlsplit(url).hostname
        if host and addresses:
            self._vetted[host.rstrip(".")] = str(addresses[0])

    def close(self) -> None:
        """Stop listening (connections still open end with their context)."""
        self._server.close()
        self._doors.discard(self)


class EgressProxy:
    """A policy-enforcing HTTP forward proxy on 127.0.0.1 for one browser."""

    def __init__(self, policy: UrlPolicy) -> None:
        self.policy = policy
        self.port = 0
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._doors: set[EgressDoor] = set()
        #: Refusals of the browser's own traffic, no context's (``--proxy-server``).
        self.refused: Refusals = _refusals()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``, for Chromium's ``--proxy-server``."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Listen on an ephemeral loopback port."""
        self._server = await self._listen(self.refused, None)
        self.port = self._server.sockets[0].getsockname()[1]

    async def door(self) -> EgressDoor:
        """A listener of its own for one browser context; :meth:`EgressDoor.close` it with
        the context (:meth:`aclose` closes the ones left)."""
        refused, vetted = _refusals(), Vetted()
        return EgressDoor(await self._listen(refused, vetted), refused, vetted, self._doors)

    async def _listen(self, refused: Refusals, vetted: Vetted | None) -> asyncio.Server:
        return await asyncio.start_server(
            lambda reader, writer: self._handle(reader, writer, refused, vetted), "127.0.0.1", 0
        )

    async def aclose(self) -> None:
        """Stop listening and drop open tunnels."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for door in list(self._doors):
            door.close()
        await cancel_and_wait(*self._connections)
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()
        if server is not None:
            with contextlib.suppress(Exception):
                await server.wait_closed()

    async def _handle(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        refused: Refusals,
        vetted: Vetted | None,
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        self._writers.add(writer)
        try:
            await self._serve(reader, writer, refused, vetted)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            # Only aclose cancels a connection. Python 3.11's start_server logs a handler
            # that ends cancelled as "Exception in callback" (its done-callback asks a
            # cancelled task for its exception), so a closing proxy's handlers end normally.
            if self._server is not None:
                raise
        finally:
            self._connections.discard(task)
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _serve(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        refused: Refusals,
        vetted: Vetted | None,
    ) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > _HEADER_LIMIT:
            return
        request_line, _, rest = head.partition(b"\r\n")
        try:
            method, target, version = request_line.decode("latin-1").split(" ", 2)
        except ValueError:
            return
        if method == "CONNECT":
            host, _, port_text = target.rpartition(":")
            port = int(port_text) if port_text.isdigit() else 443
            url = f"https://{target}/"
        else:
            parts = urlsplit(target)
            if parts.scheme != "http" or not parts.hostname:
                await _refuse(writer)
                return
            host, port = parts.hostname, parts.port or 80
            url = target
        address = await self._check(host.strip("[]"), url, refused, vetted)
        if address is None:
            await _refuse(writer)
            return
        try:
            async with asyncio.timeout(_CONNECT_TIMEOUT):
                up_reader, up_writer = await asyncio.open_connection(address, port)
        except (OSError, TimeoutError):
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            return
        try:
            if method == "CONNECT":
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await writer.drain()
            else:
                up_writer.write(_origin_form(method, target, version, rest))
                await up_writer.drain()
            await _pipe_both(reader, writer, up_reader, up_writer)
        finally:
            up_writer.close()
            with contextlib.suppress(Exception):
                await up_writer.wait_closed()

    async def _check(
        self, host: str, url: str, refused: Refusals, vetted: Vetted | None
    ) -> str | None:
        """The address to connect to, or None when the destination is refused.

        ``vetted``: a door's addresses vetted before (None: the browser's own listener,
        which remembers nothing).
        """
        key = host.lower().rstrip(".")
        if vetted is not None and key in vetted:
            return vetted[key]
        # One resolution, every address of it vetted, and the connection made to one of
        # them, never to a fresh lookup (DNS rebinding); an IP literal is not looked up.
        try:
            addresses = await self.policy.resolve(url)
        except BlockedUrlError:
            refused.append((time.monotonic(), host))
            logger.info("egress proxy refused a destination")
            return None
        if vetted is not None:
            vetted[key] = str(addresses[0])
        return str(addresses[0])


def _origin_form(method: str, target: str, version: str, rest: bytes) -> bytes:
    parts = urlsplit(target)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    kept = [
        line
        for line in rest.split(b"\r\n")
        if line
        and line.split(b":", 1)[0].strip().lower()
        not in (b"proxy-connection", b"connection", b"keep-alive", b"proxy-authorization")
    ]
    lines = [f"{method} {path} {version.strip()}".encode("latin-1"), *kept, b"Connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n"


async def _refuse(writer: asyncio.StreamWriter) -> None:
    writer.write(
        b"HTTP/1.1 403 Forbidden\r\nX-Renderkit-Blocked: 1\r\nContent-Type: text/plain\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_BLOCKED_BODY), _BLOCKED_BODY)
    )
    await writer.drain()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    finally:
        with contextlib.suppress(Exception):
            writer.write_eof()


async def _pipe_both(
    client_reader: asyncio.StreamReader,
    client_writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    upstream = asyncio.ensure_future(_pipe(client_reader, up_writer))
    downstream = asyncio.ensure_future(_pipe(up_reader, client_writer))
    try:
        # The response side ending (upstream closed) ends the exchange.
        await downstream
    finally:
        await cancel_and_wait(upstream)
