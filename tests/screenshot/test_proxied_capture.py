"""Screenshots on a browser behind the egress proxy: plain captures are not intercepted.

The proxy enforces the network policy below Chromium, so a capture that needs nothing of the
page guard (no ads to block, no credentials to send) only watches its page. These tests pin
that such a capture keeps every guarantee the interception gave it, and that the captures
which need interception still get it. 127.0.0.2 plays the public site; 127.0.0.1 is private.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from renderkit import BlockedUrlError, InvalidRequestError, render_image, screenshot
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser._guard import PageGuard
from tests._server import LocalServer, serve
from tests.conftest import png_bytes

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


@pytest.fixture(scope="module")
async def proxied_pool(anyio_backend: str) -> AsyncIterator[ChromiumPool]:
    config = BrowserConfig(slots=1, allow_networks=("127.0.0.2/32",))
    async with ChromiumPool(config) as pool:
        yield pool


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URLs that went through a page guard's request interception."""
    seen: list[str] = []
    route = PageGuard.route

    async def recording(self: PageGuard, request_route: Any) -> None:
        seen.append(request_route.request.url)
        await route(self, request_route)

    monkeypatch.setattr(PageGuard, "route", recording)
    return seen


@pytest.fixture
def public() -> Iterator[LocalServer]:
    with serve(LocalServer(host="127.0.0.2")) as server:
        yield server


@pytest.fixture
def private() -> Iterator[LocalServer]:
    with serve() as server:
        yield server


async def test_a_plain_screenshot_is_not_intercepted_and_its_private_requests_never_arrive(
    proxied_pool: ChromiumPool, public: LocalServer, private: LocalServer, routed: list[str]
) -> None:
    private.routes["/pixel.png"] = (200, "image/png", png_bytes())
    public.routes["/"] = (
        200,
        "text/html",
        (
            f"<html><body><img src='{private.url('/pixel.png')}'>"
            f"<script>fetch('{private.url('/api')}')</script></body></html>"
        ).encode(),
    )
    result = await screenshot({"url": public.url("/")}, browser=proxied_pool)
    assert routed == []
    assert result.http_status == 200
    assert private.hits == []
    assert any("blocked" in w for w in result.warnings)


async def test_a_plain_screenshot_whose_page_goes_to_a_private_address_is_refused_naming_url(
    proxied_pool: ChromiumPool, public: LocalServer, private: LocalServer, routed: list[str]
) -> None:
    private.routes["/"] = (200, "text/html", b"secret")
    public.routes["/"] = (
        200,
        "text/html",
        f"<script>location = '{private.url('/')}'</script>".encode(),
    )
    with pytest.raises(BlockedUrlError) as info:
        await screenshot({"url": public.url("/"), "delay": 200}, browser=proxied_pool)
    assert routed == []
    assert info.value.field == "url"
    assert "navigated itself" in str(info.value)
    assert info.value.url == private.url("/")
    assert private.hits == []


async def test_a_watched_page_navigating_itself_through_a_refused_tunnel_is_refused_naming_url(
    proxied_pool: ChromiumPool, public: LocalServer, routed: list[str]
) -> None:
    # HTTPS goes through a CONNECT tunnel: the proxy's refusal fails the navigation (no
    # response to mark), which the guard then judges by the policy.
    public.routes["/"] = (200, "text/html", b"<script>location = 'https://10.0.0.1/'</script>")
    with pytest.raises(BlockedUrlError) as info:
        await screenshot({"url": public.url("/"), "delay": 200}, browser=proxied_pool)
    assert routed == []
    assert info.value.url == "https://10.0.0.1/"
    assert "navigated itself" in str(info.value)


async def test_a_watched_page_failing_to_reach_an_allowed_address_is_no_refusal(
    proxied_pool: ChromiumPool, public: LocalServer
) -> None:
    # Port 9 is one Chromium refuses itself; the address is allowed, so no policy refusal.
    public.routes["/"] = (200, "text/html", b"<script>location = 'http://127.0.0.2:9/'</script>")
    result = await screenshot({"url": public.url("/"), "delay": 200}, browser=proxied_pool)
    assert result.http_status == 200


