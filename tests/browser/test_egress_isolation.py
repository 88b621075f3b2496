"""User content cannot reach loopback over UDP (WebRTC, WebTransport) or around the proxy.

Canaries listen on loopback for UDP (IPv4 and, when available, IPv6) and TCP; pages run
the attack from issue 14 (STUN/TURN through ``RTCPeerConnection``, QUIC through
``WebTransport``, from the page and from a worker) and the canaries must hear nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
from collections.abc import AsyncIterator

import attrs
import pytest
from PIL import Image
from playwright.async_api import async_playwright

from renderkit import render_image, render_pdf, screenshot
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser._egress import EgressProxy
from renderkit.browser._process import launch_chromium
from renderkit.core.netpolicy import UrlPolicy
from renderkit.core.pdfium import first_page_png
from tests._server import LocalServer, serve
from tests.conftest import CHROMIUM

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

# Long enough for ICE gathering and STUN/TURN retransmissions to reach a canary.
_LISTEN_SECONDS = 3.0
GREEN = (0, 200, 0)


@attrs.define
class Canaries:
    """Loopback listeners recording whoever reaches them."""

    udp4: str
    udp6: str | None
    tcp: str
    heard: list[str] = attrs.Factory(list)


class _Udp(asyncio.DatagramProtocol):
    def __init__(self, heard: list[str], name: str) -> None:
        self.heard = heard
        self.name = name

    def datagram_received(self, data: bytes, addr: tuple[str | int, ...]) -> None:
        self.heard.append(f"{self.name} udp datagram of {len(data)} bytes from {addr[0]}")


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@contextlib.asynccontextmanager
async def listening(host: str) -> AsyncIterator[Canaries]:
    """UDP and TCP canaries on ``host`` (IPv4 loopback) plus UDP on [::1] when available."""
    loop = asyncio.get_running_loop()
    heard: list[str] = []
    transports: list[asyncio.DatagramTransport] = []
    udp4, _ = await loop.create_datagram_endpoint(lambda: _Udp(heard, "ipv4"), local_addr=(host, 0))
    transports.append(udp4)
    udp6_address = None
    if _ipv6_loopback():
        udp6, _ = await loop.create_datagram_endpoint(
            lambda: _Udp(heard, "ipv6"), local_addr=("::1", 0)
        )
        transports.append(udp6)
        udp6_address = f"[::1]:{udp6.get_extra_info('sockname')[1]}"

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heard.append(f"tcp connection from {writer.get_extra_info('peername')[0]}")
        writer.close()

    tcp = await asyncio.start_server(accepted, host, 0)
    try:
        yield Canaries(
            udp4=f"{host}:{udp4.get_extra_info('sockname')[1]}",
            udp6=udp6_address,
            tcp=f"{host}:{tcp.sockets[0].getsockname()[1]}",
            heard=heard,
        )
    finally:
        tcp.close()
        await tcp.wait_closed()
        for transport in transports:
            transport.close()


def attack(canaries: Canaries) -> str:
    """A page that tries every non-HTTP path to the canaries, then paints itself green
    when no WebRTC or WebTransport constructor is visible to it (red otherwise)."""
    udp = [canaries.udp4, *([canaries.udp6] if canaries.udp6 else [])]
    stun = [f"stun:{a}" for a in udp]
    turn = [f"turn:{a}?transport=udp" for a in udp] + [f"turn:{canaries.tcp}?transport=tcp"]
    quic = [f"https://{a}/" for a in udp]
    return f"""<!doctype html><html><body style="margin:0;background:rgb(255,0,0)">
<script>
const ICE = {{iceServers: [{{urls: {stun}}}, {{urls: {turn}, username: "u", credential: "p"}}]}};
const QUIC = {quic};
function webTransport(scope) {{
  for (const url of QUIC) {{
    try {{
      const t = new scope.WebTransport(url);
      t.ready.catch(() => {{}});
      t.closed.catch(() => {{}});
    }} catch (e) {{}}
  }}
}}
async function rtc(Peer) {{
  try {{
    const pc = new Peer(ICE);
    pc.createDataChannel("x");
    await pc.setLocalDescription(await pc.createOffer());
    window.__keep = (window.__keep || []).concat([pc]);
  }} catch (e) {{}}
}}
const frame = document.createElement("iframe");
document.body.appendChild(frame);
const peers = [window.RTCPeerConnection, window.webkitRTCPeerConnection,
               frame.contentWindow.RTCPeerConnection].filter(Boolean);
