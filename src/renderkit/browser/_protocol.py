"""What the rendering functions need from a browser, as one small protocol."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import attrs

from renderkit.browser._fair import ANONYMOUS, DEFAULT_CLASS, Tenant, TenantClass

__all__ = [
    "Browser",
    "Capture",
    "PageCapture",
    "PageShot",
    "PdfOptions",
    "SharedBrowser",
    "Shell",
    "TenantAware",
]


@attrs.frozen(kw_only=True)
class Capture:
    """How to turn a rendered page into an image.

    Attributes:
        width, height: the viewport and capture box in CSS pixels.
        scale: device pixel ratio; the file is ``width*scale`` x ``height*scale`` pixels.
        format: ``png``, ``jpeg`` or ``webp``.
        quality: 1-100, for JPEG and WebP.
    """

    width: int
    height: int
    scale: float = 1.0
    format: str = "png"
    quality: int = 90

    @property
    def pixel_size(self) -> tuple[int, int]:
        """The size of the produced image in pixels."""
        return (round(self.width * self.scale), round(self.height * self.scale))


@attrs.frozen(kw_only=True)
class PdfOptions:
    """How to print a page to PDF.

    Attributes:
        paper_width, paper_height: portrait paper size in inches.
        landscape: rotate the paper.
        margin: inches on every side.
        header_template, footer_template: HTML repeated on every page (Chromium fills
            elements with class pageNumber, totalPages, title, date); None for none.
        title: the document title (PDF metadata).
        max_pages: when set, print only the first ``max_pages + 1`` pages: enough to tell
            that a document is over the cap without paying for the rest of it.
        tagged: write a tagged PDF (a structure tree, ``/MarkInfo``) and an outline of the
            document's headings, which Chromium derives from that structure; False prints an
            untagged PDF (Chromium 156 would tag it by default, at a cost in print time).
    """

    paper_width: float
    paper_height: float
    landscape: bool = False
    margin: float = 0.7
    header_template: str | None = None
    footer_template: str | None = None
    title: str | None = None
    max_pages: int | None = None
    tagged: bool = False


@attrs.frozen(kw_only=True)
class PageShot:
    """How to load and capture a web page.

    Attributes:
        url: the page.
        width, height, scale: the viewport in CSS pixels and its device pixel ratio.
        mobile: emulate a phone/tablet (mobile viewport, touch).
        user_agent: the User-Agent to send.
        full_page: capture the whole scrollable page, after scrolling through it so lazy
            images load.
        dark_mode: emulate ``prefers-color-scheme: dark``.
        block_ads: block requests to hosts on the ad/tracker list.
        delay_ms: wait this long after the page settled.
        selector: capture only the first element matching this CSS selector.
        format, quality: the image encoding (ignored when ``pdf`` is set); ``html``
            answers the rendered DOM instead of an image (UTF-8, for reading the page).
        max_html_chars: with ``format: html``, the longest serialised DOM answered; a
            longer one is refused inside the page, before it crosses to this process.
        pdf: print the page to PDF instead of capturing an image.
        wait_until: load, domcontentloaded or networkidle: when navigation is done.
        wait_for_selector: wait for an element matching this selector to be visible.
        hide_selectors: hide elements matching these selectors.
        click_selector: click the first element matching this selector before capturing.
        block_cookie_banners: hide elements on the packaged cookie-banner selector list.
        scroll_page: scroll through the page before capturing (lazy content).
        styles, scripts: CSS to add and JavaScript to run once the page loaded.
        headers, cookies: sent only to the page's origin.
        timezone, locale: what the page sees (IANA name, language tag).
        reduced_motion: emulate ``prefers-reduced-motion: reduce``.
        omit_background: transparent default background.
        fail_on_status: statuses and ``"low-high"`` ranges that fail the capture.
    """

    url: str
    width: int
    height: int
    scale: float = 1.0
    mobile: bool = False
    user_agent: str | None = None
    full_page: bool = False
    dark_mode: bool = False
    block_ads: bool = False
    delay_ms: int = 0
    selector: str | None = None
    format: str = "png"
    quality: int = 90
    pdf: PdfOptions | None = None
    wait_until: str = "load"
    wait_for_selector: str | None = None
    hide_selectors: tuple[str, ...] = ()
    click_selector: str | None = None
    block_cookie_banners: bool = False
    scroll_page: bool = False
    styles: str | None = None
    scripts: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    cookies: tuple[tuple[str, str], ...] = ()
    timezone: str | None = None
    locale: str | None = None
    reduced_motion: bool = False
    omit_background: bool = False
    fail_on_status: tuple[int | str, ...] = ()
    max_html_chars: int | None = None


@attrs.frozen(kw_only=True)
class PageCapture:
    """A captured page: the file (or the DOM's HTML), where the page ended up, and what
    happened on the way."""

    content: bytes
    final_url: str
    status: int | None
    blocked: tuple[str, ...] = ()
    truncated: bool = False

    def load_warnings(self) -> list[str]:
        """What went wrong on the way that the caller should hear of: an error status, and
        requests refused by the network policy."""
        warnings = []
        if self.status is not None and self.status >= 400:
            warnings.append(f"the page answered HTTP {self.status}")
        if self.blocked:
            warnings.append(f"{len(self.blocked)} request(s) to disallowed addresses were blocked")
        return warnings


@attrs.frozen(kw_only=True)
class Shell:
    """A document loaded once into a warm page, into which fragments are rendered.

    Attributes:
        name: identifies the shell; a warm page is reused for fragments of the same shell.
        head: HTML placed in ``<head>``: fonts, styles, and the renderer script that defines
            ``window.__rk.render(html, width, height, imageTimeoutMs)``.
        print_viewport: the viewport (width, height in CSS pixels) a warm page of this shell
            prints from, when its styles depend on it; None leaves the page's viewport as is.
    """

    name: str
    head: str = attrs.field(repr=False)
    print_viewport: tuple[int, int] | None = None


@runtime_checkable
class Browser(Protocol):
    """A headless browser that renders HTML into files.

    :class:`renderkit.browser.ChromiumPool` is the real implementation;
    :class:`renderkit.testing.FakeBrowser` is an in-memory one for tests.
    """

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        """Render ``fragment`` inside a warm page of ``shell`` and capture it.

        Raises:
            InvalidRequestError: an image in the fragment (marked ``data-field``) did not load.
            BlockedUrlError: the fragment referenced an address the network policy refuses.
            RenderTimeoutError: the render exceeded its time limit.
            BrowserBusyError: every slot is busy and the wait queue is full.
            RenderError: the browser failed otherwise.
        """
        ...

    async def capture_document(self, html: str, capture: Capture) -> bytes:
        """Load the complete document ``html`` in an isolated page and capture it.

        Raises:
            RenderTimeoutError: loading or capturing exceeded the time limit.
            BrowserBusyError: every slot is busy and the wait queue is full.
            RenderError: the browser failed otherwise.
        """
        ...

    async def print_fragment(self, shell: Shell, fragment: str, options: PdfOptions) -> bytes:
        """Render ``fragment`` in a warm page of ``shell`` and print it to PDF.

        Raises:
            RenderkitError: as for :meth:`capture_fragment` (InvalidRequestError,
                BlockedUrlError, RenderTimeoutError, BrowserBusyError or RenderError).
        """
        ...

    async def print_document(self, html: str, options: PdfOptions) -> bytes:
        """Load the complete document ``html`` in an isolated page and print it to PDF.

        Raises:
            RenderTimeoutError, BrowserBusyError, RenderError: as for
                :meth:`capture_document`.
        """
        ...

    async def capture_url(self, shot: PageShot) -> PageCapture:
        """Load ``shot.url`` in an isolated page and capture it.

        Raises:
            BlockedUrlError: the URL (or a redirect) goes to a disallowed address.
            NavigationError: the page could not be loaded (DNS, connection, TLS...).
            InvalidRequestError: ``selector`` is invalid or matches nothing.
            RenderTimeoutError, BrowserBusyError, RenderError: as for capture_document.
        """
        ...

    async def aclose(self) -> None:
        """Release the browser. Idempotent."""
        ...


@runtime_checkable
class TenantAware(Protocol):
    """A browser shared by tenants (API keys) that queues each fairly, within its cap.

    :class:`renderkit.browser.ChromiumPool` and :class:`renderkit.browser.BrowserFleet`
    are; a server checks for this capability rather than for a class.
    """

    def for_tenant(
        self, key: str, *, max_inflight: int | None = None, group: TenantClass = DEFAULT_CLASS
    ) -> Browser:
        """A :class:`Browser` whose renders queue as tenant ``key``.

        Waiting renders are served by weighted fair queuing across classes (``group``) and
        round-robin across the tenants of a class; the class holds at most its share of the
        slots, the tenant at most ``max_inflight`` at once (None: any free slot).
        """
        ...


class SharedBrowser(Protocol):
    """The render methods of a tenant-aware browser, which take the tenant to queue as."""

    async def capture_fragment(
        self, shell: Shell, fragment: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes: ...

    async def capture_document(
        self, html: str, capture: Capture, *, tenant: Tenant = ANONYMOUS
    ) -> bytes: ...

    async def print_fragment(
        self, shell: Shell, fragment: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes: ...

    async def print_document(
        self, html: str, options: PdfOptions, *, tenant: Tenant = ANONYMOUS
    ) -> bytes: ...

    async def capture_url(self, shot: PageShot, *, tenant: Tenant = ANONYMOUS) -> PageCapture: ...
