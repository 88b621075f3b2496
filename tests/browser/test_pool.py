from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from renderkit import (
    BlockedUrlError,
    BrowserBusyError,
    BrowserUnavailableError,
    RenderTimeoutError,
)
from renderkit.browser import BrowserConfig, Capture, ChromiumPool, Shell
from renderkit.browser._cdp import DirectCdp
from renderkit.browser._page import Slot

from ..conftest import CHROMIUM, open_image
from ._shells import PLAIN, RED

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


async def test_fragment_capture_has_css_size_times_scale(pool: ChromiumPool) -> None:
    png = await pool.capture_fragment(PLAIN, RED, Capture(width=300, height=200, scale=2))
    image = open_image(png)
    assert image.size == (600, 400)
    assert image.convert("RGB").getpixel((300, 200)) == (255, 0, 0)


async def test_document_capture_renders_the_given_html(pool: ChromiumPool) -> None:
    html = "<html><body style='margin:0;background:#00ff00'></body></html>"
    jpeg = await pool.capture_document(html, Capture(width=320, height=240, format="jpeg"))
    image = open_image(jpeg)
    assert image.format == "JPEG"
    assert image.size == (320, 240)
    r, g, b = image.convert("RGB").getpixel((160, 120))
    assert g > 240 and r < 20 and b < 20


async def test_document_with_endless_script_times_out_and_pool_recovers() -> None:
    async with ChromiumPool(BrowserConfig(slots=1, document_timeout=4)) as pool:
        started = time.monotonic()
        with pytest.raises(RenderTimeoutError):
            await pool.capture_document(
                "<script>for(;;){}</script>", Capture(width=100, height=100)
            )
        assert time.monotonic() - started < 10
        png = await pool.capture_fragment(PLAIN, RED, Capture(width=50, height=50))
        assert open_image(png).size == (50, 50)


async def test_fragment_with_endless_script_times_out_and_pool_recovers() -> None:
    async with ChromiumPool(BrowserConfig(slots=1, render_timeout=4)) as pool:
        with pytest.raises(RenderTimeoutError):
            await pool.capture_fragment(
                PLAIN,
                "<img src=x onerror='for(;;){}'>",
                Capture(width=100, height=100),
            )
        png = await pool.capture_fragment(PLAIN, RED, Capture(width=40, height=30))
        assert open_image(png).size == (40, 30)


async def test_crashed_browser_is_relaunched_on_next_render() -> None:
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        await pool.capture_fragment(PLAIN, RED, Capture(width=20, height=20))
        pid = pool.browser_pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            if not pool.connected:
                break
            await asyncio.sleep(0.05)
        png = await pool.capture_fragment(PLAIN, RED, Capture(width=20, height=20))
        assert open_image(png).size == (20, 20)
        assert pool.launches == 2
        assert pool.browser_pid != pid


async def test_renders_beyond_the_queue_limit_are_refused_as_busy() -> None:
    slow = "<html><body><script>const t=Date.now();while(Date.now()-t<800){}</script></body></html>"
    async with ChromiumPool(BrowserConfig(slots=1, max_queue=1)) as pool:
        capture = Capture(width=20, height=20)
        results = await asyncio.gather(
            *(pool.capture_document(slow, capture) for _ in range(4)), return_exceptions=True
        )
    busy = [r for r in results if isinstance(r, BrowserBusyError)]
    done = [r for r in results if isinstance(r, bytes)]
    assert len(busy) == 2
    assert len(done) == 2


async def test_concurrent_renders_all_succeed(pool: ChromiumPool) -> None:
    captures = [Capture(width=100 + i, height=50 + i) for i in range(8)]
    pngs = await asyncio.gather(*(pool.capture_fragment(PLAIN, RED, c) for c in captures))
    assert [open_image(p).size for p in pngs] == [(100 + i, 50 + i) for i in range(8)]


async def test_private_subresource_is_blocked_by_default(http_server) -> None:
    http_server.routes["/pixel.png"] = (200, "image/png", b"")
    html = f"<img data-field='data.logo_url' src='{http_server.url('/pixel.png')}'>"
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        with pytest.raises(BlockedUrlError) as info:
            await pool.capture_fragment(PLAIN_WITH_IMAGES, html, Capture(width=50, height=50))
    assert info.value.field == "data.logo_url"
    assert "/pixel.png" not in http_server.hits


async def test_missing_executable_raises_browser_unavailable() -> None:
    pool = ChromiumPool(BrowserConfig(executable_path="/nonexistent/chromium"))
    with pytest.raises(BrowserUnavailableError):
        await pool.start()
    await pool.aclose()


async def test_closed_pool_refuses_renders() -> None:
    pool = ChromiumPool(BrowserConfig(slots=1))
    await pool.aclose()
    with pytest.raises(BrowserUnavailableError):
        await pool.capture_fragment(PLAIN, RED, Capture(width=10, height=10))


async def test_remote_mode_renders_through_an_existing_chromium_over_cdp() -> None:
    profile = tempfile.mkdtemp(prefix="rk-remote-")
    proc = subprocess.Popen(
        [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = Path(profile) / "DevToolsActivePort"
        for _ in range(300):
            if port_file.exists() and len(port_file.read_text().split()) >= 2:
                break
            await asyncio.sleep(0.05)
        port = port_file.read_text().split()[0]
        config = BrowserConfig(cdp_url=f"http://127.0.0.1:{port}", slots=1)
        async with ChromiumPool(config) as pool:
            png = await pool.capture_fragment(PLAIN, RED, Capture(width=30, height=40, scale=2))
            assert open_image(png).size == (60, 80)
            assert pool.browser_pid is None
        assert proc.poll() is None, "closing a remote pool must not kill the remote browser"
    finally:
        proc.kill()
        proc.wait()


PLAIN_WITH_IMAGES = Shell(
    name="plain-images",
    head="<script>"
    + (Path(__file__).parents[2] / "src/renderkit/core/assets/js/render.js").read_text()
    + "</script>",
)


async def test_a_page_that_fails_half_made_closes_its_direct_devtools_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A spare being opened when the pool closes is cancelled half made: the context is
    # closed by the caller, and the page's own DevTools socket must be closed too.
    closed: list[DirectCdp] = []
    aclose = DirectCdp.aclose

    async def counted(self: DirectCdp) -> None:
        closed.append(self)
        await aclose(self)

    def broken(self: Slot) -> None:
        raise RuntimeError("half made")

    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        monkeypatch.setattr(DirectCdp, "aclose", counted)
        monkeypatch.setattr(Slot, "track_network", broken)
        with pytest.raises(RuntimeError, match="half made"):
            await pool._lifecycle.open_slot()
        assert len(closed) == 1
