"""Per-key in-flight caps that hold across replicas.

The pool's fair scheduler caps a key's renders within one process. With several replicas a
key could hold its plan's ``browser_inflight`` on each of them, so with Redis configured every
browser render first takes a lease from a cross-replica limiter
(:class:`~renderkit_server.inflight_redis.RedisInflightLimiter`) and then queues in the local
pool as before. Without Redis, :class:`LocalInflightLimiter` grants everything: the local
scheduler already caps the only process there is.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol, TypeVar, runtime_checkable

from renderkit.browser import Browser, Capture, PageCapture, PageShot, PdfOptions, Shell

__all__ = ["InflightLimiter", "LimitedBrowser", "LocalInflightLimiter"]

_T = TypeVar("_T")


@runtime_checkable
class InflightLimiter(Protocol):
    """Grants leases so that a key holds at most ``cap`` at once over every replica."""

    def hold(self, key_id: str, cap: int | None) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold one of ``key_id``'s ``cap`` leases for the body of the ``async with``.

        Waits for a lease to come free up to the limiter's queue timeout. ``cap`` None is
        uncapped (granted at once).

        Raises:
            TenantBusyError: no lease came free in time (429 TOO_MANY_IN_FLIGHT).
            StorageUnavailableError: the shared store could not be reached.
        """
        ...

    async def aclose(self) -> None:
        """Release resources; leases still held are released by their ``async with``."""
        ...


class LocalInflightLimiter:
    """One process: grants every lease, the pool's own scheduler does the capping."""

    @contextlib.asynccontextmanager
    async def hold(self, key_id: str, cap: int | None) -> AsyncIterator[None]:
        """See :meth:`InflightLimiter.hold`: always granted at once."""
        yield

    async def aclose(self) -> None:
        """Nothing to release."""


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
