"""Built-in image templates: theme maths and Jinja fragment rendering.

Pure module: nothing here touches the network, the environment or a browser. The engine asks
:func:`render_fragment` for the HTML fragment of a template, injects it into its warm shell page
(whose stylesheet is :func:`image_css`) and screenshots it.

Colours are validated upstream; they are still only ever written into CSS custom properties
inside a ``style`` attribute, through Jinja's autoescape, and :func:`compute_theme` refuses
anything containing characters that could end a CSS declaration.
"""

from __future__ import annotations

import colorsys
import functools
import io
import math
import re
import unicodedata
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Literal

import jinja2
from PIL import Image, ImageColor

__all__ = [
    "BACKGROUNDS",
    "DEFAULT_BRAND_COLOR",
    "TEMPLATES",
    "GradientMesh",
    "ImageTemplateSpec",
    "Theme",
    "accent_foreground",
    "companion_hue",
    "compute_theme",
    "contrast_ratio",
    "image_css",
    "parse_color",
    "render_fragment",
    "text_direction",
]

_TEMPLATE_DIR = "templates"

DEFAULT_BRAND_COLOR = "#4f46e5"
BACKGROUNDS = ("dark", "light", "gradient")

RGB = tuple[float, float, float]
"""An sRGB colour with channels in 0..1."""

_WHITE: RGB = (1.0, 1.0, 1.0)
_BLACK: RGB = (0.0, 0.0, 0.0)
_INK: RGB = (0x0A / 255, 0x0A / 255, 0x0F / 255)  # near-black text on light backgrounds
_PAPER: RGB = (0xFA / 255, 0xFA / 255, 0xFC / 255)  # near-white text on dark backgrounds


# --------------------------------------------------------------------------------------------
# Template registry


@dataclass(frozen=True)
class ImageTemplateSpec:
    """A built-in template: natural size and the minimum font sizes ``data-fit`` may reach.

    ``fit_min`` holds CSS px at the natural size; :func:`render_fragment` scales them with the
    requested size exactly like the stylesheet scales the type.
    """

    name: str
    width: int
    height: int
    fields: frozenset[str]
    fit_min: Mapping[str, float]


def _spec(name: str, width: int, height: int, fields: str, **fit_min: float) -> ImageTemplateSpec:
    return ImageTemplateSpec(name, width, height, frozenset(fields.split()), fit_min)


TEMPLATES: Mapping[str, ImageTemplateSpec] = {
    t.name: t
    for t in (
        _spec(
            "og-card",
            1200,
            630,
            "tag title subtitle body logo_url domain",
            title=34,
            subtitle=20,
            body=17,
        ),
        _spec(
            "social-square",
            1080,
            1080,
            "tag title subtitle body cta logo_url",
            title=42,
            subtitle=24,
            body=20,
        ),
        _spec(
            "twitter-card",
            800,
            418,
            "title subtitle body logo_url domain",
            title=24,
            subtitle=15,
            body=13,
        ),
        _spec(
            "announcement",
            1200,
            400,
            "tag title subtitle cta logo_url",
            title=28,
            subtitle=17,
        ),
    )
}

_TEXT_FIELDS = ("title", "subtitle", "body", "tag", "cta", "domain", "logo_url")


# --------------------------------------------------------------------------------------------
# Colour parsing and WCAG maths

# Characters that can appear in any colour the validator accepts; anything else (";", "{",
# quotes, backslashes, ":") is refused outright, as is any function but rgb()/hsl().
_SAFE_COLOR = re.compile(r"[#a-zA-Z0-9(),.%/\s+-]{1,64}")
_CSS_FUNCTION = re.compile(r"([a-zA-Z-]*)\s*\(")
_COLOR_FUNCTIONS = frozenset({"rgb", "rgba", "hsl", "hsla"})
_HEX = re.compile(r"#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_FUNC = re.compile(r"(rgba?|hsla?)\(\s*([^)]*)\)", re.IGNORECASE)
_NUMBER = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)(%|deg|rad|grad|turn)?$")


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


def _number(token: str) -> tuple[float, str]:
    match = _NUMBER.match(token.strip().lower())
    if not match:
        msg = f"not a number: {token!r}"
        raise ValueError(msg)
    return float(match.group(1)), match.group(2) or ""


