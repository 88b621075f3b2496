"""A local pool's two browsers: templates on one, strangers' pages on the other."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from renderkit import render_image
from renderkit.browser import BrowserConfig, Capture, ChromiumPool, _cdp, _page
from renderkit.browser._process import BEGIN_FRAME_CONTROL, UNLIMITED_FRAMES

from ..conftest import open_image
from ._owners import command_line, in_group
from ._shells import PLAIN, RED

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

GREEN = "<html><body style='margin:0;background:#00ff00'></body></html>"


async def _disconnected(pool: ChromiumPool) -> None:
    for _ in range(100):
        if not pool.connected:
            return
        await asyncio.sleep(0.05)


async def _both(pool: ChromiumPool) -> None:
    png = await pool.capture_fragment(PLAIN, RED, Capture(width=20, height=20))
    assert open_image(png).convert("RGB").getpixel((10, 10)) == (255, 0, 0)
    png = await pool.capture_document(GREEN, Capture(width=20, height=20))
    r, g, b = open_image(png).convert("RGB").getpixel((10, 10))
    assert g > 240 and r < 20 and b < 20


async def test_templates_and_strangers_pages_run_on_two_browsers_with_their_own_clocks() -> None:
    async with ChromiumPool(BrowserConfig(slots=1, begin_frame_capture=False)) as pool:
        template, page = pool.browser_pid, pool.page_browser_pid
        assert template is not None and page is not None and template != page
        # Warm pages draw a frame as soon as a capture asks for one (no 60 Hz clock);
        # strangers' pages keep the clock, which makes a fresh-context screenshot cheaper,
        # and never run under begin-frame control (their captures would hang).
        assert UNLIMITED_FRAMES in command_line(template)
        assert not set(BEGIN_FRAME_CONTROL) & set(command_line(template))
        assert not set(BEGIN_FRAME_CONTROL) & set(command_line(page))
        assert UNLIMITED_FRAMES not in command_line(page)
        await _both(pool)
        # The slots are the pool's, whichever browser: one member, one lease per render.
        stats = pool.stats()
        assert len(stats.members) == 1
        assert stats.slots == 1 and stats.members[0].healthy
        assert pool.launches == 1 and pool.page_launches == 1


async def test_a_pool_asked_for_one_browser_runs_everything_on_it() -> None:
    async with ChromiumPool(BrowserConfig(slots=1, split_browsers=False)) as pool:
        await _both(pool)
        assert pool.browser_pid is not None
        assert pool.page_browser_pid == pool.browser_pid
        assert UNLIMITED_FRAMES in command_line(pool.browser_pid)
        assert not set(BEGIN_FRAME_CONTROL) & set(command_line(pool.browser_pid))


async def test_a_template_browser_with_begin_frame_capture_draws_only_the_frames_asked_for() -> (
    None
):
    async with ChromiumPool(BrowserConfig(slots=1, begin_frame_capture=True)) as pool:
        await _both(pool)
        assert pool.browser_pid is not None and pool.page_browser_pid is not None
        # No clock at all on the template browser; the page browser is as without it.
        assert set(BEGIN_FRAME_CONTROL) <= set(command_line(pool.browser_pid))
        assert UNLIMITED_FRAMES not in command_line(pool.browser_pid)
        assert not set(BEGIN_FRAME_CONTROL) & set(command_line(pool.page_browser_pid))


NEW_HEADLESS = "/usr/bin/chromium"


@pytest.mark.skipif(not Path(NEW_HEADLESS).exists(), reason="needs Debian's chromium package")
async def test_a_pool_on_new_headless_chromium_renders_cards_without_begin_frame_control() -> None:
    # Only the headless shell has HeadlessExperimental.beginFrame: new-headless Chromium
    # accepts the flag, then every capture failed with "'beginFrame' wasn't found".
    config = BrowserConfig(executable_path=NEW_HEADLESS, slots=2, begin_frame_capture=True)
    async with ChromiumPool(config) as pool:
        await _both(pool)
        result = await render_image(
            {"template": "og-card", "scale": 1, "data": {"title": "New headless"}}, browser=pool
        )
        assert open_image(result.content).size == (1200, 630)
        pids = pool.template_browser_pids
        assert len(pids) == 2  # the pool keeps one template browser per slot
        for pid in pids:
            assert pid is not None
            assert not set(BEGIN_FRAME_CONTROL) & set(command_line(pid))
            assert UNLIMITED_FRAMES in command_line(pid)
        # Each template browser was launched once with the flags, then once without, and
        # never again.
        assert pool.launches == 4
        await render_image(
            {"template": "og-card", "scale": 1, "data": {"title": "Again"}}, browser=pool
        )
        assert pool.launches == 4


CARDS = [
    ("og-card", "gradient", 1),
    ("og-card", "dark", 2),
    ("twitter-card", "light", 1.5),
]

Card = tuple[tuple[int, int], bytes]


async def _cards(pool: ChromiumPool, before: Callable[[], None] = lambda: None) -> list[Card]:
    cards = []
    for template, background, scale in CARDS:
        before()
        data = {"title": f"{template} {background}", "background": background}
        result = await render_image(
            {"template": template, "scale": scale, "data": data}, browser=pool
        )
        image = open_image(result.content).convert("RGB")
        cards.append((image.size, image.tobytes()))
    return cards


def _assert_same_pixels(cards: list[Card], expected: list[Card]) -> None:
    for (size, pixels), (want_size, want), (_, _, scale) in zip(
        cards, expected, CARDS, strict=True
    ):
        assert size == want_size
        if float(scale).is_integer():
            assert pixels == want
        else:
            # A fractional scale is zoomed on a begin-frame page rather than emulated:
            # within the one-level noise of two ordinary captures of it.
            differ = [abs(a - b) for a, b in zip(pixels, want, strict=True) if a != b]
            assert len(differ) < 100 and max(differ, default=0) <= 1


async def test_begin_frame_cards_are_the_pixels_of_ordinary_captures_even_without_damage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with ChromiumPool(BrowserConfig(slots=1, begin_frame_capture=False)) as pool:
        expected = await _cards(pool)
    async with ChromiumPool(BrowserConfig(slots=1, begin_frame_capture=True)) as pool:
        _assert_same_pixels(await _cards(pool), expected)
        # Frames that come back without a screenshot (no damage, as for the same card
        # again) are drawn anew, never answered with an earlier render's bytes: here every
        # frame's screenshot is withheld until the page was redrawn.
        state = {"redrawn": False, "withheld": 0}
        send, damage = _cdp.DirectCdp.send, _page.Slot._damage

        async def without_screenshots(
            self: _cdp.DirectCdp, method: str, params: dict[str, Any] | None = None
        ) -> dict[str, Any]:
            reply = await send(self, method, params)
            if "screenshotData" in reply and not state["redrawn"]:
                state["withheld"] += 1
                return {key: value for key, value in reply.items() if key != "screenshotData"}
            return reply

        async def redraw(self: _page.Slot, session: Any) -> None:
            await damage(self, session)
            state["redrawn"] = True

        monkeypatch.setattr(_cdp.DirectCdp, "send", without_screenshots)
        monkeypatch.setattr(_page.Slot, "_damage", redraw)
        cards = await _cards(pool, before=lambda: state.update(redrawn=False))
        assert state["withheld"] >= 2 * len(CARDS)
    _assert_same_pixels(cards, expected)


async def test_a_crashed_template_browser_is_relaunched_alone_and_documents_keep_working() -> None:
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        await _both(pool)
        template, page = pool.browser_pid, pool.page_browser_pid
        assert template is not None
        os.kill(template, signal.SIGKILL)
        await _disconnected(pool)
        assert not pool.connected
        assert pool.stats().members[0].healthy  # a local browser: the next render relaunches
        png = await pool.capture_document(GREEN, Capture(width=20, height=20))
        assert open_image(png).size == (20, 20)
        assert pool.page_browser_pid == page and pool.page_launches == 1
        await _both(pool)
        assert pool.launches == 2
        assert pool.browser_pid not in (None, template)
        assert pool.page_browser_pid == page


async def test_a_crashed_page_browser_is_relaunched_alone_and_templates_keep_working() -> None:
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        await _both(pool)
        template, page = pool.browser_pid, pool.page_browser_pid
        assert page is not None
        os.kill(page, signal.SIGKILL)
        await _disconnected(pool)
        png = await pool.capture_fragment(PLAIN, RED, Capture(width=20, height=20))
        assert open_image(png).size == (20, 20)
        assert pool.browser_pid == template and pool.launches == 1
        await _both(pool)
        assert pool.page_launches == 2
        assert pool.page_browser_pid not in (None, page)
        assert pool.browser_pid == template


async def test_a_hung_template_browser_does_not_stall_documents_beyond_its_own_slot() -> None:
    async with ChromiumPool(BrowserConfig(slots=2, render_timeout=10)) as pool:
        await _both(pool)
        # Every template browser (one per slot under begin-frame capture), so the template
        # render below lands on a stopped one whichever it picks.
        templates = [pid for pid in pool.template_browser_pids if pid is not None]
        assert templates
        for template in templates:
            os.kill(template, signal.SIGSTOP)
        try:
            hung = asyncio.create_task(
                pool.capture_fragment(PLAIN, RED, Capture(width=30, height=30))
            )
            await asyncio.sleep(0.3)  # it holds one slot, on a browser that does not answer
            started = time.monotonic()
            png = await pool.capture_document(GREEN, Capture(width=20, height=20))
            elapsed = time.monotonic() - started
            assert open_image(png).size == (20, 20)
            # The other slot's document ran on the page browser meanwhile, not after the
            # hang was found (a probe interval plus its 2 s timeout) and the retry ran.
            assert not hung.done()
            assert elapsed < 2.0, elapsed
            png = await hung  # found mute, killed, relaunched: the template render succeeds
            assert open_image(png).size == (30, 30)
        finally:
            for template in templates:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(template, signal.SIGCONT)
                    os.kill(template, signal.SIGKILL)
        assert set(pool.template_browser_pids) - {None, *templates}  # the hung one, replaced
        assert pool.page_launches == 1


async def test_a_strangers_document_never_runs_in_the_browser_of_the_warm_template_pages() -> None:
    title = "stranger-document"
    busy = f"<title>{title}</title><script>const t=Date.now();while(Date.now()-t<1500){{}}</script>"
    async with ChromiumPool(BrowserConfig(slots=2)) as pool:
        await pool.capture_fragment(PLAIN, RED, Capture(width=20, height=20))  # a warm page
        templates = pool._templates.lifecycle.browser
        pages = pool._pages.lifecycle.browser
        assert templates is not None and pages is not None and templates is not pages

        async def titles(browser: object) -> list[str]:
            session = await browser.new_browser_cdp_session()  # type: ignore[attr-defined]
            try:
                infos = (await session.send("Target.getTargets"))["targetInfos"]
            finally:
                await session.detach()
            return [info["title"] for info in infos if info["type"] == "page"]

        document = asyncio.create_task(pool.capture_document(busy, Capture(width=20, height=20)))
        try:
            for _ in range(60):
                if title in await titles(pages):
                    break
                await asyncio.sleep(0.05)
            assert title in await titles(pages)
            template_titles = await titles(templates)
            assert template_titles  # the warm template page is there, idle
            assert title not in template_titles
        finally:
            await document


async def test_closing_a_split_pool_kills_both_browsers_and_their_helpers() -> None:
    pool = ChromiumPool(BrowserConfig(slots=1))
    try:
        await _both(pool)
        groups = [pool.browser_pid, pool.page_browser_pid]
        assert None not in groups
        assert all(len(in_group(pid)) > 1 for pid in groups if pid is not None)
    finally:
        await pool.aclose()
    assert not pool.stats().members[0].healthy
    for _ in range(100):  # the killed processes may take a moment to be reaped
        if not any(in_group(pid) for pid in groups if pid is not None):
            break
        await asyncio.sleep(0.05)
    assert [in_group(pid) for pid in groups if pid is not None] == [[], []]


def _drivers() -> list[int]:
    """Playwright driver processes (Node) this test process started and that still run."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            # /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces.
            stat = (entry / "stat").read_text()
            comm, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :]
            if int(rest.split()[1]) == os.getpid() and comm.startswith("node"):
                found.append(int(entry.name))
    return found


