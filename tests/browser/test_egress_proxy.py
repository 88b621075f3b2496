"""The egress proxy's own lifecycle: closing it with tunnels open."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from renderkit.browser._egress import EgressProxy
from renderkit.core.netpolicy import UrlPolicy

pytestmark = pytest.mark.anyio


async def test_closing_the_proxy_with_an_open_tunnel_ends_it_without_an_error_report() -> None:
    reported: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))

    async def upstream_handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # holds the tunnel open until the proxy drops it
        writer.close()

    upstream = await asyncio.start_server(upstream_handler, "127.0.0.1", 0)
    port = upstream.sockets[0].getsockname()[1]
    proxy = EgressProxy(UrlPolicy(allow_private=True))
    await proxy.start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
        await writer.drain()
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        await proxy.aclose()
        async with asyncio.timeout(5):
            assert await reader.read() == b""  # the tunnel was closed by the proxy
        writer.close()
        for _ in range(3):  # done-callbacks run on the next turns of the loop
            await asyncio.sleep(0)
    finally:
        upstream.close()
        await upstream.wait_closed()
        loop.set_exception_handler(None)
    assert reported == []
