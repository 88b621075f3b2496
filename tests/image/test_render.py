"""render_image through a real Chromium."""

from __future__ import annotations

import time

import pytest

from renderkit import ImageResult, InvalidRequestError, render_image
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser._pool import _shell_document
from renderkit.image._render import image_shell
from tests._server import LocalServer
from tests.conftest import open_image, png_bytes

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

LONG_TITLE = ("An extraordinarily long headline that keeps going " * 8).strip()


@pytest.mark.parametrize(
    ("template", "size"),
    [
        ("og-card", (2400, 1260)),
        ("ogCard", (2400, 1260)),
        ("social-square", (2160, 2160)),
        ("twitter-card", (1600, 836)),
        ("announcement", (2400, 800)),
        ("announcementBanner", (2400, 800)),
    ],
)
async def test_every_template_renders_at_twice_its_size(
    pool: ChromiumPool, template: str, size: tuple[int, int]
) -> None:
    data = {"title": "Hello renderkit", "subtitle": "Sub", "tag": "New", "cta": "Go"}
    result = await render_image({"template": template, "data": data}, browser=pool)
    image = open_image(result.content)
    assert image.format == "PNG"
    assert image.size == size == (result.width, result.height)
    # A designed card, not a blank page: many distinct colours (text antialiasing, accents).
    assert len(image.convert("RGB").getcolors(maxcolors=1_000_000) or []) > 50


@pytest.mark.parametrize(("fmt", "pil"), [("jpeg", "JPEG"), ("webp", "WEBP"), ("png", "PNG")])
async def test_output_format_is_what_was_asked(pool: ChromiumPool, fmt: str, pil: str) -> None:
    result = await render_image(
        {"template": "twitter-card", "format": fmt, "data": {"title": "Formats"}}, browser=pool
    )
    assert open_image(result.content).format == pil
    assert result.content_type == f"image/{fmt}"


async def test_lower_quality_gives_a_smaller_jpeg(pool: ChromiumPool) -> None:
    body = {"template": "og-card", "format": "jpeg", "data": {"title": "Quality"}}
    low = await render_image({**body, "quality": 10}, browser=pool)
    high = await render_image({**body, "quality": 95}, browser=pool)
    assert low.size_bytes < high.size_bytes / 2


async def test_size_override_and_scale_one(pool: ChromiumPool) -> None:
    result = await render_image(
        {
            "template": "og-card",
            "width": 640,
            "height": 480,
            "scale": 1,
            "data": {"title": "Resized"},
        },
        browser=pool,
    )
    assert open_image(result.content).size == (640, 480)


async def test_custom_html_renders_as_given(pool: ChromiumPool) -> None:
    html = "<html><body style='margin:0;background:rgb(0,0,255)'><h1>Custom</h1></body></html>"
    result = await render_image(
        {"template": "custom", "html": html, "width": 400, "height": 300}, browser=pool
    )
    image = open_image(result.content).convert("RGB")
    assert image.size == (800, 600)
    assert image.getpixel((790, 590)) == (0, 0, 255)


async def test_theme_background_and_overrides_change_the_pixels(pool: ChromiumPool) -> None:
    async def dominant(data: dict) -> tuple[int, int, int]:
        result = await render_image({"template": "og-card", "scale": 1, "data": data}, browser=pool)
        colors = open_image(result.content).convert("RGB").getcolors(maxcolors=1_000_000)
        return max(colors)[1]

    dark = await dominant({"title": "x", "background": "dark"})
    light = await dominant({"title": "x", "background": "light"})
    forced = await dominant({"title": "x", "background_color": "#ff0000"})
    assert sum(dark) < sum(light)
    assert forced[0] > 200 and forced[1] < 60 and forced[2] < 60


async def test_logo_from_a_url_is_drawn(pool: ChromiumPool, http_server: LocalServer) -> None:
    http_server.routes["/logo.png"] = (200, "image/png", png_bytes((64, 64), (0, 255, 0)))
    body = {"template": "og-card", "scale": 1, "data": {"title": "Logo"}}
    without = await render_image(body, browser=pool)
    body["data"] = {"title": "Logo", "logo_url": http_server.url("/logo.png")}
    with_logo = await render_image(body, browser=pool)
    assert "/logo.png" in http_server.hits
    colors = open_image(with_logo.content).convert("RGB").getcolors(maxcolors=1_000_000)
    greens = sum(n for n, (r, g, b) in colors if g > 200 and r < 60 and b < 60)
    assert greens > 200
    assert with_logo.content != without.content


