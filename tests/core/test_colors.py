"""The one colour module: parsing, WCAG maths, and the templates agreeing through it."""

from __future__ import annotations

import pytest

from renderkit.core.colors import (
    BLACK,
    WHITE,
    better_of_black_and_white,
    contrast_ratio,
    mix,
    opaque_rgb,
    parse_color,
    readable_on,
    to_hex,
)
from renderkit.core.validators import is_css_color
from renderkit.image._theme import accent_foreground
from renderkit.pdf._templates import brand_palette


@pytest.mark.parametrize("value", ["#abc", "#abcd", "#aabbcc", "#aabbccdd", "#AbCdEf"])
def test_every_hex_form_the_validator_accepts_parses_to_a_colour(value: str) -> None:
    assert is_css_color(value)
    assert parse_color(value) is not None


@pytest.mark.parametrize("value", ["#ab", "#abcde", "#aabbccd", "#gggggg", "abc"])
def test_malformed_hex_is_refused_by_the_validator_and_the_parser_alike(value: str) -> None:
    assert not is_css_color(value)
    assert parse_color(value) is None


def test_white_and_black_have_the_maximum_contrast() -> None:
    assert contrast_ratio(WHITE, BLACK) == pytest.approx(21)
    assert contrast_ratio(BLACK, WHITE) == pytest.approx(21)
    assert contrast_ratio(WHITE, WHITE) == pytest.approx(1)


def test_translucent_colours_are_not_opaque() -> None:
    assert opaque_rgb("#ff000080") is None
    assert opaque_rgb("rgb(255 0 0 / 50%)") is None
    assert opaque_rgb("red") == (1.0, 0.0, 0.0)
    assert opaque_rgb(None) is None


def test_hex_output_clamps_and_rounds_each_channel() -> None:
    assert to_hex((1.2, -0.1, 0.5)) == "#ff0080"
    assert to_hex(WHITE, 0) == "#ffffff00"
    assert to_hex(mix(BLACK, WHITE, 0.5)) == "#808080"


def test_readable_on_stops_at_the_first_step_that_reaches_the_target() -> None:
    light_blue = (0.6, 0.8, 1.0)
    steps = [mix(light_blue, BLACK, k / 20) for k in range(21)]
    first = next(k for k, c in enumerate(steps) if contrast_ratio(c, WHITE) >= 4.5)
    assert first > 0
    assert readable_on(light_blue, (WHITE,), BLACK, 4.5) == steps[first]
    assert readable_on(BLACK, (WHITE,), BLACK, 4.5) == BLACK  # already readable: unchanged


def test_an_unreachable_target_gives_the_colour_moved_towards() -> None:
    assert readable_on((0.5, 0.5, 0.5), (WHITE, BLACK), BLACK, 30) == BLACK


@pytest.mark.parametrize("brand", ["#facc15", "#0ea5e9", "#4f46e5", "#111827", "#22c55e"])
def test_image_and_pdf_templates_pick_the_same_foreground_for_a_brand_fill(brand: str) -> None:
    rgb = opaque_rgb(brand)
    assert rgb is not None
    expected = to_hex(better_of_black_and_white(rgb))
    assert accent_foreground(brand) == expected
    assert brand_palette(brand)["--rk-brand-fg"] == expected
