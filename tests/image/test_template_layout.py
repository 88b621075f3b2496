"""The built-in templates' layout and colours, measured in a real Chromium: element boxes from
the DOM, colours from the pixels of the same page (CTA ellipsis, growing titles, brand-colour
contrast, the announcement's balance)."""

from __future__ import annotations

import base64
import io
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from PIL import Image

from renderkit.browser import ChromiumPool
from renderkit.browser._pool import _shell_document
from renderkit.core.colors import contrast_ratio
from renderkit.demo import IMAGE_SAMPLES
from renderkit.image._render import image_shell
from renderkit.image._templates import TEMPLATES, render_fragment
from tests.conftest import png_bytes

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

# The demo cards (as `renderkit demo` draws them), which the edge cases below vary.
_DEMO: dict[str, dict[str, str]] = {
    name: IMAGE_SAMPLES[name]["data"]
    for name in ("og-card", "social-square", "twitter-card", "announcement")
}
LONG_CTA = "Register now for the free live workshop and save your seat today"

# Each element's box, its font size, and for text the box of the text itself (a Range), which
# is what the eye sees as the block's width; the element spans the whole grid column.
_MEASURE = """(selectors) => {
  const out = {};
  for (const sel of selectors) {
    const el = document.querySelector('#rk-root ' + sel);
    if (!el) continue;
    const r = el.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(el);
    const t = range.getBoundingClientRect();
    const style = getComputedStyle(el);
    out[sel] = {
      box: [r.left, r.top, r.right, r.bottom],
      text: [t.left, t.top, t.right, t.bottom],
      fontSize: parseFloat(style.fontSize),
      lineHeight: parseFloat(style.lineHeight),
      clipped: el.scrollWidth > el.clientWidth + 1,
      textOverflow: style.textOverflow,
    };
  }
  return out;
}"""


@dataclass(frozen=True)
class Shot:
    """One rendered card: element measurements by selector and the screenshot (1 CSS px = 1 px)."""

    boxes: Mapping[str, Mapping[str, Any]]
    image: Image.Image
    width: int
    height: int

    def box(self, selector: str, key: str = "box") -> tuple[float, float, float, float]:
        left, top, right, bottom = self.boxes[selector][key]
        return left, top, right, bottom

    def rgb(self, x: float, y: float) -> tuple[float, float, float]:
        pixel = self.image.getpixel((round(x), round(y)))
        assert isinstance(pixel, tuple)
        return pixel[0] / 255, pixel[1] / 255, pixel[2] / 255


Shoot = Callable[..., Awaitable[Shot]]
"""``shoot(template, data, *selectors)``: render in the warm shell and measure."""


@pytest.fixture
async def shoot(pool: ChromiumPool) -> AsyncIterator[Shoot]:
    """Renders a template into the warm shell (as render_image does) and measures it."""
    browser = pool._browser
    assert browser is not None
    context = await browser.new_context()
    page = await context.new_page()
    await page.set_content(_shell_document(image_shell()))

    async def run(template: str, data: Mapping[str, str], *selectors: str) -> Shot:
        spec = TEMPLATES[template]
        fragment = render_fragment(template, data, width=spec.width, height=spec.height)
        await page.set_viewport_size({"width": spec.width, "height": spec.height})
        outcome = await page.evaluate(
            "([h, w, hh]) => window.__rk.render(h, w, hh, 2000)",
            [fragment, spec.width, spec.height],
        )
        assert outcome["ok"], outcome
        boxes = await page.evaluate(_MEASURE, list(selectors))
        image = Image.open(io.BytesIO(await page.screenshot())).convert("RGB")
        return Shot(boxes, image, spec.width, spec.height)

    try:
        yield run
    finally:
        await context.close()


@pytest.mark.parametrize("template", ["social-square", "announcement"])
async def test_long_cta_is_ellipsised_and_its_glyphs_keep_inside_the_button(
    shoot: Shoot, template: str
) -> None:
    shot = await shoot(template, {**_DEMO[template], "cta": LONG_CTA}, ".rk-cta", ".rk-cta-label")
    label = shot.boxes[".rk-cta-label"]
    assert label["clipped"] and label["textOverflow"] == "ellipsis"
    left, top, right, bottom = shot.box(".rk-cta")
    assert right <= shot.width and bottom <= shot.height
    # Ink (the button's text colour, dark or light, far from its fill) along the middle of the
    # button must stop short of its end by the padding: a cut-off label reached the edge.
    fill = shot.rgb(left + 12, (top + bottom) / 2)
    y = round((top + bottom) / 2)
    ink = [
        x
        for x in range(round(left), round(right))
        if contrast_ratio(shot.rgb(x, y), fill) > 2.5 and x > left + 12
    ]
    em = shot.boxes[".rk-cta"]["fontSize"]
    assert ink, "no text drawn in the button"
    assert max(ink) <= right - 0.8 * em


