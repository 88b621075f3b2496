"""Request and result models for web screenshots (POST /api/screenshot semantics)."""

from __future__ import annotations

import datetime
from typing import ClassVar
from urllib.parse import urlsplit

import attrs

from renderkit.core import pagecontrols as c
from renderkit.core import validators as v
from renderkit.core.converter import checked
from renderkit.core.filenames import suggested_filename
from renderkit.core.media import media_types
from renderkit.core.results import FileResult

__all__ = ["DEVICES", "MAX_DELAY_MS", "Device", "ScreenshotRequest", "ScreenshotResult", "Viewport"]

MAX_DELAY_MS = 10_000

_CHROME = "Chrome/131.0.0.0"
_DESKTOP_UA = (
    f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) {_CHROME} "
    "Safari/537.36"
)
_MOBILE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    f"{_CHROME} Mobile Safari/537.36"
)
_TABLET_UA = (
    "Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) "
    f"{_CHROME} Safari/537.36"
)


@attrs.frozen(kw_only=True)
class Device:
    """A device profile: viewport, pixel ratio, user agent and touch."""

    name: str
    width: int
    height: int
    scale: float
    mobile: bool
    user_agent: str


DEVICES: dict[str, Device] = {
    "desktop": Device(
        name="desktop", width=1280, height=800, scale=1, mobile=False, user_agent=_DESKTOP_UA
    ),
    "laptop": Device(
        name="laptop", width=1440, height=900, scale=1, mobile=False, user_agent=_DESKTOP_UA
    ),
    "tablet": Device(
        name="tablet", width=768, height=1024, scale=1, mobile=True, user_agent=_TABLET_UA
    ),
    "mobile": Device(
        name="mobile", width=390, height=844, scale=3, mobile=True, user_agent=_MOBILE_UA
    ),
}

SCREENSHOT_FORMATS = media_types("png", "jpeg", "webp", "pdf")


@checked
@attrs.frozen(kw_only=True)
class Viewport:
    """A viewport overriding the device's.

    Attributes:
        width: CSS pixels, 200-3840.
        height: CSS pixels, 200-4096.
    """

    width: int = attrs.field(validator=v.in_range(200, 3840))
    height: int = attrs.field(validator=v.in_range(200, 4096))


def _format(value: object) -> object:
    if isinstance(value, str):
        value = value.lower()
        return "jpeg" if value == "jpg" else value
    return value


#: The longest a screenshot may be answered from the render cache: 30 days.
MAX_CACHE_TTL_SECONDS = 30 * 86_400