async def test_a_watched_page_cannot_open_a_websocket_to_a_private_address(
    proxied_pool: ChromiumPool, public: LocalServer
) -> None:
    heard: list[str] = []

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heard.append("connection")
        writer.close()

    listener = await asyncio.start_server(accepted, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    try:
        public.routes["/"] = (
            200,
            "text/html",
            f"<script>new WebSocket('ws://127.0.0.1:{port}/')</script>".encode(),
        )
        await screenshot({"url": public.url("/"), "delay": 300}, browser=proxied_pool)
    finally:
        listener.close()
        await listener.wait_closed()
    assert heard == []


async def test_credentials_are_sent_through_interception_installed_for_that_capture(
    proxied_pool: ChromiumPool, public: LocalServer, routed: list[str]
) -> None:
    seen: dict[str, str] = {}

    def record(handler: BaseHTTPRequestHandler) -> tuple[int, str, bytes]:
        seen.update({k.lower(): v for k, v in handler.headers.items()})
        return (200, "text/html", b"<p>hello</p>")

    public.routes["/"] = record
    body = {"url": public.url("/"), "headers": {"X-Team": "blue"}, "cookies": {"s": "abc"}}
    await screenshot(body, browser=proxied_pool)
    assert routed == [public.url("/")]
    assert seen["x-team"] == "blue"
    assert "s=abc" in seen["cookie"]
    # The next plain capture gets a page of its own, watched only, and sends nothing.
    seen.clear()
    routed.clear()
    await screenshot({"url": public.url("/")}, browser=proxied_pool)
    assert routed == []
    assert "x-team" not in seen
    assert "cookie" not in seen


async def test_ad_blocking_intercepts_the_capture_that_asks_for_it(
    proxied_pool: ChromiumPool, public: LocalServer, routed: list[str]
) -> None:
    ad = "http://securepubads.g.doubleclick.net/tag.js"
    public.routes["/"] = (200, "text/html", f"<script src='{ad}'></script><p>hi</p>".encode())
    result = await screenshot({"url": public.url("/"), "blockAds": True}, browser=proxied_pool)
    assert ad in routed
    # Refused by the ad list, not by the network policy (in the page or at the proxy), so
    # nothing is reported as a blocked request. What the proxy refuses is told per context
    # (its door), so Chromium's own background requests cannot show here either.
    assert not any("blocked" in w for w in result.warnings), result.warnings


async def test_a_custom_document_behind_the_proxy_still_may_not_navigate_away(
    proxied_pool: ChromiumPool, routed: list[str]
) -> None:
    html = "<script>location = 'http://127.0.0.2:9/'</script>Own page text"
    with pytest.raises(InvalidRequestError) as info:
        await render_image({"template": "custom", "html": html}, browser=proxied_pool)
    assert info.value.errors[0].field == "html"
    assert "navigates away" in info.value.errors[0].message
    assert routed


async def test_what_the_proxy_refused_for_one_capture_is_not_told_to_another_running_beside_it(
    public: LocalServer, private: LocalServer
) -> None:
    # Two callers' pages share one browser and its proxy. Each context has its own door into
    # the proxy, so one caller's refused request never shows in the other's warnings.
    arrived = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow(handler: BaseHTTPRequestHandler) -> tuple[int, str, bytes]:
        loop.call_soon_threadsafe(arrived.set)
        public.release.wait(10)
        return 200, "image/png", png_bytes()

    public.routes["/slow.png"] = slow
    public.routes["/quiet"] = (200, "text/html", b"<html><body><img src='/slow.png'></body></html>")
    public.routes["/noisy"] = (
        200,
        "text/html",
        f"<html><body><img src='{private.url('/pixel.png')}'></body></html>".encode(),
    )
    config = BrowserConfig(slots=2, allow_networks=("127.0.0.2/32",))
    async with ChromiumPool(config) as pool:
        quiet = asyncio.create_task(screenshot({"url": public.url("/quiet")}, browser=pool))
        try:
            async with asyncio.timeout(30):
                await arrived.wait()  # the quiet capture is loading
            noisy = await screenshot({"url": public.url("/noisy")}, browser=pool)
        finally:
            public.release.set()
        quiet_result = await quiet
    assert any("blocked" in w for w in noisy.warnings)
    assert private.hits == []
    assert not any("blocked" in w for w in quiet_result.warnings), quiet_result.warnings


async def test_a_contexts_door_into_the_proxy_closes_with_it(public: LocalServer) -> None:
    public.routes["/"] = (200, "text/html", b"<html><body>hello</body></html>")
    config = BrowserConfig(slots=1, spare_contexts=1, allow_networks=("127.0.0.2/32",))
    async with ChromiumPool(config) as pool:
        for _ in range(6):
            await screenshot({"url": public.url("/")}, browser=pool)
        egress = pool._lifecycle.egress
        assert egress is not None
        # At most the slot's context and the spare are open, however many captures ran.
        # (A retired context closes off the hot path: give it a moment.)
        for _ in range(200):
            if len(egress._doors) <= 2:
                break
            await asyncio.sleep(0.05)
        assert len(egress._doors) <= 2
    assert egress._doors == set()
