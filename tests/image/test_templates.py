"""Pure tests of the built-in image templates: fragments and theme maths (no browser)."""

from __future__ import annotations

import io
import re
import urllib.parse
from html.parser import HTMLParser

import pytest
from PIL import Image

from renderkit.core.colors import contrast_ratio, mix, parse_color, relative_luminance
from renderkit.image import _templates as it
from renderkit.image._decorations import DECOR, decoration_vars
from renderkit.image._templates import TEMPLATES, image_css, render_fragment, text_direction
from renderkit.image._theme import DEFAULT_BRAND_COLOR, accent_foreground, compute_theme

ALL_FIELDS = {
    "title": "Ship beautiful social images",
    "subtitle": "Templates, fonts and caching handled for you.",
    "body": "Render Open Graph cards from JSON in milliseconds.",
    "tag": "Changelog",
    "cta": "Get started",
    "brand_color": "#0ea5e9",
    "logo_url": "https://cdn.test/logo.png",
    "background": "light",
    "background_color": None,
    "text_color": None,
    "domain": "example.com",
}
VOID = {"img", "br", "hr", "meta", "input"}


class _Tree(HTMLParser):
    """Collects elements with their attributes and whether they contain anything."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[dict] = []
        self.elements: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = {"tag": tag, "attrs": dict(attrs), "content": ""}
        self.elements.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append({"tag": tag, "attrs": dict(attrs), "content": ""})
        if self.stack:
            self.stack[-1]["content"] += f"<{tag}>"

    def handle_endtag(self, tag: str) -> None:
        element = self.stack.pop()
        assert element["tag"] == tag, f"mismatched </{tag}>"
        if self.stack:
            self.stack[-1]["content"] += f"<{tag}>{element['content']}</{tag}>"

    def handle_data(self, data: str) -> None:
        if self.stack:
            self.stack[-1]["content"] += data


def parse(html: str) -> _Tree:
    tree = _Tree()
    tree.feed(html)
    tree.close()
    assert not tree.stack, "unclosed elements"
    return tree


def classes(tree: _Tree) -> set[str]:
    return {c for e in tree.elements for c in (e["attrs"].get("class") or "").split()}


def root(tree: _Tree) -> dict:
    return tree.elements[0]


def style_vars(tree: _Tree) -> dict[str, str]:
    style = root(tree)["attrs"]["style"] or ""
    pairs = (decl.split(":", 1) for decl in style.split(";") if decl.strip())
    return {k.strip(): v.strip() for k, v in pairs}


def hex_rgb(value: str) -> tuple[float, float, float]:
    parsed = parse_color(value)
    assert parsed is not None, value
    return parsed[:3]


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_every_template_renders_a_single_root_with_empty_data(template: str) -> None:
    spec = TEMPLATES[template]
    html = render_fragment(template, {}, width=spec.width, height=spec.height)
    tree = parse(html)
    assert "<html" not in html
    assert "<head" not in html
    assert root(tree)["tag"] == "div"
    assert "rk" in root(tree)["attrs"]["class"].split()
    assert html.strip().endswith("</div>")
    assert "data-fit" not in html
    assert "<img" not in html


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_every_template_shows_each_of_its_fields_when_all_are_given(template: str) -> None:
    spec = TEMPLATES[template]
    html = render_fragment(template, ALL_FIELDS, width=spec.width, height=spec.height)
    parse(html)  # well-formed
    for field in spec.fields - {"logo_url"}:
        assert ALL_FIELDS[field] in html, field
    assert ("logo_url" in spec.fields) == ('data-field="data.logo_url"' in html)
    for field in {"title", "subtitle", "body", "tag", "cta", "domain"} - spec.fields:
        assert ALL_FIELDS[field] not in html, field


def test_og_card_shows_tag_title_subtitle_body_logo_and_domain_but_no_cta() -> None:
    tree = parse(render_fragment("og-card", ALL_FIELDS, width=1200, height=630))
    found = classes(tree)
    assert {"rk-tag", "rk-title", "rk-subtitle", "rk-body", "rk-logo", "rk-domain"} <= found
    assert "rk-cta" not in found


def test_announcement_shows_a_call_to_action_but_no_body_or_domain() -> None:
    tree = parse(render_fragment("announcement", ALL_FIELDS, width=1200, height=400))
    found = classes(tree)
    assert {"rk-tag", "rk-title", "rk-subtitle", "rk-cta", "rk-logo"} <= found
    assert not {"rk-body", "rk-domain"} & found


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_missing_optional_fields_leave_no_empty_elements(template: str) -> None:
    spec = TEMPLATES[template]
    html = render_fragment(template, {"title": "Only a title"}, width=600, height=400)
    tree = parse(html)
    found = classes(tree)
    assert not {"rk-subtitle", "rk-body", "rk-tag", "rk-cta", "rk-domain", "rk-logo"} & found
    assert "rk-head" not in found
    assert "rk-foot" not in found
    empty = [e for e in tree.elements if e["tag"] not in VOID and not e["content"].strip()]
    assert empty == [], spec.name


@pytest.mark.parametrize("value", [None, "", "   "])
def test_blank_fields_count_as_missing(value: str | None) -> None:
    html = render_fragment(
        "social-square", {"title": "Hi", "subtitle": value, "cta": value}, width=1080, height=1080
    )
    assert "rk-subtitle" not in html
    assert "rk-cta" not in html


def test_html_in_data_is_escaped_and_shown_literally() -> None:
    data = {
        "title": "<b>x</b>",
        "subtitle": "<script>alert(1)</script>",
        "domain": 'a" onmouseover="x',
        "logo_url": 'https://e.com/a.png" onerror="alert(1)',
    }
    html = render_fragment("og-card", data, width=1200, height=630)
    assert "<b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html
    assert "<script" not in html
    assert 'onerror="' not in html
    assert 'onmouseover="' not in html
    tree = parse(html)
    title = next(e for e in tree.elements if "rk-title" in (e["attrs"].get("class") or ""))
    assert title["content"] == "<b>x</b>"
    logo = next(e for e in tree.elements if e["tag"] == "img")
    assert logo["attrs"]["src"] == 'https://e.com/a.png" onerror="alert(1)'


def test_logo_is_an_image_that_reports_its_field() -> None:
    html = render_fragment(
        "twitter-card", {"logo_url": "data:image/png;base64,AAAA"}, width=800, height=418
    )
    img = next(e for e in parse(html).elements if e["tag"] == "img")
    assert img["attrs"]["data-field"] == "data.logo_url"
    assert img["attrs"]["src"] == "data:image/png;base64,AAAA"


def test_long_texts_are_marked_to_fit_with_a_pixel_minimum() -> None:
    html = render_fragment("og-card", ALL_FIELDS, width=1200, height=630)
    fits = [e for e in parse(html).elements if "data-fit" in e["attrs"]]
    assert {c for e in fits for c in e["attrs"]["class"].split()} >= {
        "rk-title",
        "rk-subtitle",
        "rk-body",
    }
    for element in fits:
        assert float(element["attrs"]["data-fit-min"]) >= 9


def test_fit_minimums_scale_with_the_render_size() -> None:
    def title_min(width: int, height: int) -> float:
        html = render_fragment("og-card", {"title": "x"}, width=width, height=height)
        return float(re.search(r'data-fit-min="([\d.]+)"', html).group(1))

    assert title_min(600, 315) == pytest.approx(title_min(1200, 630) / 2, abs=0.1)
    assert title_min(2400, 1260) == pytest.approx(title_min(1200, 630) * 2, abs=0.1)


def test_colours_only_reach_css_custom_properties_on_the_root() -> None:
    data = {"brand_color": "rgb(10, 20, 30)", "background_color": "#fff", "text_color": "navy"}
    html = render_fragment("social-square", data, width=1080, height=1080)
    tree = parse(html)
    assert [e for e in tree.elements if "style" in e["attrs"]] == [root(tree)]
    for name in style_vars(tree):
        assert name.startswith("--rk-")
    assert style_vars(tree)["--rk-accent"] == "rgb(10, 20, 30)"


@pytest.mark.parametrize(
    "colour",
    [
        "red; background: url(https://evil.example/x)",
        "url(x.png)",
        "image-set(x 1x)",
        "rgb(1,2,3) url(x)",
        "#fff}",
        "</style>",
        "'red'",
        "re\\d",
    ],
)
def test_a_colour_that_could_escape_its_declaration_is_refused(colour: str) -> None:
    with pytest.raises(ValueError, match="safe"):
        render_fragment("og-card", {"brand_color": colour}, width=1200, height=630)


@pytest.mark.parametrize("colour", ["burlywood", "RGB(1 2 3 / 50%)", "hsla(1, 2%, 3%, .5)"])
def test_every_accepted_colour_form_is_allowed(colour: str) -> None:
    assert compute_theme(brand_color=colour).accent == colour


@pytest.mark.parametrize("template", ["nope", "custom", "ogCard", ""])
def test_an_unknown_template_is_refused(template: str) -> None:
    with pytest.raises((KeyError, ValueError)):
        render_fragment(template, {}, width=1200, height=630)


def test_a_non_positive_size_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        render_fragment("og-card", {}, width=0, height=630)


def test_an_unknown_background_is_refused() -> None:
    with pytest.raises(ValueError, match="background"):
        compute_theme(background="plaid")


def test_accent_foreground_is_white_on_navy() -> None:
    assert accent_foreground("#000080") == "#ffffff"
    assert accent_foreground("navy") == "#ffffff"


def test_accent_foreground_is_black_on_yellow() -> None:
    assert accent_foreground("#ffff00") == "#000000"
    assert accent_foreground("rgb(255 255 0)") == "#000000"


def test_accent_foreground_reaches_the_fragment() -> None:
    html = render_fragment("social-square", {"brand_color": "#ff0"}, width=1080, height=1080)
    assert style_vars(parse(html))["--rk-accent-fg"] == "#000000"


def test_the_default_background_is_dark_with_a_light_text_colour() -> None:
    theme = compute_theme()
    assert theme.tone == "dark"
    assert contrast_ratio(hex_rgb(theme.fg), hex_rgb(theme.bg_solid)) >= 15
    html = render_fragment("og-card", {"title": "x"}, width=1200, height=630)
    assert root(parse(html))["attrs"]["data-bg"] == "dark"


def test_the_default_accent_is_an_indigo_that_takes_white_text() -> None:
    theme = compute_theme()
    assert theme.accent == DEFAULT_BRAND_COLOR
    assert theme.accent_fg == "#ffffff"


@pytest.mark.parametrize("background", ["dark", "light", "gradient"])
@pytest.mark.parametrize(
    "brand", ["#4f46e5", "#facc15", "#22c55e", "#ef4444", "#000000", "#ffffff", "hotpink"]
)
def test_every_theme_keeps_text_readable(background: str, brand: str) -> None:
    theme = compute_theme(background=background, brand_color=brand)
    bg = hex_rgb(theme.bg_solid)
    assert contrast_ratio(hex_rgb(theme.fg), bg) >= 7
    assert contrast_ratio(hex_rgb(theme.muted), bg) >= 4.5
    assert contrast_ratio(hex_rgb(theme.accent_text), bg) >= 4.5
    accent = hex_rgb(theme.accent) if theme.accent.startswith("#") else hex_rgb(brand)
    assert contrast_ratio(hex_rgb(theme.accent_fg), accent) >= 1.9


def test_muted_text_is_quieter_than_the_main_text() -> None:
    for background in ("dark", "light"):
        theme = compute_theme(background=background)
        bg = hex_rgb(theme.bg_solid)
        assert contrast_ratio(hex_rgb(theme.muted), bg) < contrast_ratio(hex_rgb(theme.fg), bg)


def test_light_background_has_dark_text() -> None:
    theme = compute_theme(background="light")
    assert theme.tone == "light"
    assert relative_luminance(hex_rgb(theme.fg)) < 0.05
    assert relative_luminance(hex_rgb(theme.bg_solid)) > 0.85


def test_gradient_background_is_a_gradient_of_the_brand_colour() -> None:
    theme = compute_theme(background="gradient", brand_color="#4f46e5")
    assert "gradient(" in theme.bg
    assert "#4f46e5" in theme.bg


def test_background_color_overrides_the_theme_and_picks_a_readable_text_colour() -> None:
    theme = compute_theme(background="dark", background_color="#fef3c7")
    assert theme.bg == "#fef3c7"
    assert theme.tone == "light"
    assert contrast_ratio(hex_rgb(theme.fg), hex_rgb("#fef3c7")) >= 7


def test_text_color_overrides_the_theme() -> None:
    theme = compute_theme(background="light", text_color="#7c2d12")
    assert theme.fg == "#7c2d12"
    assert contrast_ratio(hex_rgb(theme.muted), hex_rgb(theme.bg_solid)) >= 4.5


def test_overrides_reach_the_fragment() -> None:
    html = render_fragment(
        "og-card",
        {"background_color": "#112233", "text_color": "#eeddcc", "background": "light"},
        width=1200,
        height=630,
    )
    variables = style_vars(parse(html))
    assert variables["--rk-bg"] == "#112233"
    assert variables["--rk-fg"] == "#eeddcc"


def test_unparseable_colours_are_passed_through_with_sensible_defaults() -> None:
    theme = compute_theme(background="light", background_color="transparent", text_color="red")
    assert theme.bg == "transparent"
    assert theme.tone == "light"
    assert theme.fg == "red"
    theme = compute_theme(brand_color="transparent")
    assert theme.accent == "transparent"
    assert theme.accent_fg == "#ffffff"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("#abc", (0xAA, 0xBB, 0xCC, 255)),
        ("#aabbccdd", (0xAA, 0xBB, 0xCC, 0xDD)),
        ("#1A2B3C", (0x1A, 0x2B, 0x3C, 255)),
        ("navy", (0, 0, 128, 255)),
        ("RebeccaPurple", (0x66, 0x33, 0x99, 255)),
        ("rgb(255, 0, 128)", (255, 0, 128, 255)),
        ("rgba(255,0,128,0.5)", (255, 0, 128, 127.5)),
        ("rgb(100% 0% 50% / 50%)", (255, 0, 127.5, 127.5)),
        ("hsl(0, 100%, 50%)", (255, 0, 0, 255)),
        ("hsla(120deg 100% 25% / 1)", (0, 127.5, 0, 255)),
    ],
)
def test_parse_color_understands_hex_named_and_functional_forms(
    value: str, expected: tuple[float, float, float, float]
) -> None:
    parsed = parse_color(value)
    assert parsed is not None
    assert [round(c * 255, 1) for c in parsed] == pytest.approx(expected, abs=0.6)


@pytest.mark.parametrize("value", ["transparent", "currentcolor", "#12", "rgb(1,2)", "blurple"])
def test_parse_color_gives_none_for_what_it_cannot_compute(value: str) -> None:
    assert parse_color(value) is None


def test_contrast_ratio_matches_wcag_extremes() -> None:
    assert contrast_ratio((0, 0, 0), (1, 1, 1)) == pytest.approx(21)
    assert contrast_ratio((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)) == pytest.approx(1)


def test_right_to_left_text_turns_the_card_right_to_left() -> None:
    assert text_direction("صور اجتماعية") == "rtl"
    assert text_direction("123 שלום") == "rtl"
    assert text_direction("Hello مرحبا") == "ltr"
    html = render_fragment("og-card", {"title": "صور اجتماعية جميلة"}, width=1200, height=630)
    assert root(parse(html))["attrs"]["dir"] == "rtl"


def test_joining_and_cjk_scripts_are_not_letter_spaced() -> None:
    html = render_fragment(
        "og-card",
        {"title": "美しいソーシャル画像", "subtitle": "صور اجتماعية", "body": "Latin"},
        width=1200,
        height=630,
    )
    tree = parse(html)
    by_class = {e["attrs"]["class"].split()[0]: e["attrs"] for e in tree.elements[1:]}
    assert "rk-natural" in by_class["rk-title"]["class"]
    assert by_class["rk-title"]["lang"] == "ja"
    assert "rk-natural" in by_class["rk-subtitle"]["class"]
    assert "rk-natural" not in by_class["rk-body"]["class"]
    assert "lang" not in by_class["rk-body"]


def test_emoji_and_other_scripts_pass_through_untouched() -> None:
    title = "Launch day 🚀🎉 — Красивые картинки"
    html = render_fragment("twitter-card", {"title": title}, width=800, height=418)
    assert title in html


def test_image_css_is_scoped_self_contained_and_uses_the_font_stack() -> None:
    css = image_css()
    assert css is image_css()  # read once
    assert css == it.IMAGE_CSS
    assert '"Inter", "Noto Sans", "Noto Sans CJK SC", "Noto Color Emoji", sans-serif' in css
    assert "@import" not in css
    assert not re.search(r"url\(\s*['\"]?(?:https?:|//)", css)
    for template in ("rk-og", "rk-sq", "rk-tw", "rk-an"):
        assert f"#rk-root .{template}" in css
    body = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    selectors = re.findall(r"(?:^|})\s*([^{}@]+?)\s*\{", body)
    for group in selectors:
        for selector in re.split(r",(?![^()]*\))", group):
            selector = selector.strip()
            if selector and not re.fullmatch(r"(?:from|to|\d+%)", selector):
                assert selector.startswith(("#rk-root", "html", "body")), selector


def test_the_jinja_environment_is_built_once_and_strict() -> None:
    env = it._environment()
    assert env is it._environment()
    assert env.autoescape is True
    assert env.undefined.__name__ == "StrictUndefined"


# --------------------------------------------------------------------------------------------
# Decorations: small PNG tiles, hairlines with their fade baked in, no masks


def decoration_images(variables: dict[str, str]) -> list[Image.Image]:
    urls = re.findall(r"url\(data:image/png,([^)\s]+)\)", " ".join(variables.values()))
    images = []
    for data in urls:
        image = Image.open(io.BytesIO(urllib.parse.unquote_to_bytes(data)))
        image.load()
        images.append(image)
    return images


@pytest.mark.parametrize("background", ["dark", "light", "gradient"])
@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_decorations_are_small_tiles_that_chromium_stretches(
    template: str, background: str
) -> None:
    spec = TEMPLATES[template]
    html = render_fragment(
        template, {"title": "x", "background": background}, width=spec.width, height=spec.height
    )
    variables = style_vars(parse(html))
    images = decoration_images(variables)
    assert images
    assert all(image.format == "PNG" and max(image.size) <= 48 for image in images)
    if background == "gradient":
        # The mesh is one stretched tile (no dithered CSS gradients), over its own colour.
        assert variables["--rk-canvas"].startswith("url(data:image/png,")
        assert variables["--rk-canvas"].endswith(compute_theme(background="gradient").bg_solid)
    else:
        assert variables["--rk-canvas"] == variables["--rk-bg"]
        assert "data:image/png," in variables["--rk-decor"]
    if template == "social-square":
        # The dot pattern sits in a box that the tiles fade out.
        assert {"--rk-grid-x", "--rk-grid-y", "--rk-grid-w", "--rk-grid-h"} <= set(variables)
    else:
        # One 1px-wide gradient per hairline, fading along its length.
        layers = [layer for layer in variables["--rk-grid"].split("no-repeat") if layer.strip()]
        assert len(layers) > 10
        for layer in layers:
            assert "linear-gradient(to " in layer
            assert re.search(r"/ (?:1px [\d.]+px|[\d.]+px 1px) $", layer), layer


def test_glow_tiles_hold_the_accent_at_the_strength_the_theme_asks_for() -> None:
    html = render_fragment("og-card", {"background": "dark"}, width=1200, height=630)
    variables = style_vars(parse(html))
    # The accent glow sits in the top-right corner: its tile is the one placed at 100% 0%.
    tiles = re.findall(
        r"url\(data:image/png,([^)\s]+)\) ([\d.]+%) ([\d.]+%)", variables["--rk-decor"]
    )
    data = next(d for d, x, y in tiles if (x, y) == ("100%", "0%"))
    image = Image.open(io.BytesIO(urllib.parse.unquote_to_bytes(data))).convert("RGBA")
    assert image.getextrema()[3] == (255, 255)  # painted over the background: opaque
    background = hex_rgb(variables["--rk-bg"])
    accent = hex_rgb("#4f46e5")
    # A texel in from the peak, the accent at --rk-glow-alpha over the background...
    peak = mix(background, accent, 0.42)
    corner = image.getpixel((image.width - 1, 0))
    assert [c / 255 for c in corner[:3]] == pytest.approx(peak, abs=0.04)
    # ...fading out to the background by the far corner.
    assert image.getpixel((0, image.height - 1))[:3] == tuple(round(c * 255) for c in background)


def test_a_translucent_background_keeps_the_glows_but_has_nothing_to_fade_dots_into() -> None:
    html = render_fragment(
        "social-square", {"background_color": "transparent"}, width=1080, height=1080
    )
    variables = style_vars(parse(html))
    assert variables["--rk-canvas"] == "transparent"
    assert "--rk-grid-w" not in variables
    assert "data:image/png," in variables["--rk-decor"]
    html = render_fragment("og-card", {"background_color": "transparent"}, width=1200, height=630)
    assert "--rk-grid" in style_vars(parse(html))  # hairlines fade by themselves


def test_the_gradient_background_has_no_glows_on_top() -> None:
    html = render_fragment("og-card", {"background": "gradient"}, width=1200, height=630)
    assert "--rk-decor" not in style_vars(parse(html))


@pytest.mark.parametrize(("width", "height"), [(40, 21), (1200, 630), (4000, 600), (630, 1200)])
def test_decorations_stay_small_at_any_size(width: int, height: int) -> None:
    for template in TEMPLATES:
        for background in ("dark", "gradient"):
            html = render_fragment(template, {"background": background}, width=width, height=height)
            variables = style_vars(parse(html))
            assert all(max(image.size) <= 48 for image in decoration_images(variables))
            assert len(html) < 32_000


def test_decorations_are_drawn_once_per_theme_and_size() -> None:
    render_fragment("twitter-card", {"brand_color": "#123456"}, width=800, height=418)
    before = decoration_vars.cache_info().hits
    html = render_fragment("twitter-card", {"brand_color": "#123456"}, width=800, height=418)
    assert decoration_vars.cache_info().hits == before + 1
    assert "data:image/png," in html


def test_the_stylesheet_paints_no_masks_and_no_card_sized_css_gradients() -> None:
    body = re.sub(r"/\*.*?\*/", "", image_css(), flags=re.S)
    assert "mask" not in body
    assert "filter" not in body
    # Soft gradients are tiles from Python; the only CSS gradients left are thin accent bars
    # and the dot pattern's tiny tile.
    assert "radial-gradient(ellipse" not in body
    assert "radial-gradient(circle at" not in body


@pytest.mark.parametrize(
    ("template", "css_class"),
    [
        ("og-card", "rk-og"),
        ("social-square", "rk-sq"),
        ("twitter-card", "rk-tw"),
        ("announcement", "rk-an"),
    ],
)
def test_the_decorations_size_their_grid_like_the_stylesheet(template: str, css_class: str) -> None:
    # The hairlines are laid out in Python, so it must know how the stylesheet sets --u.
    css = image_css()
    w, h, threshold, op, alt_w, alt_h = DECOR[template].unit
    natural = (
        rf"#rk-root \.{css_class} \{{\s*--u: min\(calc\(100cqw / {w:g}\), calc\(100cqh / {h:g}\)\);"
    )
    assert re.search(natural, css)
    alternative = (
        rf"@container \(aspect-ratio {re.escape(op)} {threshold:g}\) \{{"
        rf"\s*#rk-root \.{css_class} \{{"
        rf"\s*--u: min\(calc\(100cqw / {alt_w:g}\), calc\(100cqh / {alt_h:g}\)\);"
    )
    assert re.search(alternative, css)
    assert DECOR[template].u(w, h) == pytest.approx(1)


@pytest.mark.parametrize(
    ("background", "brand"),
    [("dark", "#111111"), ("dark", "#1e1b4b"), ("light", "#fafafa"), ("light", "#fde047")],
)
def test_brand_shapes_keep_three_to_one_on_a_background_like_the_brand(
    background: str, brand: str
) -> None:
    theme = compute_theme(background=background, brand_color=brand)
    bg, accent, accent_2 = (parse_color(c) for c in (theme.bg_solid, theme.accent, theme.accent_2))
    assert bg is not None and accent is not None and accent_2 is not None
    assert contrast_ratio(accent[:3], bg[:3]) >= 3
    assert contrast_ratio(accent_2[:3], bg[:3]) >= 3
    # Text on the (moved) button stays readable, and the glows keep the brand as asked.
    fg = parse_color(theme.accent_fg)
    assert fg is not None and contrast_ratio(fg[:3], accent[:3]) >= 4.5
    assert theme.glow == brand


def test_a_brand_with_enough_contrast_is_drawn_exactly_as_given() -> None:
    assert compute_theme(background="dark", brand_color="#ec4899").accent == "#ec4899"
    assert compute_theme(background="light", brand_color="#4f46e5").accent == "#4f46e5"


def test_cjk_text_takes_the_card_language_and_marks_phrase_breaks_only_where_it_wraps() -> None:
    # A kanji-only title is Japanese when the card's other text has kana.
    data = {
        "title": "東京都現代美術館",
        "subtitle": "春の特別展のお知らせ",
        "tag": "お知らせです",
        "cta": "今すぐ予約する",
    }
    tree = parse(render_fragment("social-square", data, width=1080, height=1080))
    by_class = {e["attrs"]["class"].split()[0]: e for e in tree.elements if e["attrs"].get("class")}
    for name in ("rk-title", "rk-subtitle", "rk-tag", "rk-cta"):
        assert by_class[name]["attrs"]["lang"] == "ja", name
    subtitle = by_class["rk-subtitle"]["content"]
    assert subtitle.replace("\u200b", "") == "春の特別展のお知らせ"
    assert subtitle.count("\u200b") >= 2  # 春の|特別展の|お知らせ
    # One-line pieces (tag, button) never wrap: nothing to mark.
    assert "\u200b" not in by_class["rk-tag"]["content"]
    assert "\u200b" not in by_class["rk-cta"]["content"]


def test_korean_keeps_its_words_by_their_spaces_and_latin_text_is_left_alone() -> None:
    korean = "빠른 렌더링 서비스를 만드는 방법"
    tree = parse(render_fragment("og-card", {"title": korean}, width=1200, height=630))
    title = next(e for e in tree.elements if "rk-title" in e["attrs"].get("class", ""))
    assert title["attrs"]["lang"] == "ko"
    assert title["content"] == korean
    latin = render_fragment("og-card", {"title": "Hello world"}, width=1200, height=630)
    assert "\u200b" not in latin and "lang=" not in latin
