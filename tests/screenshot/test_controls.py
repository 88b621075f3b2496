# ruff: noqa: E501  (inline test pages read best on one line)
"""Screenshot page controls, each exercised through a real Chromium against 127.0.0.1."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from renderkit import InvalidRequestError, ScreenshotRequest, screenshot, structure
from renderkit.browser import ChromiumPool
from renderkit.browser._controls import cookie_banner_selectors
from tests._server import LocalServer
from tests.conftest import open_image

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

GREEN, RED, BLUE = (0, 200, 0), (255, 0, 0), (0, 0, 255)


def _page(body: str, style: str = "") -> tuple[int, str, bytes]:
    html = f"<!doctype html><html><head><style>body{{margin:0}}{style}</style></head><body>{body}</body></html>"
    return (200, "text/html", html.encode())


# A page that paints a full-viewport block whose colour states something it measured.
SIGNAL = "<div id=s style='position:fixed;inset:0;background:rgb(255,0,0)'></div>"


def _signal(script: str) -> tuple[int, str, bytes]:
    """A page turning the block blue when ``script`` (an expression) is true."""
    js = f"<script>if ({script}) document.getElementById('s').style.background='rgb(0,0,255)';</script>"
    return _page(SIGNAL + js)


def _pixel(content: bytes, xy: tuple[int, int] = (10, 10)) -> Any:
    return open_image(content).convert("RGBA").getpixel(xy)


async def _shot(pool: ChromiumPool, **body: Any) -> bytes:
    return (await screenshot(body, browser=pool)).content


async def test_wait_for_selector_waits_for_late_content(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    late = "setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; d.style.cssText = 'position:fixed;inset:0;background:rgb(0,0,255)'; document.body.append(d); }, 2500)"
    http_server.routes["/"] = _page(f"<script>{late}</script>")
    content = await _shot(pool, url=http_server.url("/"), waitForSelector="#late")
    assert _pixel(content)[:3] == BLUE


async def test_wait_for_selector_that_never_appears_is_a_400_naming_it(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    http_server.routes["/"] = _page("<p>nothing</p>")
    with pytest.raises(InvalidRequestError) as info:
        await _shot(pool, url=http_server.url("/"), wait_for_selector="#never")
    assert info.value.errors[0].field == "wait_for_selector"


async def test_hide_selectors_hides_the_element(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    http_server.routes["/"] = _page(SIGNAL, "body{background:rgb(0,200,0)}")
    shown = await _shot(pool, url=http_server.url("/"))
    hidden = await _shot(pool, url=http_server.url("/"), hideSelectors=["#s"])
    assert _pixel(shown)[:3] == RED
    assert _pixel(hidden)[:3] == GREEN


async def test_cookie_banners_on_the_packaged_list_are_hidden(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    assert "#onetrust-consent-sdk" in cookie_banner_selectors()
    banner = "<div id=onetrust-consent-sdk style='position:fixed;inset:0;background:rgb(255,0,0)'>Accept</div>"
    http_server.routes["/"] = _page(banner, "body{background:rgb(0,200,0)}")
    assert _pixel(await _shot(pool, url=http_server.url("/")))[:3] == RED
    blocked = await _shot(pool, url=http_server.url("/"), blockCookieBanners=True)
    assert _pixel(blocked)[:3] == GREEN


async def test_click_selector_clicks_before_the_capture(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    button = "<button id=b onclick=\"document.getElementById('s').style.background='rgb(0,0,255)'\">x</button>"
    http_server.routes["/"] = _page(SIGNAL + button, "#b{position:fixed;z-index:2;bottom:0}")
    assert _pixel(await _shot(pool, url=http_server.url("/"), clickSelector="#b"))[:3] == BLUE
    with pytest.raises(InvalidRequestError) as info:
        await _shot(pool, url=http_server.url("/"), click_selector="#missing")
    assert info.value.errors[0].field == "click_selector"


async def test_scroll_page_triggers_lazy_content(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    http_server.routes["/"] = _page(
        "<div style='height:5000px'></div><script>addEventListener('scroll', () => { if (scrollY > 3000) document.getElementById('s').style.background='rgb(0,0,255)'; });</script>"
        + SIGNAL
    )
    assert _pixel(await _shot(pool, url=http_server.url("/")))[:3] == RED
    assert _pixel(await _shot(pool, url=http_server.url("/"), scrollPage=True))[:3] == BLUE


async def test_styles_and_scripts_are_injected(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    http_server.routes["/"] = _page(SIGNAL)
    styled = await _shot(
        pool, url=http_server.url("/"), styles="#s{background:rgb(0,200,0)!important}"
    )
    assert _pixel(styled)[:3] == GREEN
    scripted = await _shot(
        pool,
        url=http_server.url("/"),
        scripts="document.getElementById('s').style.background='rgb(0,0,255)'",
    )
    assert _pixel(scripted)[:3] == BLUE
    with pytest.raises(InvalidRequestError) as info:
        await _shot(pool, url=http_server.url("/"), scripts="throw new Error('boom')")
    assert info.value.errors[0].field == "scripts"


async def test_headers_and_cookies_reach_the_target(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    seen: dict[str, str] = {}

    def record(handler: BaseHTTPRequestHandler) -> tuple[int, str, bytes]:
        seen.update({k.lower(): v for k, v in handler.headers.items()})
        # Sent as a header to this origin only, never put in the browser's cookie jar
        # (which is per host, not per origin): the page's scripts do not see it.
        return _signal("!document.cookie.includes('session=abc123')")

    http_server.routes["/"] = record
    content = await _shot(
        pool, url=http_server.url("/"), headers={"X-Team": "blue"}, cookies={"session": "abc123"}
    )
    assert seen["x-team"] == "blue"
    assert "session=abc123" in seen["cookie"]
    assert _pixel(content)[:3] == BLUE


async def test_timezone_and_locale_are_what_the_page_sees(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    seen: dict[str, str] = {}

    def record(handler: BaseHTTPRequestHandler) -> tuple[int, str, bytes]:
        seen["lang"] = handler.headers.get("Accept-Language", "")
        # Asia/Tokyo is UTC+9 all year: getTimezoneOffset() is -540.
        return _signal(
            "new Date().getTimezoneOffset() === -540 && navigator.language === 'fr-FR'"
            " && new Intl.NumberFormat().format(1234.5).includes(',5')"
        )

    http_server.routes["/"] = record
    content = await _shot(pool, url=http_server.url("/"), timezone="Asia/Tokyo", locale="fr-FR")
    assert seen["lang"].startswith("fr-FR")
    assert _pixel(content)[:3] == BLUE


async def test_reduced_motion_is_emulated(pool: ChromiumPool, http_server: LocalServer) -> None:
    http_server.routes["/"] = _signal("matchMedia('(prefers-reduced-motion: reduce)').matches")
    assert _pixel(await _shot(pool, url=http_server.url("/")))[:3] == RED
    assert _pixel(await _shot(pool, url=http_server.url("/"), reducedMotion=True))[:3] == BLUE


async def test_omit_background_gives_a_transparent_png(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    http_server.routes["/"] = _page("<p>text</p>")
    assert _pixel(await _shot(pool, url=http_server.url("/")))[3] == 255
    assert _pixel(await _shot(pool, url=http_server.url("/"), omitBackground=True))[3] == 0


async def test_fail_on_status_refuses_naming_url(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    http_server.routes["/gone"] = (404, "text/html", b"<h1>gone</h1>")
    ok = await screenshot({"url": http_server.url("/gone"), "failOnStatus": [500]}, browser=pool)
    assert ok.http_status == 404
    with pytest.raises(InvalidRequestError) as info:
        await _shot(pool, url=http_server.url("/gone"), fail_on_status=["400-499"])
    assert info.value.errors[0].field == "url"
    assert "404" in info.value.errors[0].message


@pytest.mark.parametrize("wait_until", ["load", "domcontentloaded", "networkidle"])
async def test_each_wait_until_captures_the_page(
    pool: ChromiumPool, http_server: LocalServer, wait_until: str
) -> None:
    http_server.routes["/"] = _page(SIGNAL)
    assert _pixel(await _shot(pool, url=http_server.url("/"), waitUntil=wait_until))[:3] == RED


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"wait_until": "idle"}, "wait_until"),
        ({"headers": {"Host": "evil"}}, "headers"),
        ({"headers": {"Cookie": "a=b"}}, "headers"),
        ({"headers": {"bad name": "x"}}, "headers"),
        ({"cookies": {"a": "b;c"}}, "cookies"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"locale": "not a locale"}, "locale"),
        ({"fail_on_status": ["abc"]}, "fail_on_status"),
        ({"hide_selectors": ["a{b}"]}, "hide_selectors"),
        ({"styles": "x" * 50_001}, "styles"),
        ({"scripts": "x" * 50_001}, "scripts"),
    ],
)
def test_invalid_controls_are_refused_naming_the_field(body: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        structure({"url": "https://example.com/", **body}, ScreenshotRequest)
    assert info.value.errors[0].field == field, json.dumps(body)[:80]
