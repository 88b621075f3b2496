"""Request and result models for reading a web page as Markdown, HTML or text."""

from __future__ import annotations

import datetime
from typing import ClassVar

import attrs

from renderkit.core import pagecontrols as c
from renderkit.core import validators as v
from renderkit.core.converter import checked
from renderkit.core.media import TEXT_MEDIA_TYPES
from renderkit.screenshot import DEVICES, MAX_DELAY_MS

__all__ = [
    "MAX_DOM_CHARS",
    "MAX_OUTPUT_CHARS",
    "READ_FORMATS",
    "PageMetadata",
    "ReadRequest",
    "ReadResult",
]

#: What a page can be read as: the main content as Markdown (links, headings, tables, image
#: alt text kept), as simplified HTML, or as plain text.
READ_FORMATS = ("markdown", "html", "text")

#: The largest rendered DOM (serialised, in characters) handed to the extractor. Larger
#: pages are refused inside the browser: the extractor's time and memory grow with it.
MAX_DOM_CHARS = 5_000_000

#: The longest answer (characters of Markdown, HTML or text); longer ones are cut there,
#: with a warning.
MAX_OUTPUT_CHARS = 500_000

#: The longest a read may be answered from the render cache: 30 days.
MAX_CACHE_TTL_SECONDS = 30 * 86_400


@checked
@attrs.frozen(kw_only=True)
class ReadRequest:
    """A request to read a web page's main content.

    The page loads exactly as for a screenshot (same network policy, waits and controls);
    its rendered DOM, after scripts ran, is reduced to the main content.

    Attributes:
        url: the page, an http(s) URL reachable from the public internet.
        format: markdown (default), html (the main content as simple HTML) or text.
        device: desktop (default), laptop, tablet or mobile: some pages serve other
            content to phones.
        block_ads: block requests to ad and tracker hosts (alias blockAds).
        block_cookie_banners: remove common cookie-consent banners (alias
            blockCookieBanners; default true).
        delay: milliseconds to wait after the page loaded, 0-10000.
        wait_until: when navigation counts as done: load (default), domcontentloaded or
            networkidle (alias waitUntil).
        wait_for_selector: wait until an element matching this CSS selector is visible
            (alias waitForSelector).
        hide_selectors: CSS selectors of elements to leave out (alias hideSelectors; at
            most 50).
        click_selector: click the first element matching this CSS selector before reading
            ("show more", alias clickSelector).
        scroll_page: scroll through the page first so lazy content loads (alias scrollPage).
        scripts: JavaScript run in the page after it loaded, at most 50,000 characters.
        headers: extra HTTP headers for requests to the page's origin only (at most 20).
        cookies: cookies (name: value) set for the page's origin (at most 50).
        timezone: IANA time zone the page sees.
        locale: language tag the page sees (Accept-Language, navigator.language).
        fail_on_status: statuses (404) or ranges ("500-599") that fail the request
            instead of reading the page (alias failOnStatus).
        cache_ttl: server only: seconds (1-2592000) the render cache may answer identical
            requests with this read (alias cacheTtl). The library ignores it.
        cache: server only: false reads again even with cache_ttl (default true).
    """

    __rk_aliases__: ClassVar[dict[str, str]] = {
        "blockAds": "block_ads",
        "blockCookieBanners": "block_cookie_banners",
        "waitUntil": "wait_until",
        "waitForSelector": "wait_for_selector",
        "hideSelectors": "hide_selectors",
        "clickSelector": "click_selector",
        "scrollPage": "scroll_page",
        "failOnStatus": "fail_on_status",
        "cacheTtl": "cache_ttl",
    }

    url: str = attrs.field(validator=[v.max_length(4_096), v.http_url()])
    format: str = attrs.field(default="markdown", validator=v.choice(READ_FORMATS))
    device: str = attrs.field(default="desktop", validator=v.choice(DEVICES))
    block_ads: bool = False
    block_cookie_banners: bool = True
    delay: int = attrs.field(default=0, validator=v.in_range(0, MAX_DELAY_MS))
    wait_until: str = attrs.field(default="load", validator=v.choice(c.WAIT_UNTIL))
    wait_for_selector: str | None = attrs.field(
        default=None, validator=v.optional(v.max_length(1_000))
    )
    hide_selectors: list[str] = attrs.field(
        factory=list, validator=[v.max_items(c.MAX_SELECTORS, noun="selectors"), c.selectors]
    )
    click_selector: str | None = attrs.field(
        default=None, validator=v.optional(v.max_length(1_000))
    )
    scroll_page: bool = False
    scripts: str | None = attrs.field(
        default=None, validator=v.optional(v.max_length(c.MAX_INJECTED_CHARS))
    )
    headers: dict[str, str] = attrs.field(factory=dict, validator=c.headers)
    cookies: dict[str, str] = attrs.field(factory=dict, validator=c.cookies)
    timezone: str | None = attrs.field(
        default=None, validator=v.optional(attrs.validators.and_(v.max_length(64), c.timezone))
    )
    locale: str | None = attrs.field(
        default=None, validator=v.optional(attrs.validators.and_(v.max_length(35), c.locale))
    )
    fail_on_status: list[int | str] = attrs.field(factory=list, validator=c.status_ranges)
    cache_ttl: int | None = attrs.field(
        default=None, validator=v.optional(v.in_range(1, MAX_CACHE_TTL_SECONDS))
    )
    cache: bool = True


@attrs.frozen(kw_only=True)
class PageMetadata:
    """What a page says about itself, read from its rendered ``<head>`` and ``<html>``.

    Attributes:
        title: ``og:title``, else ``<title>``; None when neither.
        description: ``<meta name=description>``, else ``og:description``.
        canonical_url: ``<link rel=canonical>``, made absolute against the final URL.
        language: the ``lang`` of ``<html>`` (else ``Content-Language``), e.g. ``en-GB``.
        og: every Open Graph property (``og:*``), the prefix left out: ``{"type":
            "article", "image": "https://..."}``; the first of a repeated one.
    """

    title: str | None = None
    description: str | None = None
    canonical_url: str | None = None
    language: str | None = None
    og: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ReadResult:
    """A page read as text.

    Attributes:
        content: the main content as Markdown, HTML or text (as ``format`` says); empty
            when the page has none the extractor recognises (see ``warnings``).
        format: markdown, html or text.
        metadata: what the page says about itself.
        requested_url: the URL asked for.
        final_url: where the page ended up after redirects.
        http_status: the status of the page's response (None for non-HTTP).
        read_at: when the page was loaded (UTC).
        warnings: e.g. the page answered with an error status, the answer was cut off.
    """

    content: str = attrs.field(repr=False)
    format: str
    metadata: PageMetadata
    requested_url: str
    final_url: str
    http_status: int | None
    read_at: datetime.datetime
    warnings: tuple[str, ...] = ()

    @property
    def media_type(self) -> str:
        """The content's media type: text/markdown, text/html or text/plain."""
        return TEXT_MEDIA_TYPES[self.format]