def _channel(token: str) -> float:
    value, unit = _number(token)
    return value / 100 if unit == "%" else value / 255


def _alpha(token: str) -> float:
    value, unit = _number(token)
    return value / 100 if unit == "%" else value


def _hue(token: str) -> float:
    value, unit = _number(token)
    turns = {"": 1 / 360, "deg": 1 / 360, "rad": 1 / math.tau, "grad": 1 / 400, "turn": 1.0}
    if unit not in turns:
        msg = f"not an angle: {token!r}"
        raise ValueError(msg)
    return (value * turns[unit]) % 1.0


def _clamp01(x: float) -> float:
    return min(1.0, max(0.0, x))


def parse_color(value: str) -> tuple[float, float, float, float] | None:
    """Parse a CSS colour into ``(r, g, b, a)`` with channels in 0..1.

    Understands hex (3, 4, 6 or 8 digits), CSS named colours and ``rgb()``/``rgba()``/
    ``hsl()``/``hsla()`` in both comma and space syntax. Returns None for anything else
    (``transparent``, ``currentcolor``, malformed input).
    """
    value = value.strip()
    if m := _HEX.fullmatch(value):
        digits = m.group(1)
        if len(digits) in (3, 4):
            digits = "".join(c * 2 for c in digits)
        channels = [int(digits[i : i + 2], 16) / 255 for i in range(0, len(digits), 2)]
        r, g, b, *rest = channels
        return (r, g, b, rest[0] if rest else 1.0)
    named = ImageColor.colormap.get(value.lower())
    if isinstance(named, str) and named.startswith("#"):
        return parse_color(named)
    if not (m := _FUNC.fullmatch(value)):
        return None
    kind, args = m.group(1).lower(), m.group(2).strip()
    if "," in args:
        parts = [p.strip() for p in args.split(",")]
    else:
        main, _, alpha = args.partition("/")
        parts = main.split() + ([alpha.strip()] if alpha.strip() else [])
    if len(parts) not in (3, 4):
        return None
    try:
        a = _clamp01(_alpha(parts[3])) if len(parts) == 4 else 1.0
        if kind.startswith("rgb"):
            r, g, b = (_clamp01(_channel(p)) for p in parts[:3])
        else:
            h = _hue(parts[0])
            s, l_ = (_clamp01(_number(p)[0] / 100) for p in parts[1:3])
            r, g, b = colorsys.hls_to_rgb(h, l_, s)
    except ValueError:
        return None
    return (r, g, b, a)


def _rgb(value: str | None) -> RGB | None:
    """An opaque colour, or None if unparseable or (partly) transparent."""
    if value is None or (parsed := parse_color(value)) is None:
        return None
    r, g, b, a = parsed
    return (r, g, b) if a >= 0.999 else None


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(rgb: RGB) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    r, g, b = (_linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: RGB, b: RGB) -> float:
    """WCAG 2 contrast ratio (1..21) between two opaque colours."""
    la, lb = relative_luminance(a), relative_luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """Blend ``a`` towards ``b`` by ``t`` (0 gives ``a``, 1 gives ``b``) in sRGB."""
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def to_hex(rgb: RGB, alpha: float | None = None) -> str:
    """``#rrggbb`` (or ``#rrggbbaa`` with ``alpha``)."""
    channels = [*rgb] + ([alpha] if alpha is not None else [])
    return "#" + "".join(f"{round(_clamp01(c) * 255):02x}" for c in channels)


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
    rgb = _rgb(color)
    if rgb is None:
        return "#ffffff"
    return "#ffffff" if contrast_ratio(_WHITE, rgb) >= contrast_ratio(_BLACK, rgb) else "#000000"


def _readable_on(color: RGB, backgrounds: tuple[RGB, ...], toward: RGB, target: float) -> RGB:
    """Move ``color`` towards ``toward`` until it reaches ``target`` contrast on every
    background (or as close as it gets)."""
    for step in range(21):
        candidate = mix(color, toward, step / 20)
        if min(contrast_ratio(candidate, bg) for bg in backgrounds) >= target:
            return candidate
    return toward


def _glow(color: RGB, base: RGB, alpha: float) -> RGB:
    """Darken a glow colour until light text keeps 7:1 where it peaks over ``base`` (leaving
    room for muted text at 4.5:1)."""
    for step in range(41):
        candidate = mix(color, _BLACK, step / 40)
        if contrast_ratio(_PAPER, mix(base, candidate, alpha)) >= 7:
            return candidate
    return _BLACK


