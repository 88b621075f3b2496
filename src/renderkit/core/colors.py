"""Colour maths shared by the image and PDF templates: CSS parsing, WCAG contrast, blending.

Colours are sRGB triples with channels in 0..1 (:data:`RGB`); :func:`parse_color` also returns
the alpha channel. Nothing here decides what is *safe* to write into CSS: the request
validators and the templates do that; this module only computes.
"""

from __future__ import annotations

import colorsys
import math
import re

from PIL import ImageColor

__all__ = [
    "BLACK",
    "HEX_COLOR",
    "RGB",
    "WHITE",
    "better_of_black_and_white",
    "contrast_ratio",
    "mix",
    "opaque_rgb",
    "parse_color",
    "readable_on",
    "relative_luminance",
    "to_hex",
]

RGB = tuple[float, float, float]
"""An sRGB colour with channels in 0..1."""

WHITE: RGB = (1.0, 1.0, 1.0)
BLACK: RGB = (0.0, 0.0, 0.0)

HEX_COLOR = re.compile(r"#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
"""A CSS hex colour (3, 4, 6 or 8 digits; use ``fullmatch``). Group 1 holds the digits."""

_FUNC = re.compile(r"(rgba?|hsla?)\(\s*([^)]*)\)", re.IGNORECASE)
_NUMBER = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)(%|deg|rad|grad|turn)?$")
_TURNS = {"": 1 / 360, "deg": 1 / 360, "rad": 1 / math.tau, "grad": 1 / 400, "turn": 1.0}


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
    if unit not in _TURNS:
        msg = f"not an angle: {token!r}"
        raise ValueError(msg)
    return (value * _TURNS[unit]) % 1.0


def _clamp01(x: float) -> float:
    return min(1.0, max(0.0, x))


def parse_color(value: str) -> tuple[float, float, float, float] | None:
    """Parse a CSS colour into ``(r, g, b, a)`` with channels in 0..1.

    Understands hex (3, 4, 6 or 8 digits), CSS named colours and ``rgb()``/``rgba()``/
    ``hsl()``/``hsla()`` in both comma and space syntax. Returns None for anything else
    (``transparent``, ``currentcolor``, malformed input).
    """
    value = value.strip()
    if m := HEX_COLOR.fullmatch(value):
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


def opaque_rgb(value: str | None) -> RGB | None:
    """An opaque colour, or None if missing, unparseable or (partly) transparent."""
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
    """``#rrggbb`` (or ``#rrggbbaa`` with ``alpha``), channels clamped to 0..1."""
    channels = [*rgb] + ([alpha] if alpha is not None else [])
    return "#" + "".join(f"{round(_clamp01(c) * 255):02x}" for c in channels)


def better_of_black_and_white(background: RGB) -> RGB:
    """White or black, whichever has the better WCAG contrast on ``background`` (white on a
    tie: the safer bet for the saturated colours brands pick)."""
    white, black = contrast_ratio(WHITE, background), contrast_ratio(BLACK, background)
    return WHITE if white >= black else BLACK


def readable_on(color: RGB, backgrounds: tuple[RGB, ...], toward: RGB, target: float) -> RGB:
    """Move ``color`` towards ``toward`` in twentieths until it reaches ``target`` contrast on
    every background; ``toward`` itself when no step does."""
    for step in range(21):
        candidate = mix(color, toward, step / 20)
        if min(contrast_ratio(candidate, bg) for bg in backgrounds) >= target:
            return candidate
    return toward
