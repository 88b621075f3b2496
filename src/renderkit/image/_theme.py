"""Theme and colour choices of the built-in image templates.

:func:`compute_theme` turns a request's ``background``, ``brand_color``, ``background_color``
and ``text_color`` into a :class:`Theme`: every colour of the card, chosen so text keeps its
WCAG contrast on whatever it is drawn over. The colour maths itself is
:mod:`renderkit.core.colors`.

Colours are validated upstream; they are still only ever written into CSS custom properties
inside a ``style`` attribute, through Jinja's autoescape, and :func:`compute_theme` refuses
anything containing characters that could end a CSS declaration.
"""

from __future__ import annotations

import colorsys
import re
from dataclasses import dataclass
from typing import Literal

from renderkit.core.colors import (
    BLACK,
    RGB,
    WHITE,
    better_of_black_and_white,
    contrast_ratio,
    mix,
    opaque_rgb,
    readable_on,
    relative_luminance,
    to_hex,
)
from renderkit.image._paint import GradientMesh

__all__ = [
    "BACKGROUNDS",
    "DEFAULT_BRAND_COLOR",
    "Theme",
    "accent_foreground",
    "companion_hue",
    "compute_theme",
]

DEFAULT_BRAND_COLOR = "#4f46e5"
BACKGROUNDS = ("dark", "light", "gradient")

_INK: RGB = (0x0A / 255, 0x0A / 255, 0x0F / 255)  # near-black text on light backgrounds
_PAPER: RGB = (0xFA / 255, 0xFA / 255, 0xFC / 255)  # near-white text on dark backgrounds
_NON_TEXT_CONTRAST = 3.0  # WCAG 2 SC 1.4.11, for the shapes drawn in the brand colour

# Characters that can appear in any colour the validator accepts; anything else (";", "{",
# quotes, backslashes, ":") is refused outright, as is any function but rgb()/hsl().
_SAFE_COLOR = re.compile(r"[#a-zA-Z0-9(),.%/\s+-]{1,64}")
_CSS_FUNCTION = re.compile(r"([a-zA-Z-]*)\s*\(")
_COLOR_FUNCTIONS = frozenset({"rgb", "rgba", "hsl", "hsla"})


def _check_safe(value: str, field: str) -> str:
    value = value.strip()
    functions = [name.lower() for name in _CSS_FUNCTION.findall(value)]
    if (
        not _SAFE_COLOR.fullmatch(value)
        or len(functions) > 1
        or any(name not in _COLOR_FUNCTIONS for name in functions)
    ):
        msg = f"{field}: {value[:40]!r} is not a colour that is safe to put in CSS"
        raise ValueError(msg)
    return value


def companion_hue(rgb: RGB) -> RGB:
    """A neighbouring hue for two-colour accents. Cool hues drift forward (green to teal, blue
    to violet, violet to pink); warm ones step back (yellow to orange, orange to red, red to
    rose) rather than on towards an olive green."""
    h, l_, s = colorsys.rgb_to_hls(*rgb)
    degrees = h * 360
    shift = -30 if degrees < 80 else 38
    return colorsys.hls_to_rgb(((degrees + shift) % 360) / 360, l_, s)


def accent_foreground(color: str) -> str:
    """``#ffffff`` or ``#000000``: whichever has the better WCAG contrast on ``color``.

    Unparseable colours get white, the safer bet for the saturated colours brands pick.
    """
    rgb = opaque_rgb(color)
    return "#ffffff" if rgb is None else to_hex(better_of_black_and_white(rgb))


def _glow(color: RGB, base: RGB, alpha: float) -> RGB:
    """Darken a glow colour until light text keeps 7:1 where it peaks over ``base`` (leaving
    room for muted text at 4.5:1)."""
    for step in range(41):
        candidate = mix(color, BLACK, step / 40)
        if contrast_ratio(_PAPER, mix(base, candidate, alpha)) >= 7:
            return candidate
    return BLACK