async def test_all_browsers_of_a_pool_share_one_playwright_driver_which_its_close_stops() -> None:
    before = set(_drivers())
    pool = ChromiumPool(BrowserConfig(slots=2, begin_frame_capture=True))
    try:
        await pool.start()
        # Two template browsers and the page browser, one driver process (~90 MiB each).
        assert len({*pool.template_browser_pids, pool.page_browser_pid} - {None}) == 3
        assert len(set(_drivers()) - before) == 1
        await _both(pool)
    finally:
        await pool.aclose()
    for _ in range(100):
        if not set(_drivers()) - before:
            break
        await asyncio.sleep(0.05)
    assert set(_drivers()) - before == set()


async def test_cards_rendered_at_once_on_the_begin_frame_browser_are_each_their_own() -> None:
    titles = [f"Card number {i}" for i in range(8)]

    async def card(pool: ChromiumPool, title: str) -> bytes:
        request = {"template": "og-card", "scale": 1, "data": {"title": title}}
        result = await render_image(request, browser=pool)
        return open_image(result.content).convert("RGB").tobytes()

    async with ChromiumPool(BrowserConfig(slots=1, begin_frame_capture=False)) as pool:
        expected = [await card(pool, title) for title in titles]
    assert len(set(expected)) == len(titles)
    # Four clients on two slots: frames of two pages are asked for at once, and each
    # render must get its own card's pixels (begin-frame frames are drawn one at a time).
    async with ChromiumPool(BrowserConfig(slots=2, begin_frame_capture=True)) as pool:
        queue = list(titles)
        got: dict[str, bytes] = {}

        async def client() -> None:
            while queue:
                title = queue.pop()
                got[title] = await card(pool, title)

        await asyncio.gather(*(client() for _ in range(4)))
        assert pool.launches == 2  # one template browser per slot, none relaunched
    assert [got[title] for title in titles] == expected