@pytest.mark.parametrize(
    ("template", "base"),
    [("og-card", 76), ("social-square", 96), ("twitter-card", 48), ("announcement", 60)],
)
async def test_two_word_title_grows_to_fill_the_card_and_stays_inside(
    shoot: Shoot, template: str, base: float
) -> None:
    short = await shoot(
        template,
        {**_DEMO[template], "title": "Hello world"},
        ".rk-title",
        ".rk-main",
        ".rk-subtitle",
    )
    title = short.boxes[".rk-title"]
    assert title["fontSize"] >= 1.3 * base
    left, top, right, bottom = short.box(".rk-title", "text")
    m_left, m_top, m_right, m_bottom = short.box(".rk-main")
    assert m_left - 1 <= left and right <= m_right + 1
    assert m_top - 1 <= top and bottom <= m_bottom + 1
    # The subtitle beside it is not squeezed for it.
    assert not short.boxes[".rk-subtitle"]["clipped"]


async def test_short_title_covers_far_more_of_the_og_card_than_its_base_size(shoot: Shoot) -> None:
    shot = await shoot("og-card", {**_DEMO["og-card"], "title": "Hello world"}, ".rk-title")
    left, top, right, bottom = shot.box(".rk-title", "text")
    # At the old fixed 76px the text box was about 400x82 px (5% of the card).
    assert (right - left) * (bottom - top) >= 0.09 * shot.width * shot.height


async def test_growing_title_never_breaks_a_long_word(shoot: Shoot) -> None:
    # Fits one line at the base 76px, not at the 120px the title may grow to.
    data = {**_DEMO["og-card"], "title": "Internationalisation"}
    shot = await shoot("og-card", data, ".rk-title")
    title = shot.boxes[".rk-title"]
    _, top, _, bottom = shot.box(".rk-title", "text")
    assert bottom - top < 1.5 * title["lineHeight"]


@pytest.mark.parametrize(
    ("background", "brand"), [("dark", "#111111"), ("light", "#fafafa"), ("gradient", "#111111")]
)
@pytest.mark.parametrize("template", ["social-square", "announcement"])
async def test_brand_colour_on_a_background_like_it_still_shows_tag_and_cta(
    shoot: Shoot, template: str, background: str, brand: str
) -> None:
    data = {**_DEMO[template], "background": background, "brand_color": brand}
    shot = await shoot(template, data, ".rk-cta", ".rk-tag")
    # The CTA button's fill against the card beside it, past the reach of its soft shadow.
    left, top, _, bottom = shot.box(".rk-cta")
    em = shot.boxes[".rk-cta"]["fontSize"]
    middle = (top + bottom) / 2
    card = shot.rgb(left - 1.5 * em, middle)
    assert contrast_ratio(shot.rgb(left + 8, middle), card) >= 3
    # The tag's dot (0.9em in, 0.5em wide) against the card beside the tag.
    left, top, _, bottom = shot.box(".rk-tag")
    em = shot.boxes[".rk-tag"]["fontSize"]
    dot = shot.rgb(left + 1.15 * em, (top + bottom) / 2)
    assert contrast_ratio(dot, shot.rgb(left - 6, (top + bottom) / 2)) >= 3


async def test_og_card_accent_bar_shows_on_a_dark_card_in_a_black_brand(shoot: Shoot) -> None:
    data = {**_DEMO["og-card"], "background": "dark", "brand_color": "#111111"}
    shot = await shoot("og-card", data)
    assert contrast_ratio(shot.rgb(40, 2), shot.rgb(40, 24)) >= 3


async def test_announcement_title_uses_most_of_the_banner_width(shoot: Shoot) -> None:
    shot = await shoot("announcement", _DEMO["announcement"], ".rk-title", ".rk-cta")
    left, _, right, _ = shot.box(".rk-title", "text")
    assert (right - left) / shot.width >= 0.5
    assert right < shot.box(".rk-cta")[0]


async def test_announcement_logo_is_a_mark_not_the_subject(shoot: Shoot) -> None:
    square = (
        "data:image/png;base64," + base64.b64encode(png_bytes((400, 400), (220, 38, 38))).decode()
    )
    data = {**_DEMO["announcement"], "background": "light", "logo_url": square}
    shot = await shoot("announcement", data, ".rk-logo")
    left, top, right, bottom = shot.box(".rk-logo")
    assert bottom - top <= 0.17 * shot.height
    assert right - left <= 0.14 * shot.width
