"""An in-memory Browser for tests that should not launch Chromium."""

from __future__ import annotations

import io
from collections.abc import Callable

import attrs
from PIL import Image

from renderkit.browser import Capture, PageCapture, PageShot, PdfOptions, Shell

__all__ = ["FakeBrowser", "RecordedRender"]


@attrs.frozen(kw_only=True)
class RecordedRender:
    """One call the fake received: ``html`` is the fragment or the whole document."""

    kind: str
    html: str
    capture: Capture | None = None
    pdf: PdfOptions | None = None
    shell: str | None = None


#: What a fake reading a page (``PageShot.format == "html"``) answers unless told otherwise.
_PAGE_HTML = (
    '<html lang="en"><head><title>A fake page</title></head><body><main><h1>A fake page</h1>'
    "<p>The fake browser answers this document for every page it is asked to read.</p>"
    "</main></body></html>"
)


class FakeBrowser:
    """A real :class:`~renderkit.browser.Browser` implementation that draws no HTML.

    It returns a correctly sized, correctly encoded solid-colour image for every capture (and
    ``page_html`` for a page read as HTML), recording each call in :attr:`renders`, so tests
    of code above the browser (the HTTP server, quotas, storage) run in milliseconds. Pass
    ``handler`` to inject failures: it is called with each :class:`RecordedRender` before
    the result is produced and may raise.
    """

    def __init__(
        self,
        handler: Callable[[RecordedRender], None] | None = None,
        *,
        color: tuple[int, int, int] = (99, 102, 241),
        page_html: str = _PAGE_HTML,
    ) -> None:
        self.renders: list[RecordedRender] = []
        self._page_html = page_html
        self.closed = False
        self._handler = handler
        self._color = color

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        """Record the call and return a blank image of the capture's size."""
        return self._render(
            RecordedRender(kind="fragment", html=fragment, capture=capture, shell=shell.name)
        )

    async def capture_document(self, html: str, capture: Capture) -> bytes:
        """Record the call and return a blank image of the capture's size."""
        return self._render(RecordedRender(kind="document", html=html, capture=capture))

    async def print_fragment(self, shell: Shell, fragment: str, options: PdfOptions) -> bytes:
        """Record the call and return a one-page PDF of the paper size."""
        return self._print(
            RecordedRender(kind="pdf-fragment", html=fragment, pdf=options, shell=shell.name)
        )

    async def print_document(self, html: str, options: PdfOptions) -> bytes:
        """Record the call and return a one-page PDF of the paper size."""
        return self._print(RecordedRender(kind="pdf-document", html=html, pdf=options))

    async def capture_url(self, shot: PageShot) -> PageCapture:
        """Record the call and return a blank capture of the viewport (or a one-page PDF;
        for ``format: html``, the fake's ``page_html``)."""
        if shot.pdf is not None:
            content = self._print(RecordedRender(kind="url-pdf", html=shot.url, pdf=shot.pdf))
        elif shot.format == "html":
            content = self._read(RecordedRender(kind="url-html", html=shot.url))
        else:
            capture = Capture(
                width=shot.width,
                height=shot.height,
                scale=shot.scale,
                format=shot.format,
                quality=shot.quality,
            )
            content = self._render(RecordedRender(kind="url", html=shot.url, capture=capture))
        return PageCapture(content=content, final_url=shot.url, status=200)

    async def aclose(self) -> None:
        """Mark the fake closed."""
        self.closed = True

    def _read(self, render: RecordedRender) -> bytes:
        self.renders.append(render)
        if self._handler is not None:
            self._handler(render)
        return self._page_html.encode("utf-8")

    def _print(self, render: RecordedRender) -> bytes:
        self.renders.append(render)
        if self._handler is not None:
            self._handler(render)
        options = render.pdf
        assert options is not None
        size = (options.paper_width * 72, options.paper_height * 72)
        width, height = (size[1], size[0]) if options.landscape else size
        image = Image.new("RGB", (round(width), round(height)), self._color)
        out = io.BytesIO()
        image.save(out, "PDF", resolution=72.0)
        return out.getvalue()

    def _render(self, render: RecordedRender) -> bytes:
        self.renders.append(render)
        if self._handler is not None:
            self._handler(render)
        capture = render.capture
        assert capture is not None
        image = Image.new("RGB", capture.pixel_size, self._color)
        out = io.BytesIO()
        pil_format = {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP"}[capture.format]
        image.save(out, pil_format, **({} if pil_format == "PNG" else {"quality": capture.quality}))
        return out.getvalue()