async def _pages(browser: Any) -> list[str]:
    session = await browser.new_browser_cdp_session()
    try:
        infos = (await session.send("Target.getTargets"))["targetInfos"]
    finally:
        await session.detach()
    return [info["url"] for info in infos if info["type"] == "page"]


async def test_each_slot_draws_its_begin_frame_cards_on_a_template_browser_of_its_own() -> None:
    # Every page of one browser shares its begin-frame source, so frames of two pages of
    # one browser may not overlap: two slots get two template browsers, drawing at once.
    async with ChromiumPool(BrowserConfig(slots=2, begin_frame_capture=True)) as pool:
        pids = pool.template_browser_pids
        assert len(pids) == 2 and None not in pids and len(set(pids)) == 2
        assert pool.browser_pid == pids[0]
        assert pool.page_browser_pid not in pids
        for pid in pids:
            assert pid is not None and set(BEGIN_FRAME_CONTROL) <= set(command_line(pid))
        assert pool.launches == 2 and pool.page_launches == 1
        browsers = [member.lifecycle.browser for member in pool._template_browsers]
        before = [len(await _pages(browser)) for browser in browsers]
        draws = {"now": 0, "most": 0}
        locks: set[int] = set()
        draw = _page.Slot._draw

        async def counted(self: _page.Slot, capture: Capture) -> bytes:
            locks.add(id(self.frame_lock))
            draws["now"] += 1
            draws["most"] = max(draws["most"], draws["now"])
            try:
                await asyncio.sleep(0.2)  # long enough for the other render to draw too
                return await draw(self, capture)
            finally:
                draws["now"] -= 1

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_page.Slot, "_draw", counted)
            cards = await asyncio.gather(
                *(
                    pool.capture_fragment(PLAIN, RED, Capture(width=20 + n, height=20))
                    for n in range(2)
                )
            )
        # At once, and under two browsers' frame locks: neither waited for the other.
        assert draws["most"] == 2 and len(locks) == 2
        for n, png in enumerate(cards):
            image = open_image(png).convert("RGB")
            assert image.size == (20 + n, 20) and image.getpixel((10, 10)) == (255, 0, 0)
        # A new warm page on each browser: the renders went one to each.
        assert [len(await _pages(browser)) for browser in browsers] == [n + 1 for n in before]


async def test_a_crashed_template_browser_of_one_slot_is_relaunched_alone() -> None:
    async with ChromiumPool(BrowserConfig(slots=2, begin_frame_capture=True)) as pool:
        first, second = pool.template_browser_pids
        page = pool.page_browser_pid
        assert second is not None
        await _both(pool)
        os.kill(second, signal.SIGKILL)
        for _ in range(100):
            if not pool._template_browsers[1].lifecycle.connected:
                break
            await asyncio.sleep(0.05)
        assert not pool.connected
        # The next render relaunches it (before it queues); the others keep their browsers.
        await _both(pool)
        assert pool.connected
        after = pool.template_browser_pids
        assert after[0] == first and after[1] not in (None, second)
        assert pool.launches == 3 and pool.page_launches == 1
        assert pool.page_browser_pid == page