@checked
@attrs.frozen(kw_only=True)
class ScreenshotRequest:
    """A request to capture a web page.

    Attributes:
        url: the page, an http(s) URL reachable from the public internet.
        device: desktop (1280x800, default), laptop (1440x900), tablet (768x1024, mobile
            user agent) or mobile (390x844 at 3x, mobile user agent, touch).
        viewport: {width, height} overriding the device's viewport.
        format: png (default), jpeg, webp, or pdf (an A4 PDF of the page, backgrounds kept).
        full_page: capture the whole scrollable page (alias fullPage; default false).
        quality: 1-100 for jpeg and webp (default 90).
        dark_mode: emulate prefers-color-scheme dark (alias darkMode).
        block_ads: block requests to ad and tracker hosts (alias blockAds; EasyList hosts).
        delay: milliseconds to wait after the page loaded, 0-10000.
        selector: CSS selector: capture only the first matching element.
        wait_until: when navigation counts as done: load (default), domcontentloaded or
            networkidle (alias waitUntil).
        wait_for_selector: wait until an element matching this CSS selector is visible,
            within the render time limit (alias waitForSelector).
        hide_selectors: CSS selectors of elements to hide (visibility: hidden; alias
            hideSelectors; at most 50).
        click_selector: click the first element matching this CSS selector before the
            capture (alias clickSelector).
        block_cookie_banners: hide common cookie-consent banners (alias blockCookieBanners).
        scroll_page: scroll through the page before the capture so lazy content loads
            (alias scrollPage; full-page captures always do).
        styles: CSS added to the page, at most 50,000 characters.
        scripts: JavaScript run in the page after it loaded, at most 50,000 characters.
        headers: extra HTTP headers for requests to the page's origin (not Host, Cookie,
            Origin, Referer or hop-by-hop headers; at most 20).
        cookies: cookies (name: value) set for the page's origin (at most 50).
        timezone: IANA time zone the page sees, e.g. Europe/Paris.
        locale: language tag the page sees (Accept-Language, Intl, navigator.language).
        reduced_motion: emulate prefers-reduced-motion: reduce (alias reducedMotion).
        omit_background: transparent background where the page has none (png and webp;
            alias omitBackground).
        fail_on_status: statuses (404) or ranges ("500-599") that fail the request with
            an error naming url instead of capturing the page (alias failOnStatus).
        cache_ttl: server only: seconds (1-2592000) the render cache may answer identical
            requests with this capture (alias cacheTtl); pages change, so screenshots are
            cached only when asked. The library ignores it.
        cache: server only: false renders again even with cache_ttl (default true).
    """

    __rk_aliases__: ClassVar[dict[str, str]] = {
        "fullPage": "full_page",
        "darkMode": "dark_mode",
        "blockAds": "block_ads",
        "waitUntil": "wait_until",
        "waitForSelector": "wait_for_selector",
        "hideSelectors": "hide_selectors",
        "clickSelector": "click_selector",
        "blockCookieBanners": "block_cookie_banners",
        "scrollPage": "scroll_page",
        "reducedMotion": "reduced_motion",
        "omitBackground": "omit_background",
        "failOnStatus": "fail_on_status",
        "cacheTtl": "cache_ttl",
    }

    url: str = attrs.field(validator=[v.max_length(4_096), v.http_url()])
    device: str = attrs.field(default="desktop", validator=v.choice(DEVICES))
    viewport: Viewport | None = None
    format: str = attrs.field(
        default="png", converter=_format, validator=v.choice(SCREENSHOT_FORMATS)
    )
    full_page: bool = False
    quality: int = attrs.field(default=90, validator=v.in_range(1, 100))
    dark_mode: bool = False
    block_ads: bool = False
    delay: int = attrs.field(default=0, validator=v.in_range(0, MAX_DELAY_MS))
    selector: str | None = attrs.field(default=None, validator=v.optional(v.max_length(1_000)))
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
    block_cookie_banners: bool = False
    scroll_page: bool = False
    styles: str | None = attrs.field(
        default=None, validator=v.optional(v.max_length(c.MAX_INJECTED_CHARS))
    )
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
    reduced_motion: bool = False
    omit_background: bool = False
    fail_on_status: list[int | str] = attrs.field(factory=list, validator=c.status_ranges)
    cache_ttl: int | None = attrs.field(
        default=None, validator=v.optional(v.in_range(1, MAX_CACHE_TTL_SECONDS))
    )
    cache: bool = True

    @property
    def suggested_filename(self) -> str:
        """A readable name for the file: ``screenshot-<host>.png``."""
        return suggested_filename("screenshot", urlsplit(self.url).hostname, self.format)

    @property
    def profile(self) -> Device:
        """The device profile with the viewport override applied."""
        device = DEVICES[self.device]
        if self.viewport is None:
            return device
        return attrs.evolve(device, width=self.viewport.width, height=self.viewport.height)


@attrs.frozen(kw_only=True)
class ScreenshotResult(FileResult):
    """A captured page.

    Attributes:
        content: the image or PDF.
        format: png, jpeg, webp or pdf.
        width, height: pixel size of the image (for pdf: the viewport's CSS size).
        device: the device profile used.
        full_page: whether the whole page was captured.
        source_url: the final URL after redirects.
        http_status: the status of the page's response (None for non-HTTP).
        captured_at: when the capture was taken (UTC).
        warnings: e.g. the page answered with an error status, requests blocked.
        filename: a readable suggested file name (``screenshot-example.com.png``), see
            :mod:`renderkit.core.filenames`.
        key, url: where the file was stored, when a storage backend was given.
    """

    content: bytes = attrs.field(repr=False)
    format: str
    width: int
    height: int
    device: str
    full_page: bool
    source_url: str
    http_status: int | None
    captured_at: datetime.datetime
    warnings: tuple[str, ...] = ()
    filename: str = attrs.field(
        default=attrs.Factory(lambda self: f"screenshot.{self.format}", takes_self=True)
    )
    key: str | None = None
    url: str | None = None
