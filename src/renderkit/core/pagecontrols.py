"""Validators for the page controls of screenshots and page reads (headers, cookies, timezone,
locale...): both load a page the same way."""

from __future__ import annotations

import functools
import re
import zoneinfo
from typing import Any, Protocol

import attrs

from renderkit.core.errors import InvalidRequestError

__all__ = [
    "MAX_COOKIES",
    "MAX_HEADERS",
    "MAX_INJECTED_CHARS",
    "MAX_SELECTORS",
    "WAIT_UNTIL",
    "PageControlled",
    "cookies",
    "headers",
    "locale",
    "page_controls",
    "selectors",
    "status_ranges",
    "timezone",
]

WAIT_UNTIL = ("load", "domcontentloaded", "networkidle")
MAX_HEADERS = 20
MAX_COOKIES = 50
MAX_SELECTORS = 50
#: Bounds each of ``styles`` and ``scripts``: enough for a real override, not a payload.
MAX_INJECTED_CHARS = 50_000

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}")
_COOKIE_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,200}")
# RFC 6265 cookie-octet: no controls, whitespace, quote, comma, semicolon or backslash.
_COOKIE_VALUE = re.compile(r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]{0,4000}")
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]{0,4000}")
# Headers the browser owns (framing, routing, identity of the request) or that have their
# own field (cookies): overriding them would bypass the network policy or confuse it.
_RESERVED = frozenset(
    {
        "host",
        "cookie",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "upgrade",
        "te",
        "trailer",
        "proxy-authorization",
        "proxy-connection",
        "expect",
        "origin",
        "referer",
    }
)
# Language tag, BCP 47-ish: en, en-US, zh-Hant-TW, es-419.
_LOCALE = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?")
_RANGE = re.compile(r"([1-5][0-9][0-9])(?:-([1-5][0-9][0-9]))?")


def _fail(attribute: attrs.Attribute[Any], message: str) -> None:
    raise InvalidRequestError.single(attribute.alias or attribute.name, message)


def headers(_: object, attribute: attrs.Attribute[Any], value: dict[str, Any]) -> None:
    """Accept HTTP header names and string values, none the browser must own."""
    if len(value) > MAX_HEADERS:
        _fail(attribute, f"at most {MAX_HEADERS} headers (got {len(value)})")
    for name, text in value.items():
        if not _TOKEN.fullmatch(name):
            _fail(attribute, f"{name[:40]!r} is not a valid header name")
        if name.lower() in _RESERVED:
            _fail(attribute, f"{name!r} cannot be set (use cookies for Cookie)")
        if not isinstance(text, str) or not _HEADER_VALUE.fullmatch(text):
            _fail(attribute, f"the value of {name!r} must be a string without line breaks")


def cookies(_: object, attribute: attrs.Attribute[Any], value: dict[str, Any]) -> None:
    """Accept cookie names and values as RFC 6265 allows them."""
    if len(value) > MAX_COOKIES:
        _fail(attribute, f"at most {MAX_COOKIES} cookies (got {len(value)})")
    for name, text in value.items():
        if not _COOKIE_NAME.fullmatch(name):
            _fail(attribute, f"{name[:40]!r} is not a valid cookie name")
        if not isinstance(text, str) or not _COOKIE_VALUE.fullmatch(text):
            _fail(attribute, f"the value of {name!r} must be a string of cookie characters")


def selectors(_: object, attribute: attrs.Attribute[Any], value: list[str]) -> None:
    """Accept a short list of short CSS selectors (syntax is checked by the page)."""
    if len(value) > MAX_SELECTORS:
        _fail(attribute, f"at most {MAX_SELECTORS} selectors (got {len(value)})")
    for selector in value:
        if not selector.strip() or len(selector) > 1_000:
            _fail(attribute, "each selector must be 1-1,000 characters")
        if "{" in selector or "}" in selector:
            _fail(attribute, f"{selector[:40]!r} is not a CSS selector")


@functools.cache
def _zone_names() -> frozenset[str]:
    # The zones of the tz database, without the files it ships beside them that ZoneInfo
    # also opens but Chromium refuses (right/UTC, posix/Europe/Paris, localtime, Factory):
    # those failed the capture with a 500 instead of the request with a 400.
    return frozenset(
        name for name in zoneinfo.available_timezones() if "/" in name or name == "UTC"
    )


def timezone(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
    """Accept an IANA time zone name such as Europe/Paris."""
    if value not in _zone_names():
        _fail(attribute, f"{value[:40]!r} is not an IANA time zone (e.g. Europe/Paris)")


def locale(_: object, attribute: attrs.Attribute[Any], value: str) -> None:
    """Accept a BCP 47 language tag such as en-US."""
    if not _LOCALE.fullmatch(value):
        _fail(attribute, f"{value[:40]!r} is not a language tag (e.g. en-US, fr, zh-Hant-TW)")


def status_ranges(_: object, attribute: attrs.Attribute[Any], value: list[int | str]) -> None:
    """Accept HTTP statuses (404) and ranges ("500-599") between 100 and 599."""
    if len(value) > 50:
        _fail(attribute, f"at most 50 entries (got {len(value)})")
    for entry in value:
        match = _RANGE.fullmatch(str(entry))
        if isinstance(entry, bool) or match is None:
            _fail(attribute, f'{str(entry)[:20]!r} is not a status or range (e.g. 404, "500-599")')
            return
        low, high = match.group(1), match.group(2) or match.group(1)
        if int(low) > int(high):
            _fail(attribute, f"{entry!r} is an empty range")


class PageControlled(Protocol):
    """A request that loads a page: the controls a screenshot and a page read share."""

    @property
    def url(self) -> str: ...
    @property
    def block_ads(self) -> bool: ...
    @property
    def delay(self) -> int: ...
    @property
    def wait_until(self) -> str: ...
    @property
    def wait_for_selector(self) -> str | None: ...
    @property
    def hide_selectors(self) -> list[str]: ...
    @property
    def click_selector(self) -> str | None: ...
    @property
    def block_cookie_banners(self) -> bool: ...
    @property
    def scroll_page(self) -> bool: ...
    @property
    def scripts(self) -> str | None: ...
    @property
    def headers(self) -> dict[str, str]: ...
    @property
    def cookies(self) -> dict[str, str]: ...
    @property
    def timezone(self) -> str | None: ...
    @property
    def locale(self) -> str | None: ...
    @property
    def fail_on_status(self) -> list[int | str]: ...


def page_controls(request: PageControlled) -> dict[str, Any]:
    """The browser's page-shot arguments for how ``request`` loads its page, written once for
    screenshots and page reads (each adds its device and what it captures)."""
    return {
        "url": request.url,
        "block_ads": request.block_ads,
        "delay_ms": request.delay,
        "wait_until": request.wait_until,
        "wait_for_selector": request.wait_for_selector,
        "hide_selectors": tuple(request.hide_selectors),
        "click_selector": request.click_selector,
        "block_cookie_banners": request.block_cookie_banners,
        "scroll_page": request.scroll_page,
        "scripts": request.scripts,
        "headers": tuple(request.headers.items()),
        "cookies": tuple(request.cookies.items()),
        "timezone": request.timezone,
        "locale": request.locale,
        "fail_on_status": tuple(request.fail_on_status),
    }
