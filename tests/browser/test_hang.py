"""A stopped Chromium costs a render its budget plus a small margin, not a second budget."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest

from renderkit import render_image
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser._watch import HANG_MARGIN

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

CARD = {"template": "og-card", "data": {"title": "hang"}}


async def test_a_render_on_a_stopped_browser_finishes_within_budget_plus_margin() -> None:
    budget = 10.0
    async with ChromiumPool(BrowserConfig(slots=1, render_timeout=budget)) as pool:
        await render_image(CARD, browser=pool)
        pid = pool.browser_pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            result = await render_image(CARD, browser=pool)
            elapsed = time.monotonic() - started
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
        assert result.width == 2400
        assert pool.browser_pid not in (None, pid)
        # Found by a probe within seconds, not at the deadline: the whole render, relaunch
        # included, fits in the budget (the contract is budget + HANG_MARGIN; before, the
        # retry began only once the budget ran out, and then got a whole second one).
        assert elapsed < budget < budget + HANG_MARGIN, elapsed
