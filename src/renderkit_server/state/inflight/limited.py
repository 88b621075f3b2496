"""A browser whose renders each hold one of their key's in-flight leases."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from renderkit.browser import Browser, Capture, PageCapture, PageShot, PdfOptions, Shell
from renderkit_server.state.inflight.base import InflightLimiter

__all__ = ["LimitedBrowser"]

_T = TypeVar("_T")


class LimitedBrowser:
    """A browser whose every render holds one of its key's leases while it runs.

    Args:
        browser: the browser to render with (the pool as seen by this key).
        limiter: where the leases come from.
        key_id: the API key lineage the renders are for.
        cap: the key's plan's ``browser_inflight``; None for uncapped.
    """

    def __init__(
        self, browser: Browser, limiter: InflightLimiter, *, key_id: str, cap: int | None
    ) -> None:
        self.browser = browser
        self._limiter = limiter
        self._key_id = key_id
        self._cap = cap

    async def _held(self, render: Callable[[], Awaitable[_T]]) -> _T:
        async with self._limiter.hold(self._key_id, self._cap):
            return await render()

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        """See :meth:`renderkit.browser.Browser.capture_fragment`."""
        return await self._held(lambda: self.browser.capture_fragment(shell, fragment, capture))

    async def capture_document(self, html: str, capture: Capture) -> bytes:
        """See :meth:`renderkit.browser.Browser.capture_document`."""
        return await self._held(lambda: self.browser.capture_document(html, capture))

    async def print_fragment(self, shell: Shell, fragment: str, options: PdfOptions) -> bytes:
        """See :meth:`renderkit.browser.Browser.print_fragment`."""
        return await self._held(lambda: self.browser.print_fragment(shell, fragment, options))

    async def print_document(self, html: str, options: PdfOptions) -> bytes:
        """See :meth:`renderkit.browser.Browser.print_document`."""
        return await self._held(lambda: self.browser.print_document(html, options))

    async def capture_url(self, shot: PageShot) -> PageCapture:
        """See :meth:`renderkit.browser.Browser.capture_url`."""
        return await self._held(lambda: self.browser.capture_url(shot))

    async def aclose(self) -> None:
        """Nothing to release: the browser belongs to whoever made it."""
