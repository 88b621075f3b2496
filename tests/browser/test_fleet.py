"""A fleet of remote Chromium browsers on 127.0.0.1: spread, failover, recovery, redaction."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import AsyncIterator, Callable

import pytest

from renderkit import BrowserUnavailableError
from renderkit.browser import BrowserConfig, BrowserFleet, Capture

from ..conftest import open_image
from ._remote import RemoteChromium, remote_browsers
from ._shells import PLAIN, RED

pytestmark = pytest.mark.anyio

SMALL = Capture(width=20, height=10)


def _slow(seconds: float) -> str:
    """A document whose load keeps its page busy for ``seconds``."""
    ms = int(seconds * 1000)
    return f"<script>const t=Date.now();while(Date.now()-t<{ms}){{}}</script>{RED}"


def _config(**options: object) -> BrowserConfig:
    values: dict[str, object] = {"slots": 1, "spare_contexts": 0, "document_timeout": 20}
    values.update(options)
    return BrowserConfig(**values)  # type: ignore[arg-type]


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _until(condition: Callable[[], bool], timeout: float) -> float:
    """Seconds until ``condition()`` held; fails the test past ``timeout``."""
    started = time.monotonic()
    async with asyncio.timeout(timeout):
        # Polled: the fleet's state has no event to wait on.
        while not condition():  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    return time.monotonic() - started


@pytest.fixture
async def browsers() -> AsyncIterator[list[RemoteChromium]]:
    """Two remote browsers on 127.0.0.1, stopped after the test."""
    async with remote_browsers(2) as started:
        yield started


@pytest.mark.browser
async def test_an_idle_fleet_spreads_renders_over_every_endpoint(
    browsers: list[RemoteChromium],
) -> None:
    a, b = browsers
    async with BrowserFleet([a.url, b.url], _config(slots=2)) as fleet:
        for _ in range(4):
            png = await fleet.capture_fragment(PLAIN, RED, Capture(width=30, height=20))
            assert open_image(png).size == (30, 20)
        stats = fleet.stats()
        assert [m.healthy for m in stats.members] == [True, True]
        assert stats.slots == 4
        # Each browser holds the initial blank page plus the fleet's warm slot pages.
        assert await a.pages() >= 2
        assert await b.pages() >= 2


@pytest.mark.browser
async def test_a_render_goes_to_the_idle_endpoint_while_the_other_is_busy(
    browsers: list[RemoteChromium],
) -> None:
    a, b = browsers
    async with BrowserFleet([a.url, b.url], _config()) as fleet:
        slow = asyncio.create_task(fleet.capture_document(_slow(4), SMALL))
        await _until(lambda: fleet.stats().busy == 1, 5)
        # One slot per endpoint: on the busy one this render would wait for the slow one.
        await fleet.capture_fragment(PLAIN, RED, SMALL)
        assert not slow.done()
        assert [m.busy for m in fleet.stats().members].count(1) >= 1
        await slow


@pytest.mark.browser
async def test_the_fair_cap_of_a_key_holds_over_the_whole_fleet(
    browsers: list[RemoteChromium],
) -> None:
    a, b = browsers
    async with BrowserFleet([a.url, b.url], _config()) as fleet:
        capped = fleet.for_tenant("starter-key", max_inflight=1)
        await fleet.capture_document(RED, SMALL)  # warm both connections
        started = time.monotonic()
        await asyncio.gather(*(capped.capture_document(_slow(1.5), SMALL) for _ in range(2)))
        # Two endpoints were free, but the key may hold one slot of the fleet at a time.
        assert time.monotonic() - started >= 2.9


@pytest.mark.browser
async def test_killing_a_browser_mid_render_fails_at_most_its_renders_and_the_next_succeed(
    browsers: list[RemoteChromium],
) -> None:
    a, b = browsers
    async with BrowserFleet([a.url, b.url], _config()) as fleet:
        renders = [asyncio.create_task(fleet.capture_document(_slow(2), SMALL)) for _ in range(2)]
        await _until(lambda: fleet.stats().busy == 2, 10)
        started = time.monotonic()
        a.kill()
        results = await asyncio.gather(*renders, return_exceptions=True)
        for result in results:
            # The render on the survivor succeeds; the one on the killed browser is
            # retried there, or fails as retriable: nothing else.
            if isinstance(result, BaseException):
                assert isinstance(result, BrowserUnavailableError), repr(result)
                assert result.retry_after > 0
            else:
                assert open_image(result).size == (20, 10)
        assert any(not isinstance(r, BaseException) for r in results)
        # Failover is not the 20 s render budget: the retry waits for one slow render.
        assert time.monotonic() - started < 12
        stats = fleet.stats()
        assert [m.healthy for m in stats.members] == [False, True]
        assert stats.slots == 1
        for _ in range(3):
            async with asyncio.timeout(10):
                await fleet.capture_fragment(PLAIN, RED, SMALL)


@pytest.mark.browser
async def test_a_browser_restarted_on_its_port_is_brought_back_within_seconds(
    browsers: list[RemoteChromium],
) -> None:
    a, b = browsers
    async with BrowserFleet([a.url, b.url], _config(), probe_interval=1.0) as fleet:
        a.kill()
        await _until(lambda: not fleet.stats().members[0].healthy, 5)
        await fleet.capture_fragment(PLAIN, RED, SMALL)  # served by b meanwhile
        await a.start()
        took = await _until(lambda: fleet.stats().members[0].healthy, 10)
        assert took < 5
        assert fleet.stats().slots == 2
        for _ in range(4):
            await fleet.capture_fragment(PLAIN, RED, SMALL)
        assert await a.pages() >= 2  # the restarted browser renders again


async def test_a_fleet_with_no_reachable_endpoint_fails_fast_and_retriably() -> None:
    fleet = BrowserFleet([f"http://127.0.0.1:{_unused_port()}" for _ in range(2)], _config())
    try:
        started = time.monotonic()
        with pytest.raises(BrowserUnavailableError) as caught:
            await fleet.start()
        assert caught.value.retry_after > 0
        with pytest.raises(BrowserUnavailableError):
            await fleet.capture_fragment(PLAIN, RED, SMALL)
        assert time.monotonic() - started < 5
        stats = fleet.stats()
        assert stats.healthy == 0 and stats.slots == 0
    finally:
        await fleet.aclose()


@pytest.mark.browser
async def test_endpoint_tokens_never_appear_in_stats_logs_or_errors(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    live = RemoteChromium()
    await live.start()
    dead = f"http://user:sekret-pass@127.0.0.1:{_unused_port()}/?token=sekret-dead"
    try:
        endpoints = [f"{live.url}/?token=sekret-live", dead]
        async with BrowserFleet(endpoints, _config(), probe_interval=0.2) as fleet:
            await fleet.capture_fragment(PLAIN, RED, SMALL)
            live.kill()
            with pytest.raises(BrowserUnavailableError) as caught:
                await fleet.capture_fragment(PLAIN, RED, SMALL)
            await asyncio.sleep(0.5)  # a few probe rounds of both dead endpoints
            stats = fleet.stats()
        shown = [m.endpoint for m in stats.members]
        assert shown == [
            f"http://127.0.0.1:{live.port}/?token=***",
            dead.replace("user:sekret-pass", "***").replace("sekret-dead", "***"),
        ]
        assert "down" in caplog.text  # the failure was logged...
        for text in (repr(stats), caplog.text, str(caught.value), repr(caught.value)):
            assert "sekret" not in text  # ...without the token
    finally:
        await live.stop()