def _muted(fg: RGB, backgrounds: tuple[RGB, ...]) -> RGB:
    """The quietest blend of ``fg`` into the background that keeps 4.5:1 contrast."""
    reference = backgrounds[0]
    for step in range(45, -1, -3):
        candidate = mix(fg, reference, step / 100)
        if min(contrast_ratio(candidate, bg) for bg in backgrounds) >= 4.5:
            return candidate
    return fg


# --------------------------------------------------------------------------------------------
# Themes


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
    accent_fg: str
    accent_text: str
    """The accent adjusted to be readable as small text on the background."""
    accent_2: str
    """A neighbouring hue of the accent, for gradients."""
    glow_alpha: str = "42%"
    """How strongly the accent glows on a dark background (bright accents turn muddy)."""
    mesh: GradientMesh | None = None
    """The gradient background as data (``bg`` as CSS), for the decoration tiles."""

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


@dataclass(frozen=True)
class _Ellipse:
    """An elliptical ramp, like CSS ``radial-gradient(ellipse rx ry at cx cy, ...)``.

    The centre and radii are fractions of the card's width and height; ``circle`` makes it a
    circle whose radius is the distance to the farthest corner, like ``radial-gradient(circle
    at cx cy, ...)``. ``stop`` is where the ramp ends, as a fraction of the radii.
    """

    cx: float
    cy: float
    rx: float = 1.0
    ry: float = 1.0
    stop: float = 1.0
    circle: bool = False

    def radii(self, width: float, height: float) -> tuple[float, float]:
        """The CSS px radii at which the ramp reaches its stop."""
        if self.circle:
            far = math.hypot(max(self.cx, 1 - self.cx) * width, max(self.cy, 1 - self.cy) * height)
            return far * self.stop, far * self.stop
        return self.rx * width * self.stop, self.ry * height * self.stop

    def ramp(self, width: float, height: float) -> _Ramp:
        rx, ry = self.radii(width, height)
        return (self.cx * width, self.cy * height, rx, ry)

    def box(self, width: float, height: float) -> _Box:
        """Where the ramp is not yet at its stop, clipped to the card (CSS px)."""
        x, y, rx, ry = self.ramp(width, height)
        return _clip((x - rx, y - ry, x + rx, y + ry), width, height)


_Ramp = tuple[float, float, float, float]  # centre x, centre y, radius x, radius y (CSS px)
_Box = tuple[float, float, float, float]  # left, top, right, bottom (CSS px)


def _distance(ramp: _Ramp, x: float, y: float) -> float:
    """0 at the centre of a ramp, 1 at its stop."""
    cx, cy, rx, ry = ramp
    return math.hypot((x - cx) / rx, (y - cy) / ry) if rx > 0 and ry > 0 else math.inf


_EASE = 0.25


def _falloff(distance: float) -> float:
    """A glow's strength at a ramp distance: 1 - distance, like a CSS gradient to transparent,
    except that the last quarter eases into zero. Blink dithers its gradients, which hides the
    kink where a linear ramp stops; an undithered tile would show it as a faint dark ring."""
    t = 1.0 - distance
    if t >= _EASE:
        return t
    if t <= 0:
        return 0.0
    # The cubic that leaves 0 flat and meets the line at _EASE with the same value and slope.
    return t * t * (2 * _EASE - t) / (_EASE * _EASE)


def _clip(box: _Box, width: float, height: float) -> _Box:
    return (max(0.0, box[0]), max(0.0, box[1]), min(width, box[2]), min(height, box[3]))


