"""screenshot: capture a web page as PNG, JPEG, WebP or PDF."""

from __future__ import annotations

import datetime
import io
from collections.abc import Mapping
from typing import Any

from PIL import Image

from renderkit.browser import Browser, PageShot, PdfOptions
from renderkit.core.converter import structure
from renderkit.core.errors import InvalidRequestError
from renderkit.core.pagecontrols import page_controls
from renderkit.core.pdfium import page_count
from renderkit.pdf import PAGE_SIZES
from renderkit.screenshot._models import ScreenshotRequest, ScreenshotResult
from renderkit.storage import Storage
from renderkit.storage.files import attach_storage

__all__ = ["screenshot"]


async def screenshot(
    request: ScreenshotRequest | Mapping[str, Any],
    *,
    browser: Browser,
    storage: Storage | None = None,
    max_pages: int | None = None,
) -> ScreenshotResult:
    """Capture a web page.

    The page loads in an isolated browser context with the device's viewport, pixel ratio and
    user agent; the capture waits for the load event, plus a short network-quiet window when
    the page has scripts, frames or media (and scrolls through the page first for full-page
    captures, so lazy images appear). Pages that
    answer 4xx/5xx are still captured, with a warning. Every request the page makes, redirects
    and subresources included, is checked against the browser's network policy.

    Args:
        request: a :class:`ScreenshotRequest`, or a JSON-like mapping shaped like the HTTP
            API body (``fullPage``/``full_page`` etc.).
        browser: normally a :class:`~renderkit.browser.ChromiumPool`.
        storage: when given, the file is stored there and the result carries its key and URL.
        max_pages: with ``format: pdf``, refuse pages that print longer than this; the
            browser prints at most one page more. None for no cap.

    Raises:
        InvalidRequestError: a field is invalid, ``selector`` or ``click_selector`` matches
            nothing, ``wait_for_selector`` never appears, ``scripts`` throws, the page
            answers a status in ``fail_on_status`` (naming ``url``), or the PDF would have
            more than ``max_pages`` pages (naming ``url``).
        BlockedUrlError: the URL, or a redirect, goes to a disallowed address.
        NavigationError: the page could not be loaded.
        RenderTimeoutError, BrowserBusyError, RenderError: the browser could not finish.
        StorageError: storing the file failed.
    """
    req = (
        request if isinstance(request, ScreenshotRequest) else structure(request, ScreenshotRequest)
    )
    profile = req.profile
    pdf = None
    if req.format == "pdf":
        width, height = PAGE_SIZES["A4"]
        pdf = PdfOptions(paper_width=width, paper_height=height, margin=0.4, max_pages=max_pages)
    shot = PageShot(
        **page_controls(req),
        width=profile.width,
        height=profile.height,
        scale=profile.scale,
        mobile=profile.mobile,
        user_agent=profile.user_agent,
        full_page=req.full_page,
        dark_mode=req.dark_mode,
        selector=req.selector,
        format="png" if pdf else req.format,
        quality=req.quality,
        pdf=pdf,
        styles=req.styles,
        reduced_motion=req.reduced_motion,
        omit_background=req.omit_background,
    )
    captured = await browser.capture_url(shot)
    warnings = captured.load_warnings()
    if captured.truncated:
        warnings.append("the page was taller than the capture limit and was cut off")
    if pdf is not None:
        pages = await page_count(captured.content)
        width, height = round(PAGE_SIZES["A4"][0] * 72), round(PAGE_SIZES["A4"][1] * 72)
        if max_pages is not None and pages > max_pages:
            msg = f"the page prints to more than {max_pages} pages"
            raise InvalidRequestError.single("url", msg)
        if pages > 1:
            warnings.append(f"the PDF has {pages} pages")
    else:
        with Image.open(io.BytesIO(captured.content)) as image:
            width, height = image.size
    result = ScreenshotResult(
        content=captured.content,
        format=req.format,
        width=width,
        height=height,
        device=req.device,
        full_page=req.full_page,
        source_url=captured.final_url,
        http_status=captured.status,
        captured_at=datetime.datetime.now(datetime.UTC),
        warnings=tuple(warnings),
        filename=req.suggested_filename,
    )
    return await attach_storage(result, storage, kind="screenshots")
