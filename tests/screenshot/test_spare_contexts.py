"""Screenshots from spare contexts made ready per device, on a real Chromium behind the
egress proxy: isolated from each other, made for the right device, and all gone on close."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import attrs
import pytest
from PIL import Image

from renderkit import screenshot
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser._slots import SPARE_PROFILES
from renderkit.screenshot import DEVICES
from tests._server import LocalServer, serve
from tests.browser._owners import marked_by

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

# Reports what a capture's page sees of earlier captures (cookies, both storages, a cached
# image), then leaves its own traces for the next one to find.
TRACES = b"""<!doctype html><html><head><meta name="viewport" content="width=device-width">
</head><body><img src="/cached.png"><script>
  const seen = new URLSearchParams({
    cookie: document.cookie,
    local: localStorage.getItem('trace') || '',
    session: sessionStorage.getItem('trace') || '',
  });
  document.cookie = 'trace=left; max-age=3600';
  localStorage.setItem('trace', 'left');
  sessionStorage.setItem('trace', 'left');
  fetch('/report?' + seen);
</script></body></html>"""

# Reports the device the page was made for.
DEVICE = b"""<!doctype html><html><head><meta name="viewport" content="width=device-width">
</head><body><script>
  fetch('/report?' + new URLSearchParams({
    width: innerWidth, height: innerHeight, ratio: devicePixelRatio,
    agent: navigator.userAgent, touch: navigator.maxTouchPoints,
  }));