@dataclass(frozen=True)
class GradientMesh:
    """The ``gradient`` background: two glows over a diagonal wash from ``base`` to ``deep``."""

    base: RGB
    deep: RGB
    c1: RGB
    a1: float
    c2: RGB
    a2: float

    GLOW_1 = _Ellipse(0, 0, 0.75, 0.95, 0.7)
    GLOW_2 = _Ellipse(1, 1, 0.70, 0.90, 0.7)

    def css(self) -> str:
        """The mesh as CSS gradients, for the ``background`` shorthand (what the tiles draw)."""

        def glow(ellipse: _Ellipse, colour: RGB, alpha: float) -> str:
            e = ellipse
            return (
                f"radial-gradient(ellipse {e.rx:.0%} {e.ry:.0%} at {e.cx:.0%} {e.cy:.0%}, "
                f"{to_hex(colour, alpha)} 0%, {to_hex(colour, 0)} {e.stop:.0%})"
            )

        return ", ".join(
            [
                glow(self.GLOW_1, self.c1, self.a1),
                glow(self.GLOW_2, self.c2, self.a2),
                f"linear-gradient(135deg, {to_hex(self.base)} 0%, {to_hex(self.deep)} 100%)",
            ]
        )

    def painter(self, width: float, height: float) -> _Painter:
        """The mesh's colour at a point (CSS px) of a ``width`` x ``height`` card."""
        glow_1, glow_2 = self.GLOW_1.ramp(width, height), self.GLOW_2.ramp(width, height)
        # CSS's 135deg gradient line runs corner to corner through the centre.
        dx = dy = math.sqrt(0.5)
        length = width * dx + height * dy

        def paint(x: float, y: float) -> _RGBA:
            t = ((x - width / 2) * dx + (y - height / 2) * dy) / length + 0.5
            wash = (*mix(self.base, self.deep, min(1.0, max(0.0, t))), 1.0)
            p = _over((*self.c2, self.a2 * _falloff(_distance(glow_2, x, y))), wash)
            return _over((*self.c1, self.a1 * _falloff(_distance(glow_1, x, y))), p)

        return paint


def _gradient(base: RGB, c1: RGB, c2: RGB, dark: bool) -> tuple[GradientMesh, tuple[RGB, ...]]:
    """A soft mesh: two glows over a diagonal wash. Also returns representative colours
    (the base and the glow peaks as composited) for the contrast maths."""
    a1, a2 = (0.78, 0.55) if dark else (0.55, 0.45)
    deep = mix(base, _BLACK, 0.35) if dark else mix(base, _WHITE, 0.6)
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

    brand_rgb = _rgb(brand)
    accent_rgb = brand_rgb or _rgb(DEFAULT_BRAND_COLOR)
    assert accent_rgb is not None
    accent_2_rgb = companion_hue(accent_rgb)

    # 1. The background: its CSS value, the colours it shows (for contrast) and its tone.
    override_rgb = _rgb(bg_override)
    if override_rgb is not None:
        base = override_rgb
        dark = contrast_ratio(_PAPER, base) >= contrast_ratio(_INK, base)
    elif mode == "gradient":
        # Light brands (yellow, lime, cyan) make a pastel mesh with dark text, the rest a deep
        # one with light text.
        dark = relative_luminance(accent_rgb) < 0.42
        base = mix(accent_rgb, _BLACK, 0.8) if dark else mix(accent_rgb, _WHITE, 0.82)
    else:
        dark = mode == "dark"
        base = mix(_BLACK, accent_rgb, 0.045) if dark else mix(_WHITE, accent_rgb, 0.018)
    if mode == "gradient":
        if dark:  # keep the glows deep enough for light text on top of them
            c1, c2 = _glow(accent_rgb, base, 0.78), _glow(accent_2_rgb, base, 0.55)
        else:
            c1, c2 = mix(accent_rgb, _WHITE, 0.15), mix(accent_2_rgb, _WHITE, 0.3)
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
    fg_rgb = _rgb(fg_override)
    if fg_override is not None and fg_rgb is None:
        fg, muted = fg_override, f"color-mix(in srgb, {fg_override} 72%, transparent)"
        fg_rgb = _PAPER if dark else _INK
    else:
        if fg_rgb is None:
            fg_rgb = _PAPER if dark else _INK
        fg = fg_override or to_hex(fg_rgb)
        muted = to_hex(_muted(fg_rgb, shown))
    tone: Literal["dark", "light"] = "dark" if dark else "light"

    # 3. Accent colours.
    accent = brand
    accent_fg = accent_foreground(brand) if brand_rgb is not None else "#ffffff"
    toward = _WHITE if tone == "dark" else _BLACK
    accent_text = to_hex(_readable_on(accent_rgb, shown, toward, 5.5))
    accent_2 = to_hex(accent_2_rgb)
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
    )