def _muted(fg: RGB, backgrounds: tuple[RGB, ...]) -> RGB:
    """The quietest blend of ``fg`` into the background that keeps 4.5:1 contrast."""
    reference = backgrounds[0]
    for step in range(45, -1, -3):
        candidate = mix(fg, reference, step / 100)
        if min(contrast_ratio(candidate, bg) for bg in backgrounds) >= 4.5:
            return candidate
    return fg


@dataclass(frozen=True)
class Theme:
    """The resolved colours of one render, as CSS values."""

    tone: Literal["dark", "light"]
    """Whether the background reads as dark (light text) or light (dark text)."""
    bg: str
    """A colour or a stack of gradients, for the ``background`` shorthand."""
    bg_solid: str
    """A single colour approximating ``bg``."""
    fg: str
    muted: str
    accent: str
    """The brand colour as drawn on the card (tag, CTA, bars, dots, glows): moved towards the
    text colour where needed to keep 3:1 against the background (WCAG non-text contrast)."""
    accent_fg: str
    accent_text: str
    """The accent adjusted to be readable as small text on the background."""
    accent_2: str
    """A neighbouring hue of the accent, for gradients."""
    glow_alpha: str = "42%"
    """How strongly the accent glows on a dark background (bright accents turn muddy)."""
    mesh: GradientMesh | None = None
    """The gradient background as data (``bg`` as CSS), for the decoration tiles."""
    glow: str | None = None
    glow_2: str | None = None
    """The colours of the soft glows (default: ``accent`` and ``accent_2``): the brand and its
    companion as asked, not contrast-guarded. A glow is atmosphere, not a shape to find; a
    black brand's glow guarded to grey would be fog on a dark card, and it would sit right
    behind the CTA it is meant to set off."""

    def css_vars(self) -> dict[str, str]:
        """The custom properties the stylesheet reads."""
        return {
            "--rk-bg": self.bg,
            "--rk-bg-solid": self.bg_solid,
            "--rk-fg": self.fg,
            "--rk-muted": self.muted,
            "--rk-accent": self.accent,
            "--rk-accent-fg": self.accent_fg,
            "--rk-accent-text": self.accent_text,
            "--rk-accent-2": self.accent_2,
            "--rk-glow-alpha": self.glow_alpha,
        }

    def style(self) -> str:
        """The custom properties as a ``style`` attribute value (unescaped)."""
        return "; ".join(f"{k}: {v}" for k, v in self.css_vars().items())


def _gradient(base: RGB, c1: RGB, c2: RGB, dark: bool) -> tuple[GradientMesh, tuple[RGB, ...]]:
    """A soft mesh: two glows over a diagonal wash. Also returns representative colours
    (the base and the glow peaks as composited) for the contrast maths."""
    a1, a2 = (0.78, 0.55) if dark else (0.55, 0.45)
    deep = mix(base, BLACK, 0.35) if dark else mix(base, WHITE, 0.6)
    peaks = (base, deep, mix(base, c1, a1), mix(deep, c2, a2))
    return GradientMesh(base, deep, c1, a1, c2, a2), peaks


