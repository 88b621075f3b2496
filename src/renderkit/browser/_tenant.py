"""One tenant's view of a shared browser (a pool or a fleet)."""

from __future__ import annotations

from renderkit.browser._fair import Tenant
from renderkit.browser._protocol import (
    Capture,
    PageCapture,
    PageShot,
    PdfOptions,
    SharedBrowser,
    Shell,
)

__all__ = ["TenantBrowser"]


class TenantBrowser:
    """A shared browser as seen by one tenant: its renders queue fairly under its cap.

    Made by :meth:`ChromiumPool.for_tenant` and :meth:`BrowserFleet.for_tenant`; closing
    it leaves the shared browser open.
    """

    def __init__(self, pool: SharedBrowser, tenant: Tenant) -> None:
        self.pool = pool
        self.tenant = tenant

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        """See :meth:`renderkit.browser.Browser.capture_fragment`."""
        return await self.pool.capture_fragment(shell, fragment, capture, tenant=self.tenant)

    async def capture_document(self, html: str, capture: Capture) -> bytes:
        """See :meth:`renderkit.browser.Browser.capture_document`."""
        return await self.pool.capture_document(html, capture, tenant=self.tenant)

    async def print_fragment(self, shell: Shell, fragment: str, options: PdfOptions) -> bytes:
        """See :meth:`renderkit.browser.Browser.print_fragment`."""
        return await self.pool.print_fragment(shell, fragment, options, tenant=self.tenant)

    async def print_document(self, html: str, options: PdfOptions) -> bytes:
        """See :meth:`renderkit.browser.Browser.print_document`."""
        return await self.pool.print_document(html, options, tenant=self.tenant)

    async def capture_url(self, shot: PageShot) -> PageCapture:
        """See :meth:`renderkit.browser.Browser.capture_url`."""
        return await self.pool.capture_url(shot, tenant=self.tenant)

    async def aclose(self) -> None:
        """Nothing to release: the pool belongs to whoever made it."""