# --------------------------------------------------------------------------------------------
# Decorations
#
# Chromium re-rasterises the whole card in software for every capture, and Blink dithers every
# CSS gradient: a card-sized radial glow costs tens of ms of raster, a mask another offscreen
# layer, and the dither noise makes the PNG several times larger and slower to encode. So the
# soft parts of the design (the glows, the gradient mesh and the fade of the hairline grid) are
# drawn here, per theme and card size, into small PNG tiles that Chromium stretches with bilinear
# filtering over only the part of the card where they are visible: smooth, never dithered, and
# much cheaper to encode. The hairline grid is one 1px gradient per line, with its fade baked
# into the stops, instead of a card-sized pattern under a mask. social-square's dots stay a CSS
# pattern, in a box no larger than their fade, which the tiles cover except for a fading hole.
# (bench/profile_templates.py measures all of this.)

_RGBA = tuple[float, float, float, float]
_Painter = Callable[[float, float], _RGBA]


def _over(top: _RGBA, below: _RGBA) -> _RGBA:
    """Porter-Duff source-over of two unpremultiplied colours."""
    r1, g1, b1, a1 = top
    r2, g2, b2, a2 = below
    alpha = a1 + a2 * (1 - a1)
    if alpha <= 0:
        return (0.0, 0.0, 0.0, 0.0)
    k = a2 * (1 - a1)
    return (
        (r1 * a1 + r2 * k) / alpha,
        (g1 * a1 + g2 * k) / alpha,
        (b1 * a1 + b2 * k) / alpha,
        alpha,
    )


@dataclass(frozen=True)
class _Decor:
    """A template's decorations, in the terms of CSS radial gradients over the whole card."""

    grid: _Ellipse
    """Where the hairline grid shows: fully at the centre, fading out to the stop."""
    glow: _Ellipse
    """The accent glow: the accent colour fading to transparent at the stop (see _falloff)."""
    glow_2: _Ellipse
    """A second, quieter glow in the companion hue."""
    lines: float | None
    """The spacing (in design px, ``--u``) of a grid of lines, which are drawn one by one with
    their fade baked in; None for the stylesheet's dot pattern, which the tiles fade out."""
    unit: tuple[float, float, float, str, float, float]
    """How the stylesheet sizes ``--u``: the natural width and height, and the width and height
    it switches to when the aspect ratio is below (``<``) or above (``>``) a threshold."""

    def u(self, width: float, height: float) -> float:
        w, h, threshold, op, alt_w, alt_h = self.unit
        aspect = width / height
        if (aspect < threshold) if op == "<" else (aspect > threshold):
            w, h = alt_w, alt_h
        return min(width / w, height / h)


_LANDSCAPE_GLOWS = {
    "grid": _Ellipse(1, 0, 0.70, 0.90, 0.75),
    "glow": _Ellipse(1, 0, 0.55, 0.75, 0.70),
    "glow_2": _Ellipse(0.75, 1.1, 0.45, 0.60, 0.70),
}
_DECOR: Mapping[str, _Decor] = {
    "og-card": _Decor(**_LANDSCAPE_GLOWS, lines=56, unit=(1200, 630, 1.4, "<", 1000, 1000)),
    "twitter-card": _Decor(**_LANDSCAPE_GLOWS, lines=40, unit=(800, 418, 1.4, "<", 640, 640)),
    "social-square": _Decor(
        grid=_Ellipse(1, 0, 0.80, 0.70, 0.70),
        glow=_Ellipse(1, 0, stop=0.55, circle=True),
        glow_2=_Ellipse(0, 1, stop=0.50, circle=True),
        lines=None,
        unit=(1080, 1080, 1.4, ">", 1600, 760),
    ),
    "announcement": _Decor(
        grid=_Ellipse(1, 0.5, 0.45, 1.00, 0.80),
        glow=_Ellipse(1, 0.5, 0.40, 1.10, 0.70),
        glow_2=_Ellipse(0, 1, 0.30, 0.80, 0.70),
        lines=44,
        unit=(1200, 400, 2.0, "<", 800, 560),
    ),
}

_TEXEL = 32.0
"""CSS px per tile texel: the glows and fades are smooth, so bilinear filtering fills in."""
_MAX_TEXELS = 40
_GRID_MARGIN = 4.0
"""CSS px by which the tile over the dot grid overhangs its box, against pixel snapping."""
_LINE_STOPS = 7
"""Colour stops along each grid line: enough to follow the elliptical fade closely."""


