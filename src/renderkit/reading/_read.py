"""read_page: load a web page like a screenshot, and answer its main content as text."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

import anyio

from renderkit.browser import Browser, PageShot
from renderkit.core.converter import structure
from renderkit.core.pagecontrols import page_controls
from renderkit.reading._extract import extract_page
from renderkit.reading._models import MAX_DOM_CHARS, MAX_OUTPUT_CHARS, ReadRequest, ReadResult
from renderkit.screenshot import DEVICES

__all__ = ["read_page"]


async def read_page(
    request: ReadRequest | Mapping[str, Any],
    *,
    browser: Browser,
    max_dom_chars: int = MAX_DOM_CHARS,
    max_output_chars: int = MAX_OUTPUT_CHARS,
) -> ReadResult:
    """Read a web page's main content as Markdown, HTML or text, with its metadata.

    The page loads in the browser exactly as for :func:`renderkit.screenshot` (the same
    network policy on every request, the waits, cookie banners, scripts, headers and cookies
    for the page's origin only). Once it settled, its rendered DOM, without the elements it
    does not show, is reduced to the main content (navigation, sidebars, footers, ads and
    banners left out) by trafilatura, keeping headings, links, lists, tables and image alt
    text. The URL is never fetched outside the browser.

    Args:
        request: a :class:`ReadRequest`, or a JSON-like mapping of its fields.
        browser: normally a :class:`~renderkit.browser.ChromiumPool`.
        max_dom_chars: refuse pages whose serialised DOM is longer (measured in the page).
        max_output_chars: cut the answer at this many characters (with a warning).

    Raises:
        InvalidRequestError: a field is invalid, a control's selector matches nothing, the
            page answers a status in ``fail_on_status``, or its DOM is larger than
            ``max_dom_chars`` (each naming ``url`` or the field).
        BlockedUrlError: the URL, or a redirect, goes to a disallowed address.
        NavigationError: the page could not be loaded.
        RenderTimeoutError, BrowserBusyError, RenderError: the browser could not finish.
    """
    req = request if isinstance(request, ReadRequest) else structure(request, ReadRequest)
    device = DEVICES[req.device]
    shot = PageShot(
        **page_controls(req),
        width=device.width,
        height=device.height,
        scale=device.scale,
        mobile=device.mobile,
        user_agent=device.user_agent,
        format="html",
        max_html_chars=max_dom_chars,
    )
    captured = await browser.capture_url(shot)
    read_at = datetime.datetime.now(datetime.UTC)
    # Parsing and extraction are CPU work on an untrusted document: off the event loop.
    extracted = await anyio.to_thread.run_sync(
        lambda: extract_page(
            captured.content,
            base_url=captured.final_url,
            format=req.format,
            max_chars=max_output_chars,
        )
    )
    warnings = captured.load_warnings()
    warnings.extend(extracted.warnings)
    return ReadResult(
        content=extracted.content,
        format=req.format,
        metadata=extracted.metadata,
        requested_url=req.url,
        final_url=captured.final_url,
        http_status=captured.status,
        read_at=read_at,
        warnings=tuple(warnings),
    )