</script></body></html>"""

_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf000000030101004a7f3a4b0000000049454e44ae426082"
)


@attrs.define
class Reports:
    """What the pages reported, and the headers of every page request."""

    seen: list[dict[str, str]] = attrs.Factory(list)
    page_headers: list[dict[str, str]] = attrs.Factory(list)


@pytest.fixture
def site() -> Iterator[tuple[LocalServer, Reports]]:
    reports = Reports()

    def report(handler: BaseHTTPRequestHandler) -> tuple[int, str, bytes]:
        query = parse_qs(urlsplit(handler.path).query, keep_blank_values=True)
        reports.seen.append({key: values[0] for key, values in query.items()})
        return (204, "text/plain", b"")

    def page(body: bytes) -> object:
        def handle(handler: BaseHTTPRequestHandler) -> tuple[int, str, bytes]:
            reports.page_headers.append({k.lower(): v for k, v in handler.headers.items()})
            return (200, "text/html", body)

        return handle

    def cacheable_png(handler: BaseHTTPRequestHandler) -> None:
        # Cacheable for an hour: a shared HTTP cache would skip the later fetches.
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Content-Length", str(len(_PNG)))
        handler.send_header("Cache-Control", "public, max-age=3600")
        handler.end_headers()
        handler.wfile.write(_PNG)

    with serve() as server:
        server.routes.update(
            {
                "/traces": page(TRACES),
                "/device": page(DEVICE),
                "/report": report,
                "/cached.png": cacheable_png,
            }
        )
        yield server, reports


@pytest.fixture
async def proxied_pool() -> AsyncIterator[ChromiumPool]:
    # Loopback allowed as an operator network: every request still goes through the proxy.
    config = BrowserConfig(slots=2, spare_contexts=2, allow_networks=("127.0.0.0/8",))
    async with ChromiumPool(config) as pool:
        yield pool


async def test_cookies_storage_cache_and_headers_of_one_capture_are_invisible_to_the_next(
    proxied_pool: ChromiumPool, site: tuple[LocalServer, Reports]
) -> None:
    server, reports = site
    url = server.url("/traces")
    first = {"url": url, "headers": {"X-Secret": "s3cret"}, "cookies": {"session": "abc"}}
    await screenshot(first, browser=proxied_pool)
    for _ in range(4):  # later captures come from spares made while earlier ones ran
        await screenshot({"url": url}, browser=proxied_pool)
    assert len(reports.seen) == 5
    assert all(seen == {"cookie": "", "local": "", "session": ""} for seen in reports.seen)
    assert reports.page_headers[0]["x-secret"] == "s3cret"
    assert "session=abc" in reports.page_headers[0]["cookie"]
    for headers in reports.page_headers[1:]:
        assert "x-secret" not in headers
        assert "cookie" not in headers
    assert server.hits.count("/cached.png") == 5  # no capture found another's cache


@pytest.mark.parametrize("order", [("desktop", "mobile", "tablet", "mobile", "desktop")])
async def test_each_capture_sees_its_device_viewport_ratio_user_agent_and_touch(
    proxied_pool: ChromiumPool, site: tuple[LocalServer, Reports], order: tuple[str, ...]
) -> None:
    server, reports = site
    for name in order:
        result = await screenshot(
            {"url": server.url("/device"), "device": name}, browser=proxied_pool
        )
        device = DEVICES[name]
        seen = reports.seen[-1]
        assert (int(seen["width"]), int(seen["height"])) == (device.width, device.height)
        assert float(seen["ratio"]) == device.scale
        assert seen["agent"] == device.user_agent
        assert reports.page_headers[-1]["user-agent"] == device.user_agent
        assert (int(seen["touch"]) > 0) == device.mobile
        with Image.open(io.BytesIO(result.content)) as image:
            assert image.size == (
                round(device.width * device.scale),
                round(device.height * device.scale),
            )


async def test_spares_stay_within_their_bound_across_many_devices(
    proxied_pool: ChromiumPool, site: tuple[LocalServer, Reports]
) -> None:
    server, _ = site
    url = server.url("/device")
    bound = proxied_pool.config.spare_contexts * SPARE_PROFILES
    for width in (400, 500, 600, 700, 800):  # five profiles, more than are kept
        await screenshot(
            {"url": url, "viewport": {"width": width, "height": 600}}, browser=proxied_pool
        )
        assert proxied_pool._slots.spare_count <= bound
    contexts = proxied_pool._browser.contexts if proxied_pool._browser else []
    # The spares, plus used or evicted contexts whose close may still be under way.
    assert len(contexts) <= bound + 2 * proxied_pool.config.slots + 2


async def test_closing_the_pool_leaves_no_task_and_no_browser_process(
    site: tuple[LocalServer, Reports],
) -> None:
    server, _ = site
    tasks_before = asyncio.all_tasks()
    processes_before = set(marked_by(os.getpid()))
    config = BrowserConfig(slots=2, spare_contexts=2, allow_networks=("127.0.0.0/8",))
    pool = ChromiumPool(config)
    await pool.start()
    try:
        for name in ("desktop", "mobile", "desktop"):
            await screenshot({"url": server.url("/device"), "device": name}, browser=pool)
        assert pool._slots.spare_count > 0  # spares were open (or opening) at close
        assert set(marked_by(os.getpid())) - processes_before
    finally:
        await pool.aclose()
    for _ in range(3):
        await asyncio.sleep(0)
    left = {task for task in asyncio.all_tasks() - tasks_before if not task.done()}
    left.discard(asyncio.current_task())  # type: ignore[arg-type]
    assert left == set()
    for _ in range(100):  # the killed processes may take a moment to be reaped
        if not set(marked_by(os.getpid())) - processes_before:
            break
        await asyncio.sleep(0.05)
    assert set(marked_by(os.getpid())) - processes_before == set()


async def test_a_context_starts_no_browser_ui_page_of_its_own(
    proxied_pool: ChromiumPool, site: tuple[LocalServer, Reports]
) -> None:
    server, _ = site
    await screenshot({"url": server.url("/device")}, browser=proxied_pool)
    browser = proxied_pool._browser
    assert browser is not None
    session = await browser.new_browser_cdp_session()
    try:
        targets = (await session.send("Target.getTargets"))["targetInfos"]
    finally:
        await session.detach()
    # The omnibox popups of each context's window were WebUI pages with their own renderer.
    assert [t["url"] for t in targets if t["type"] == "browser_ui"] == []
    assert any(t["type"] == "page" for t in targets)
