"""Playwright's driver: one Node process speaking for every browser of a pool.

Each ``async_playwright().start()`` runs a driver process of its own (about 90 MiB of memory
once started), and a pool runs up to one browser per slot plus the page browser. The
driver only relays DevTools messages (template captures go over a direct DevTools socket,
``_cdp.DirectCdp``), so one per pool serves them all.
"""

from __future__ import annotations

import asyncio
import contextlib

from playwright.async_api import Playwright, async_playwright

from renderkit.browser._page import CLOSE_TIMEOUT

__all__ = ["PlaywrightDriver"]


class PlaywrightDriver:
    """A Playwright driver started on first use and shared by whoever holds this object."""

    def __init__(self) -> None:
        self._playwright: Playwright | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> Playwright:
        """The running driver, started now if it is not yet (once, however many ask)."""
        async with self._lock:
            if self._playwright is None:
                self._playwright = await async_playwright().start()
            return self._playwright

    async def aclose(self) -> None:
        """Stop the driver (its browsers' connections end with it); a later :meth:`get`
        starts a new one."""
        async with self._lock:
            playwright, self._playwright = self._playwright, None
            if playwright is not None:
                # Bounded like every other wait of a close: stopping waits for the driver
                # process to exit, and a close must never hang an app's shutdown.
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(CLOSE_TIMEOUT):
                        await playwright.stop()