peers.forEach(rtc);
if (window.WebTransport) webTransport(window);
if (frame.contentWindow.WebTransport) webTransport(frame.contentWindow);
const worker = `const Q = ${{JSON.stringify(QUIC)}};
  if (self.WebTransport) for (const u of Q) {{ try {{ const t = new WebTransport(u);
    t.ready.catch(() => {{}}); t.closed.catch(() => {{}}); }} catch (e) {{}} }}`;
try {{ new Worker(URL.createObjectURL(new Blob([worker]))); }} catch (e) {{}}
fetch("http://{canaries.tcp}/").catch(() => {{}});
const exposed = peers.length + (window.WebTransport ? 1 : 0) + (window.RTCDataChannel ? 1 : 0)
  + (window.RTCIceCandidate ? 1 : 0) + (frame.contentWindow.WebTransport ? 1 : 0);
if (exposed === 0) document.body.style.background = "rgb{GREEN}";
</script></body></html>"""


def center(png: bytes) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    pixel = image.getpixel((image.width // 2, image.height // 2))
    assert isinstance(pixel, tuple)
    return pixel[0], pixel[1], pixel[2]


def close_to(pixel: tuple[int, int, int], expected: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 8 for a, b in zip(pixel, expected, strict=True))


@pytest.fixture(scope="module")
async def strict_pool(anyio_backend: str) -> AsyncIterator[ChromiumPool]:
    """Default policy: nothing private is reachable."""
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        yield pool


async def test_custom_html_image_reaches_no_loopback_listener_over_udp_or_tcp(
    strict_pool: ChromiumPool,
) -> None:
    async with listening("127.0.0.1") as canaries:
        result = await render_image(
            {"template": "custom", "html": attack(canaries), "width": 200, "height": 100},
            browser=strict_pool,
        )
        await asyncio.sleep(_LISTEN_SECONDS)
    assert canaries.heard == []
    assert close_to(center(result.content), GREEN), "WebRTC or WebTransport is exposed"


async def test_custom_html_pdf_reaches_no_loopback_listener_over_udp_or_tcp(
    strict_pool: ChromiumPool,
) -> None:
    async with listening("127.0.0.1") as canaries:
        result = await render_pdf(
            {"template": "custom", "html": attack(canaries), "margin": "none"},
            browser=strict_pool,
        )
        await asyncio.sleep(_LISTEN_SECONDS)
    assert canaries.heard == []
    assert close_to(center(first_page_png(result.content)), GREEN), "WebRTC is exposed"


async def test_screenshot_of_an_allowed_page_reaches_no_other_loopback_listener() -> None:
    # The page server on 127.0.0.1 plays a public site; the canaries on 127.0.0.2 and [::1]
    # stay private, so only a path around the egress proxy could reach them.
    config = BrowserConfig(slots=1, allow_networks=("127.0.0.1/32",))
    async with listening("127.0.0.2") as canaries, ChromiumPool(config) as pool:
        with serve(LocalServer()) as site:
            site.routes["/"] = (200, "text/html", attack(canaries).encode())
            result = await screenshot(
                {"url": site.url("/"), "viewport": {"width": 320, "height": 200}}, browser=pool
            )
            await asyncio.sleep(_LISTEN_SECONDS)
    assert canaries.heard == []
    assert close_to(center(result.content), GREEN), "WebRTC or WebTransport is exposed"


async def test_launch_flags_alone_keep_webrtc_off_udp_without_the_init_script() -> None:
    """The flags are the layer workers and pages without the init script rely on."""
    proxy = EgressProxy(UrlPolicy())
    await proxy.start()
    async with (
        listening("127.0.0.1") as canaries,
        async_playwright() as playwright,
    ):
        flags = [f"--proxy-server={proxy.url}", "--proxy-bypass-list=<-loopback>"]
        process = await launch_chromium(CHROMIUM, extra_args=flags)
        try:
            browser = await playwright.chromium.connect_over_cdp(process.ws_url)
            page = await browser.new_page()
            await page.set_content(attack(canaries))
            assert await page.evaluate("typeof RTCPeerConnection") == "function"
            await asyncio.sleep(_LISTEN_SECONDS)
            await browser.close()
        finally:
            await process.kill()
            await proxy.aclose()
    assert canaries.heard == []