async def test_missing_logo_names_the_field_and_pool_stays_healthy(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    body = {"template": "og-card", "data": {"title": "x", "logo_url": http_server.url("/404")}}
    with pytest.raises(InvalidRequestError) as info:
        await render_image(body, browser=pool)
    assert [e.field for e in info.value.errors] == ["data.logo_url"]
    ok = await render_image({"template": "og-card", "data": {"title": "after"}}, browser=pool)
    assert ok.width == 2400


async def test_unreachable_logo_fails_within_the_image_timeout(http_server: LocalServer) -> None:
    def hang(_handler: object) -> None:
        http_server.release.wait(10)
        return None

    http_server.routes["/slow.png"] = hang
    config = BrowserConfig(slots=1, image_timeout=1.0, allow_private_network=True)
    async with ChromiumPool(config) as pool:
        started = time.monotonic()
        with pytest.raises(InvalidRequestError) as info:
            await render_image(
                {
                    "template": "og-card",
                    "data": {"title": "x", "logo_url": http_server.url("/slow.png")},
                },
                browser=pool,
            )
        assert time.monotonic() - started < 5
        assert info.value.errors[0].field == "data.logo_url"
        ok = await render_image({"template": "og-card", "data": {"title": "y"}}, browser=pool)
        assert isinstance(ok, ImageResult)


async def test_custom_html_cannot_reach_private_addresses_by_default(
    http_server: LocalServer,
) -> None:
    http_server.routes["/secret"] = (200, "text/plain", b"secret")
    html = (
        f"<html><body><img src='{http_server.url('/secret')}'>"
        f"<script>fetch('{http_server.url('/secret')}')</script></body></html>"
    )
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        result = await render_image({"template": "custom", "html": html}, browser=pool)
    assert result.width == 2400
    assert http_server.hits == []


@pytest.mark.parametrize("template", ["og-card", "social-square", "twitter-card", "announcement"])
async def test_long_text_shrinks_to_fit_inside_the_card(pool: ChromiumPool, template: str) -> None:
    """Checks the layout itself: every fitted element ends up inside its box and the card."""
    from renderkit.image._templates import render_fragment

    data = {
        "title": LONG_TITLE,
        "subtitle": LONG_TITLE,
        "body": LONG_TITLE,
        "tag": "Tag",
        "cta": "Call to action",
        "domain": "example.com",
    }
    browser = pool._browser
    assert browser is not None
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.set_content(_shell_document(image_shell()))
        from renderkit.image._models import resolve_image_template

        spec = resolve_image_template(template)
        fragment = render_fragment(template, data, width=spec.width, height=spec.height)
        await page.set_viewport_size({"width": spec.width, "height": spec.height})
        outcome = await page.evaluate(
            "([h, w, hh]) => window.__rk.render(h, w, hh, 1000)",
            [fragment, spec.width, spec.height],
        )
        assert outcome["ok"]
        problems = await page.evaluate(
            """() => {
              const root = document.getElementById('rk-root').getBoundingClientRect();
              const bad = [];
              for (const el of document.querySelectorAll('#rk-root *')) {
                const r = el.getBoundingClientRect();
                if (r.width === 0 || r.height === 0) continue;
                if (r.right > root.right + 1 || r.bottom > root.bottom + 1) bad.push(el.className);
              }
              for (const el of document.querySelectorAll('[data-fit]')) {
                // Text that still overflows at the minimum size must be clamped, not spill.
                const style = getComputedStyle(el);
                const clipped = style.overflow === 'hidden' && style.webkitLineClamp !== 'none';
                if (el.scrollHeight > el.clientHeight + 2 && !clipped) bad.push(el.className);
              }
              return bad;
            }"""
        )
        assert problems == []
        sizes = await page.evaluate(
            "() => [...document.querySelectorAll('[data-fit]')]"
            ".map(e => parseFloat(getComputedStyle(e).fontSize))"
        )
        assert sizes and all(size >= 10 for size in sizes)
    finally:
        await context.close()