def _num(value: float, digits: int = 3) -> str:
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _pct(value: float) -> str:
    return _num(value) + "%"


def _png_data_url(pixels: bytes, size: tuple[int, int]) -> str:
    image = Image.frombytes("RGBA", size, pixels)
    if image.getextrema()[3][0] == 255:
        image = image.convert("RGB")  # an opaque image draws without blending
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    # Percent-encoded rather than base64: a ";base64" would put a semicolon in the style
    # attribute, where naive consumers split declarations.
    return "data:image/png," + urllib.parse.quote(buffer.getvalue(), safe="")


def _tile(paint: _Painter, box: _Box, width: float, height: float) -> str:
    """One decoration tile: ``paint`` sampled at texel centres over ``box`` (CSS px), as a
    ``background`` layer that stretches it back over ``box``."""
    left, top, right, bottom = box
    w, h = right - left, bottom - top
    per = max(_TEXEL, max(w, h) / _MAX_TEXELS)
    nx, ny = max(2, math.ceil(w / per)), max(2, math.ceil(h / per))
    xs = [left + (i + 0.5) * w / nx for i in range(nx)]
    values = [c for j in range(ny) for x in xs for c in paint(x, top + (j + 0.5) * h / ny)]
    pixels = bytes([0 if v <= 0 else 255 if v >= 1 else int(v * 255 + 0.5) for v in values])
    # A percentage background-position aligns that fraction of the tile with that fraction of
    # the card, so a tile at ``left`` sits at left / (width - w).
    x = left / (width - w) * 100 if width - w > 0.5 else 0.0
    y = top / (height - h) * 100 if height - h > 0.5 else 0.0
    return (
        f"url({_png_data_url(pixels, (nx, ny))}) {_pct(x)} {_pct(y)} / "
        f"{_pct(w / width * 100)} {_pct(h / height * 100)} no-repeat"
    )


def _grid_lines(
    decor: _Decor, width: int, height: int, veil: Callable[[float, float], float]
) -> list[str]:
    """The grid as one ``background`` layer per hairline, each a 1px-wide linear gradient of
    ``--rk-line`` that fades out along the line as the grid's ellipse does: a few thousand
    pixels to paint instead of a card-sized pattern under a mask.

    The lines are painted over the glow tiles (which are opaque), so ``veil`` gives how much
    of a line would show through the glows above it in the design (1 where there is none).
    """
    assert decor.lines is not None
    u = decor.u(width, height)
    step = decor.lines * u
    ramp = decor.grid.ramp(width, height)
    cx, cy, rx, ry = ramp
    layers = []
    for vertical in (True, False):
        extent, across = (width, height) if vertical else (height, width)
        centre, radius = (cx, rx) if vertical else (cy, ry)
        centre_across, radius_across = (cy, ry) if vertical else (cx, rx)
        # Like the stylesheet's pattern at background-position -1u: lines at k * step - u.
        k = max(0, math.ceil((centre - radius + u) / step))
        while (pos := k * step - u) < min(extent, centre + radius):
            k += 1
            offset = (pos + 0.5 - centre) / radius
            if abs(offset) >= 1 or pos + 1 <= 0:
                continue
            half = radius_across * math.sqrt(1 - offset * offset)
            start = max(0.0, centre_across - half)
            end = min(float(across), centre_across + half)
            if end - start < 1:
                continue
            stops = []
            for i in range(_LINE_STOPS):
                t = i / (_LINE_STOPS - 1)
                along = start + t * (end - start)
                x, y = (pos + 0.5, along) if vertical else (along, pos + 0.5)
                alpha = max(0.0, 1 - _distance(ramp, x, y)) * veil(x, y) * 100
                colour = (
                    f"color-mix(in srgb,var(--rk-line) {_num(alpha, 1)}%,#0000)"
                    if alpha >= 0.05
                    else "#0000"
                )
                stops.append(f"{colour} {_num(t * 100, 1)}%")
            direction = "bottom" if vertical else "right"
            position = (
                f"{_num(pos)}px {_num(start)}px / 1px {_num(end - start)}px"
                if vertical
                else f"{_num(start)}px {_num(pos)}px / {_num(end - start)}px 1px"
            )
            layers.append(f"linear-gradient(to {direction},{','.join(stops)}) {position} no-repeat")
    return layers


