"""The page steps and the browser lifecycle on their own, against a real Chromium."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator

import anyio
import pytest
from playwright.async_api import Error as PlaywrightError

from renderkit import InvalidRequestError
from renderkit.browser import BrowserConfig, Capture, PageShot, Shell
from renderkit.browser._capture import inject, load_shell, shoot
from renderkit.browser._lifecycle import BrowserLifecycle, launch_flags
from renderkit.browser._page import Slot
from renderkit.browser._process import UNLIMITED_FRAMES
from renderkit.browser._tasks import TaskSet
from renderkit.core.netpolicy import UrlPolicy

from .._server import LocalServer
from ..conftest import open_image
from ._shells import PLAIN

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

BLUE = "<div style='width:100%;height:100%;background:#0000ff'></div>"


def _lifecycle(
    on_lost: list[int] | None = None, on_teardown: list[int] | None = None
) -> BrowserLifecycle:
    config = BrowserConfig(slots=1, allow_private_network=True)
    lost = on_lost if on_lost is not None else []
    teardowns = on_teardown if on_teardown is not None else []

    async def teardown() -> None:
        teardowns.append(1)

    return BrowserLifecycle(
        config,
        UrlPolicy(allow_private=True),
        TaskSet(),
        on_lost=lost.append,
        on_teardown=teardown,
    )


@pytest.fixture
async def slot() -> AsyncIterator[Slot]:
    lifecycle = _lifecycle()
    try:
        page = await lifecycle.open_slot()
        yield page
        await lifecycle.close_slot(page, hung=False)
    finally:
        await lifecycle.aclose()


async def test_a_fragment_renders_into_the_warm_shell_which_loads_only_once(slot: Slot) -> None:
    await load_shell(slot, PLAIN)
    await slot.page.evaluate("document.body.dataset.loadedOnce = 'yes'")
    await load_shell(slot, PLAIN)
    assert await slot.page.evaluate("document.body.dataset.loadedOnce") == "yes"
    await slot.set_metrics(120, 80, 2)
    await inject(slot, BLUE, 120, 80, image_timeout=2)
    image = open_image(await slot.capture(Capture(width=120, height=80, scale=2)))
    assert image.size == (240, 160)
    assert image.convert("RGB").getpixel((120, 80)) == (0, 0, 255)
    await load_shell(slot, Shell(name="other", head="<style>body{margin:0}</style>"))
    assert await slot.page.evaluate("document.body.dataset.loadedOnce ?? null") is None


@pytest.mark.parametrize("scale", [1, 1.5, 2, 3])
async def test_a_framed_viewport_capture_has_the_bytes_of_a_clipped_capture_at_the_device_scale(
    slot: Slot, scale: float
) -> None:
    await load_shell(slot, PLAIN)
    card = (
        "<div style='width:100%;height:100%;background:linear-gradient(135deg,#123,#fa3)'>"
        "<p style='margin:0;font:23px sans-serif;border-bottom:1px solid #fff'>"
        "Some text, antialiased</p></div>"
    )
    capture = Capture(width=301, height=157, scale=scale)
    await slot.set_metrics(capture.width, capture.height, capture.scale)
    await inject(slot, card, capture.width, capture.height, image_timeout=2)
    emulated = await slot.capture(capture)
    await slot.frame(capture)
    assert slot.zoom == (scale if scale in (2, 3) else 1)
    await inject(slot, card, capture.width, capture.height, image_timeout=2)
    framed = await slot.capture_viewport(capture)
    assert open_image(framed).size == capture.pixel_size
    assert framed == emulated


async def test_a_viewport_capture_frames_the_page_for_its_capture_first(slot: Slot) -> None:
    await load_shell(slot, PLAIN)
    await slot.set_metrics(500, 500, 1)
    await inject(slot, BLUE, 80, 60, image_timeout=2)
    for scale, size in ((2, (160, 120)), (1, (80, 60)), (3, (240, 180))):
        capture = Capture(width=80, height=60, scale=scale)
        image = open_image(await slot.capture_viewport(capture))
        assert image.size == size
        assert image.convert("RGB").getcolors() == [(size[0] * size[1], (0, 0, 255))]


async def test_a_shot_loads_the_page_and_reports_where_it_ended(
    slot: Slot, http_server: LocalServer
) -> None:
    http_server.routes["/"] = (200, "text/html", b"<body style='margin:0;background:#0f0'>")
    shot = PageShot(url=http_server.url("/"), width=200, height=100)
    result = await shoot(slot, shot, lambda: 10_000.0)
    assert (result.status, result.final_url, result.blocked) == (200, shot.url, ())
    image = open_image(result.content)
    assert image.size == (200, 100)
    assert image.convert("RGB").getpixel((100, 50)) == (0, 255, 0)


async def test_a_shot_of_a_status_the_caller_refuses_fails(
    slot: Slot, http_server: LocalServer
) -> None:
    http_server.routes["/gone"] = (410, "text/html", b"gone")
    shot = PageShot(url=http_server.url("/gone"), width=50, height=50, fail_on_status=("400-499",))
    with pytest.raises(InvalidRequestError) as caught:
        await shoot(slot, shot, lambda: 10_000.0)
    assert caught.value.errors[0].field == "url"


# A page's script saves a megabyte it made itself: no network, so no proxy stops it.
_BLOB_DOWNLOAD = """<a id=d download=x.bin>d</a><script>
const d = document.getElementById('d');
d.href = URL.createObjectURL(new Blob([new Uint8Array(1 << 20)]));
d.click();
</script>"""


@pytest.mark.parametrize("proxied", [False, True], ids=["direct", "through-the-egress-proxy"])
async def test_a_page_cannot_save_a_download_on_the_machine(proxied: bool) -> None:
    loopback = ("127.0.0.0/8",)
    config = BrowserConfig(
        slots=1, allow_private_network=not proxied, allow_networks=loopback if proxied else ()
    )
    policy = UrlPolicy(allow_private=not proxied, allow_networks=loopback if proxied else ())

    async def teardown() -> None:
        return None

    lifecycle = BrowserLifecycle(
        config, policy, TaskSet(), on_lost=lambda _: None, on_teardown=teardown
    )
    try:
        slot = await lifecycle.open_slot()
        assert (lifecycle.egress is not None) == proxied
        async with slot.page.expect_download(timeout=10_000) as started:
            await slot.page.set_content(_BLOB_DOWNLOAD)
        download = await started.value
        # Refused by the browser: nothing was written, so there is no file to read.
        assert await download.failure() is not None
        with pytest.raises(PlaywrightError, match="accept_downloads"):
            await download.path()
        await lifecycle.close_slot(slot, hung=False)
    finally:
        await lifecycle.aclose()


async def test_a_reset_browser_is_replaced_by_a_new_generation_on_next_use() -> None:
    teardowns: list[int] = []
    lifecycle = _lifecycle(on_teardown=teardowns)
    try:
        await lifecycle.ensure()
        first = lifecycle.generation
        old = await lifecycle.open_slot()
        await lifecycle.reset(first)
        assert not lifecycle.connected
        assert teardowns  # the pages of the old browser were asked to close
        await lifecycle.reset(first)  # a second reset of the same browser does nothing
        slot = await lifecycle.open_slot()
        assert lifecycle.launches == 2
        assert slot.generation == lifecycle.generation > old.generation
    finally:
        await lifecycle.aclose()
    assert not lifecycle.connected


async def test_a_killed_browser_is_reported_lost_with_its_generation() -> None:
    lost: list[int] = []
    lifecycle = _lifecycle(on_lost=lost)
    try:
        await lifecycle.ensure()
        generation = lifecycle.generation
        assert lifecycle.process is not None
        os.killpg(lifecycle.process.pid, signal.SIGKILL)
        with anyio.fail_after(10):
            # Polled: the disconnect arrives on Playwright's connection, with nothing to await.
            while not lost:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        assert lost == [generation]
        assert await lifecycle.responsive(generation - 1)  # an old browser is not probed
    finally:
        await lifecycle.aclose()


@pytest.mark.parametrize(("limit", "flagged"), [(False, True), (True, False)])
def test_a_pool_browser_draws_frames_on_demand_unless_asked_to_keep_the_60_hz_clock(
    limit: bool, flagged: bool
) -> None:
    config = BrowserConfig(frame_rate_limit=limit, extra_args=("--mute-audio",))
    flags = launch_flags(config)
    assert (UNLIMITED_FRAMES in flags) is flagged
    assert flags[-1] == "--mute-audio"  # the caller's own flags come last, so they win