def compute_theme(
    background: str | None = None,
    brand_color: str | None = None,
    background_color: str | None = None,
    text_color: str | None = None,
) -> Theme:
    """Resolve the colours of a render.

    Args:
        background: ``dark`` (default), ``light`` or ``gradient``.
        brand_color: the accent; defaults to :data:`DEFAULT_BRAND_COLOR`.
        background_color: replaces the theme's base colour (gradients glow on top of it).
        text_color: replaces the computed text colour.

    Raises:
        ValueError: for an unknown background or a colour that is unsafe to put in CSS.
    """
    mode = (background or "dark").strip().lower()
    if mode not in BACKGROUNDS:
        msg = f"background must be one of {', '.join(BACKGROUNDS)}, not {background!r}"
        raise ValueError(msg)
    brand = _check_safe(brand_color, "brand_color") if brand_color else DEFAULT_BRAND_COLOR
    bg_override = _check_safe(background_color, "background_color") if background_color else None
    fg_override = _check_safe(text_color, "text_color") if text_color else None

    brand_rgb = opaque_rgb(brand)
    accent_rgb = brand_rgb or opaque_rgb(DEFAULT_BRAND_COLOR)
    assert accent_rgb is not None
    accent_2_rgb = accent_2_raw = companion_hue(accent_rgb)

    # 1. The background: its CSS value, the colours it shows (for contrast) and its tone.
    override_rgb = opaque_rgb(bg_override)
    if override_rgb is not None:
        base = override_rgb
        dark = contrast_ratio(_PAPER, base) >= contrast_ratio(_INK, base)
    elif mode == "gradient":
        # Light brands (yellow, lime, cyan) make a pastel mesh with dark text, the rest a deep
        # one with light text.
        dark = relative_luminance(accent_rgb) < 0.42
        base = mix(accent_rgb, BLACK, 0.8) if dark else mix(accent_rgb, WHITE, 0.82)
    else:
        dark = mode == "dark"
        base = mix(BLACK, accent_rgb, 0.045) if dark else mix(WHITE, accent_rgb, 0.018)
    if mode == "gradient":
        if dark:  # keep the glows deep enough for light text on top of them
            c1, c2 = _glow(accent_rgb, base, 0.78), _glow(accent_2_rgb, base, 0.55)
        else:
            c1, c2 = mix(accent_rgb, WHITE, 0.15), mix(accent_2_rgb, WHITE, 0.3)
        mesh, shown = _gradient(base, c1, c2, dark)
        bg_value = mesh.css()
    else:
        mesh, bg_value, shown = None, to_hex(base), (base,)
    bg_solid = to_hex(base)
    if bg_override is not None and override_rgb is None:
        # Unparseable or translucent (e.g. transparent): use it as given, keep the mode's tone.
        bg_value = bg_solid = bg_override
        mesh, shown = None, (base,)

    # 2. Text colours.
    fg_rgb = opaque_rgb(fg_override)
    if fg_override is not None and fg_rgb is None:
        fg, muted = fg_override, f"color-mix(in srgb, {fg_override} 72%, transparent)"
        fg_rgb = _PAPER if dark else _INK
    else:
        if fg_rgb is None:
            fg_rgb = _PAPER if dark else _INK
        fg = fg_override or to_hex(fg_rgb)
        muted = to_hex(_muted(fg_rgb, shown))
    tone: Literal["dark", "light"] = "dark" if dark else "light"

    # 3. Accent colours. Text in the accent keeps 5.5:1; shapes in it (tag, CTA button, bars,
    # dots) keep WCAG's 3:1 for non-text, or a black brand vanishes into a dark card. Only the
    # large areas count: a gradient's glows sit in the corners, away from the tag and the CTA,
    # and counting them would grey every brand on a light mesh made of its own colour.
    toward = WHITE if tone == "dark" else BLACK
    areas = shown[:2] if mesh is not None else shown
    if brand_rgb is None:
        accent = brand  # unparseable or translucent: the browser's reading of it, as given
        accent_fg = "#ffffff"
    else:
        accent_rgb = readable_on(accent_rgb, areas, toward, _NON_TEXT_CONTRAST)
        accent = brand if accent_rgb == brand_rgb else to_hex(accent_rgb)
        accent_fg = accent_foreground(accent)
    accent_text = to_hex(readable_on(accent_rgb, shown, toward, 5.5))
    accent_2 = to_hex(readable_on(accent_2_rgb, areas, toward, _NON_TEXT_CONTRAST))
    return Theme(
        tone=tone,
        bg=bg_value,
        bg_solid=bg_solid,
        fg=fg,
        muted=muted,
        accent=accent,
        accent_fg=accent_fg,
        accent_text=accent_text,
        accent_2=accent_2,
        glow_alpha="42%" if relative_luminance(accent_rgb) < 0.3 else "24%",
        mesh=mesh,
        glow=brand if brand_rgb is not None else None,
        glow_2=to_hex(accent_2_raw),
    )