def _union(a: _Box, b: _Box) -> _Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _overlaps(a: _Box, b: _Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _area(box: _Box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


@functools.lru_cache(maxsize=256)
def _decor_vars(
    template: str, theme: Theme, mode: str, width: int, height: int
) -> tuple[tuple[str, str], ...]:
    """The custom properties that draw a template's decorations for one theme and size.

    ``--rk-canvas`` is what the card paints under everything (a colour, or for the gradient
    background the mesh as one stretched tile), ``--rk-decor`` the tiles over it (a
    ``background`` value), ``--rk-grid`` the hairlines of a line grid, and ``--rk-grid-*``
    the box of a dot grid, which the tiles cover except for a hole where it shows.
    """
    decor = _DECOR[template]
    mesh = theme.mesh
    full: _Box = (0.0, 0.0, float(width), float(height))
    glows: list[tuple[_Ramp, RGB, float, _Box]] = []  # bottom to top
    if mode != "gradient" and (accent := parse_color(theme.accent)) is not None:
        dark = theme.tone == "dark"
        strength = float(theme.glow_alpha.rstrip("%")) / 100 if dark else 0.24
        accent_2 = _rgb(theme.accent_2) or accent[:3]
        for ellipse, rgb, alpha in (
            (decor.glow_2, accent_2, 0.28 if dark else 0.16),
            (decor.glow, accent[:3], strength * accent[3]),
        ):
            if alpha > 0:
                glows.append((ellipse.ramp(width, height), rgb, alpha, ellipse.box(width, height)))

    background: _Painter | None = None
    if mesh is not None:
        background = mesh.painter(width, height)
        canvas_css = f"{_tile(background, full, width, height)}, {theme.bg_solid}"
    else:
        if (canvas := _rgb(theme.bg_solid)) is not None:
            solid: _RGBA = (*canvas, 1.0)
            background = lambda x, y: solid  # noqa: E731
        canvas_css = theme.bg

    def veil(x: float, y: float) -> float:
        shown = 1.0
        for ramp, _, alpha, _ in glows:
            shown *= 1 - alpha * _falloff(_distance(ramp, x, y))
        return shown

    result = [("--rk-canvas", canvas_css)]
    hole: _Ramp | None = None
    grid_box: _Box | None = None
    if decor.lines is not None:
        if lines := _grid_lines(decor, width, height, veil):
            result.append(("--rk-grid", ", ".join(lines)))
    elif background is not None:  # the dots need something opaque to fade into
        hole = decor.grid.ramp(width, height)
        grid_box = decor.grid.box(width, height)
        left, top, right, bottom = grid_box
        result += [
            ("--rk-grid-x", _pct(left / width * 100)),
            ("--rk-grid-y", _pct(top / height * 100)),
            ("--rk-grid-w", _pct((right - left) / width * 100)),
            ("--rk-grid-h", _pct((bottom - top) / height * 100)),
        ]

    # The tiles paint the glows over the background (opaque: an opaque image draws exactly,
    # while blending faint translucent texels rounds towards black), fading the background out
    # over the dots' hole.
    def paint(x: float, y: float) -> _RGBA:
        p: _RGBA = (0.0, 0.0, 0.0, 0.0)
        if background is not None:
            r, g, b, a = background(x, y)
            p = (r, g, b, a * min(1.0, _distance(hole, x, y)) if hole else a)
        for ramp, rgb, alpha, _ in glows:
            p = _over((*rgb, alpha * _falloff(_distance(ramp, x, y))), p)
        return p

    boxes = [glow[3] for glow in glows]
    if grid_box is not None:
        m = _GRID_MARGIN
        boxes.append(
            _clip(
                (grid_box[0] - m, grid_box[1] - m, grid_box[2] + m, grid_box[3] + m), width, height
            )
        )

    # Every tile paints the same picture, opaque except over the dots' hole (or everywhere
    # when the background is translucent). Tiles that overlap where it is translucent would
    # paint that part twice: merge those.
    def clash(a: _Box, b: _Box) -> bool:
        if not _overlaps(a, b):
            return False
        if background is None:
            return True
        if grid_box is None:
            return False
        overlap = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
        return _overlaps(overlap, grid_box)

    tiles: list[_Box] = []
    for box in boxes:
        if _area(box) <= 0:
            continue
        while clashing := [t for t in tiles if clash(box, t)]:
            for t in clashing:
                tiles.remove(t)
                box = _union(box, t)
        tiles.append(box)
    if tiles:
        result.append(("--rk-decor", ", ".join(_tile(paint, t, width, height) for t in tiles)))
    return tuple(result)


# --------------------------------------------------------------------------------------------
# Rendering


@functools.cache
def image_css() -> str:
    """The stylesheet for every built-in template (goes into the shell page once)."""
    path = resources.files("renderkit.image").joinpath(f"{_TEMPLATE_DIR}/image.css")
    return path.read_text(encoding="utf-8")


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("renderkit.image", _TEMPLATE_DIR),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


# Scripts that must not be letter-spaced (cursive joining, or CJK set solid), nor upper-cased.
_NATURAL_SPACING = re.compile(
    "[\u0590-\u08ff\u0900-\u0dff\u0e00-\u0eff\u1100-\u11ff\u1780-\u18af"
    "\u2e80-\u9fff\ua000-\ua4cf\uac00-\ud7af\uf900-\ufaff\ufb1d-\ufdff\ufe70-\ufeff\uff00-\uffef]"
)


_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def text_direction(text: str | None) -> Literal["ltr", "rtl"]:
    """The direction of the first strongly directional character (Unicode bidi P2)."""
    for char in text or "":
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return "rtl"
        if kind == "L":
            return "ltr"
    return "ltr"


def _cjk_lang(text: str | None) -> str | None:
    """``ja``/``ko``/``zh`` for CJK text, so Chromium can break lines between phrases."""
    if not text:
        return None
    if _KANA.search(text):
        return "ja"
    if _HANGUL.search(text):
        return "ko"
    return "zh" if _HAN.search(text) else None


def _clean(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _scale(spec: ImageTemplateSpec, width: int, height: int) -> float:
    return min(width / spec.width, height / spec.height)


def render_fragment(
    template: str, data: Mapping[str, str | None], *, width: int, height: int
) -> str:
    """The HTML fragment of a built-in template, for ``window.__rk.render``.

    Args:
        template: ``og-card``, ``social-square``, ``twitter-card`` or ``announcement``.
        data: template variables; any may be missing or None. Text is escaped.
        width, height: the CSS pixel size the fragment will be rendered at.

    Raises:
        ValueError: for an unknown template, a non-positive size, an unknown background or
            an unsafe colour.
    """
    spec = TEMPLATES.get(template)
    if spec is None:
        msg = f"unknown image template {template!r}; use one of {', '.join(TEMPLATES)}"
        raise ValueError(msg)
    if width <= 0 or height <= 0:
        msg = f"width and height must be positive, not {width}x{height}"
        raise ValueError(msg)
    theme = compute_theme(
        background=_clean(data.get("background")),
        brand_color=_clean(data.get("brand_color")),
        background_color=_clean(data.get("background_color")),
        text_color=_clean(data.get("text_color")),
    )
    fields = {
        name: _clean(data.get(name)) if name in spec.fields else None for name in _TEXT_FIELDS
    }
    scale = _scale(spec, width, height)
    fit_min = {name: f"{max(9.0, px * scale):.1f}" for name, px in spec.fit_min.items()}
    natural = {
        name: bool(value and _NATURAL_SPACING.search(value)) for name, value in fields.items()
    }
    lang = {name: _cjk_lang(value) for name, value in fields.items()}
    lead = next((fields[n] for n in ("title", "subtitle", "body", "tag", "cta") if fields[n]), None)
    background = (_clean(data.get("background")) or "dark").lower()
    decor = _decor_vars(template, theme, background, width, height)
    style = "; ".join([theme.style(), *(f"{k}: {v}" for k, v in decor)])
    return (
        _environment()
        .get_template(f"{template}.html.j2")
        .render(
            d=fields,
            fit_min=fit_min,
            natural=natural,
            lang=lang,
            direction=text_direction(lead),
            theme=theme,
            style=style,
            background=background,
        )
    )


def __getattr__(name: str) -> str:
    # ``IMAGE_CSS`` reads like a constant but is loaded lazily (and cached) on first use.
    if name == "IMAGE_CSS":
        return image_css()
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
