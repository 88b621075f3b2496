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
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Literal

import jinja2
from PIL import ImageColor

__all__ = [
    "BACKGROUNDS",
    "DEFAULT_BRAND_COLOR",
    "TEMPLATES",
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

_TEMPLATE_DIR = "_assets/templates/image"

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


def _gradient(base: RGB, c1: RGB, c2: RGB, dark: bool) -> tuple[str, tuple[RGB, ...]]:
    """A soft mesh: two glows over a diagonal wash. Also returns representative colours
    (the base and the glow peaks as composited) for the contrast maths."""
    a1, a2 = (0.78, 0.55) if dark else (0.55, 0.45)
    deep = mix(base, _BLACK, 0.35) if dark else mix(base, _WHITE, 0.6)
    layers = [
        f"radial-gradient(ellipse 75% 95% at 0% 0%, {to_hex(c1, a1)} 0%, {to_hex(c1, 0)} 70%)",
        f"radial-gradient(ellipse 70% 90% at 100% 100%, {to_hex(c2, a2)} 0%, {to_hex(c2, 0)} 70%)",
        f"linear-gradient(135deg, {to_hex(base)} 0%, {to_hex(deep)} 100%)",
    ]
    peaks = (base, deep, mix(base, c1, a1), mix(deep, c2, a2))
    return ", ".join(layers), peaks


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
        bg_value, shown = _gradient(base, c1, c2, dark)
    else:
        bg_value, shown = to_hex(base), (base,)
    bg_solid = to_hex(base)
    if bg_override is not None and override_rgb is None:
        # Unparseable or translucent (e.g. transparent): use it as given, keep the mode's tone.
        bg_value = bg_solid = bg_override
        shown = (base,)

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
    )


# --------------------------------------------------------------------------------------------
# Rendering


@functools.cache
def image_css() -> str:
    """The stylesheet for every built-in template (goes into the shell page once)."""
    path = resources.files("renderkit").joinpath(f"{_TEMPLATE_DIR}/image.css")
    return path.read_text(encoding="utf-8")


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("renderkit", _TEMPLATE_DIR),
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
            style=theme.style(),
            background=(_clean(data.get("background")) or "dark").lower(),
        )
    )


def __getattr__(name: str) -> str:
    # ``IMAGE_CSS`` reads like a constant but is loaded lazily (and cached) on first use.
    if name == "IMAGE_CSS":
        return image_css()
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
