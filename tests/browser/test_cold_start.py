"""Starting Chromium is charged to its own launch timeout, never to a render's budgets."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from renderkit import BrowserUnavailableError
from renderkit.browser import BrowserConfig, Capture, ChromiumPool

from ..conftest import open_image
from ._shells import PLAIN, RED
from ._slow import slow_chromium as slow_chromium_for

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

#: Seconds the slow Chromium sleeps before starting: longer than both render budgets below.
LAUNCH_DELAY = 6


@pytest.fixture
def slow_chromium() -> Iterator[str]:
    """A Chromium whose start-up takes :data:`LAUNCH_DELAY` seconds."""
    with slow_chromium_for(LAUNCH_DELAY) as path:
        yield path


async def test_first_renders_on_a_slowly_launching_pool_all_succeed(slow_chromium: str) -> None:
    config = BrowserConfig(
        slots=2, executable_path=slow_chromium, render_timeout=3, queue_timeout=2
    )
    pool = ChromiumPool(config)  # cold: not started, the first renders launch it
    try:
        started = time.monotonic()
        pngs = await asyncio.gather(
            *(pool.capture_fragment(PLAIN, RED, Capture(width=40, height=30)) for _ in range(4))
        )
        # The launch really took longer than the render and queue budgets together.
        assert time.monotonic() - started > LAUNCH_DELAY
        assert [open_image(png).size for png in pngs] == [(40, 30)] * 4
        assert pool.launches == len(pool.template_browser_pids)  # each template browser once
    finally:
        await pool.aclose()


async def test_a_launch_over_its_own_timeout_fails_every_render_clearly(
    slow_chromium: str,
) -> None:
    config = BrowserConfig(
        slots=2, executable_path=slow_chromium, launch_timeout=2, render_timeout=30
    )
    async with asyncio.timeout(LAUNCH_DELAY * 3):
        pool = ChromiumPool(config)
        try:
            started = time.monotonic()
            results = await asyncio.gather(
                *(
                    pool.capture_fragment(PLAIN, RED, Capture(width=40, height=30))
                    for _ in range(2)
                ),
                return_exceptions=True,
            )
            # Each render waited for the launch's own timeout, not for its render budget.
            assert time.monotonic() - started < config.render_timeout
        finally:
            await pool.aclose()
    for result in results:
        assert isinstance(result, BrowserUnavailableError)
        assert "did not start" in str(result)
