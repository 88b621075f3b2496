"""Built-in image templates: the registry and Jinja fragment rendering.

Pure module: nothing here touches the network, the environment or a browser. The engine asks
:func:`render_fragment` for the HTML fragment of a template, injects it into its warm shell page
(whose stylesheet is :func:`image_css`) and screenshots it. The colours come from
:mod:`renderkit.image._theme`, the soft decorations from :mod:`renderkit.image._decorations`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Literal

import jinja2

from renderkit.image._decorations import decoration_vars
from renderkit.image._phrases import cjk_lang, is_cjk, mark_phrases
from renderkit.image._theme import compute_theme

__all__ = [
    "STYLE_FIELDS",
    "TEMPLATES",
    "ImageTemplateSpec",
    "displayed_fields",
    "image_css",
    "render_fragment",
    "text_direction",
]

_TEMPLATE_DIR = "templates"


# --------------------------------------------------------------------------------------------
# Template registry


@dataclass(frozen=True)
class ImageTemplateSpec:
    """A built-in template: natural size, the data fields it displays and the minimum font
    sizes ``data-fit`` may reach.

    ``fields`` is the one statement of which content fields a template shows: the renderer
    passes it no other, requests warn about (or, when strict, refuse) the others, and the
    docs list it. The colour fields (:data:`STYLE_FIELDS`) apply to every template.

    ``fit_min`` holds CSS px at the natural size; :func:`render_fragment` scales them with the
    requested size exactly like the stylesheet scales the type. ``title_max`` (CSS px at the
    natural size) is how far a short title may grow to fill the room a long one would take.
    """

    name: str
    width: int
    height: int
    fields: frozenset[str]
    fit_min: Mapping[str, float]
    title_max: float


def _spec(
    name: str, width: int, height: int, fields: str, title_max: float, **fit_min: float
) -> ImageTemplateSpec:
    return ImageTemplateSpec(name, width, height, frozenset(fields.split()), fit_min, title_max)


TEMPLATES: Mapping[str, ImageTemplateSpec] = {
    t.name: t
    for t in (
        _spec(
            "og-card",
            1200,
            630,
            "tag title subtitle body logo_url domain",
            title_max=120,
            title=34,
            subtitle=20,
            body=17,
        ),
        _spec(
            "social-square",
            1080,
            1080,
            "tag title subtitle body cta logo_url",
            title_max=168,
            title=42,
            subtitle=24,
            body=20,
        ),
        _spec(
            "twitter-card",
            800,
            418,
            "title subtitle body logo_url domain",
            title_max=72,
            title=24,
            subtitle=15,
            body=13,
        ),
        _spec(
            "announcement",
            1200,
            400,
            "tag title subtitle cta logo_url",
            title_max=88,
            title=28,
            subtitle=17,
        ),
    )
}

_TEXT_FIELDS = ("title", "subtitle", "body", "tag", "cta", "domain", "logo_url")
# Fields that wrap onto several lines: CJK phrases are marked in these (see _phrases).
_WRAPPING_FIELDS = ("title", "subtitle", "body")

#: The ``data`` fields every built-in template uses for its colours and background.
STYLE_FIELDS = frozenset({"brand_color", "background_color", "text_color", "background"})


def displayed_fields(template: str) -> frozenset[str]:
    """The ``data`` fields a template displays: its content fields and the style ones.

    ``custom`` renders the caller's HTML as given, so it displays none; an unknown name has
    none either.
    """
    spec = TEMPLATES.get(template)
    return spec.fields | STYLE_FIELDS if spec is not None else frozenset()


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


def text_direction(text: str | None) -> Literal["ltr", "rtl"]:
    """The direction of the first strongly directional character (Unicode bidi P2)."""
    for char in text or "":
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return "rtl"
        if kind == "L":
            return "ltr"
    return "ltr"


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
    fit_max = f"{spec.title_max * scale:.1f}"
    natural = {
        name: bool(value and _NATURAL_SPACING.search(value)) for name, value in fields.items()
    }
    card_lang = cjk_lang(fields[n] for n in _TEXT_FIELDS if n != "logo_url")
    lang = {name: card_lang if is_cjk(value) else None for name, value in fields.items()}
    lead = next((fields[n] for n in ("title", "subtitle", "body", "tag", "cta") if fields[n]), None)
    background = (_clean(data.get("background")) or "dark").lower()
    decor = decoration_vars(template, theme, background, width, height)
    style = "; ".join([theme.style(), *(f"{k}: {v}" for k, v in decor)])
    return (
        _environment()
        .get_template(f"{template}.html.j2")
        .render(
            d={
                name: mark_phrases(value, lang[name])
                if value and name in _WRAPPING_FIELDS
                else value
                for name, value in fields.items()
            },
            fit_min=fit_min,
            fit_max=fit_max,
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
