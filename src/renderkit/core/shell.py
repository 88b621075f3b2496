"""The warm page's shared files: the packaged Inter font and the in-page renderer script."""

from __future__ import annotations

import base64
import functools
from importlib.resources import files

from renderkit.core._font_ranges import INTER_LATIN, unicode_range

__all__ = [
    "asset_bytes",
    "asset_text",
    "font_face_css",
    "renderer_script",
    "script_font_face_css",
    "shell_head",
]

_ROOT = files("renderkit.core") / "assets"

# Inter's static weights, embedded so output looks the same on every machine; each split in a
# Latin file and the rest (scripts/split_inter.py).
_INTER_WEIGHTS = {400: "Regular", 500: "Medium", 600: "SemiBold", 700: "Bold", 800: "ExtraBold"}


def asset_bytes(path: str) -> bytes:
    """Read a packaged file, ``path`` relative to ``renderkit/core/assets``."""
    return _ROOT.joinpath(path).read_bytes()


def asset_text(path: str) -> str:
    """Read a packaged text file."""
    return _ROOT.joinpath(path).read_text(encoding="utf-8")


@functools.cache
def font_face_css() -> str:
    """``@font-face`` rules for the packaged Inter font, as inline data URLs.

    Inline fonts cost nothing per render: a warm page decodes them once. Each weight is two
    faces of one family: the rest of Inter, then its Latin file limited to its characters.
    Chromium tries the face declared last first, so Latin text (with its punctuation and
    figures) is drawn from the Latin file alone, and a Latin document embeds only that small
    file, which the PDF backend subsets in a fraction of the whole font's time (issue #30).
    """
    latin = unicode_range(INTER_LATIN)
    rules = []
    for weight, name in _INTER_WEIGHTS.items():
        for part, extra in (("rest", ""), ("latin", f";unicode-range:{latin}")):
            data = base64.b64encode(asset_bytes(f"fonts/Inter-{name}-{part}.woff2")).decode()
            rules.append(
                "@font-face{font-family:'Inter';font-style:normal;font-display:block;"
                f"font-weight:{weight};src:url(data:font/woff2;base64,{data}) format('woff2')"
                f"{extra}}}"
            )
    return "\n".join(rules)


@functools.cache
def script_font_face_css() -> str:
    """The ``@font-face`` rule for the packaged script face, family ``Renderkit Script``.

    A TrueType conversion of Dancing Script (renamed, as its licence asks of a modified font;
    ``scripts/convert_script_font.py`` rebuilds it): the Debian font has CFF outlines, which
    Chromium prints into PDFs as Type 3 glyphs instead of an embedded subset.
    """
    data = base64.b64encode(asset_bytes("fonts/RenderkitScript.woff2")).decode()
    return (
        "@font-face{font-family:'Renderkit Script';font-style:normal;font-display:block;"
        f"font-weight:400;src:url(data:font/woff2;base64,{data}) format('woff2')}}"
    )


@functools.cache
def renderer_script() -> str:
    """The in-page script that defines ``window.__rk.render``."""
    return asset_text("js/render.js")


def shell_head(css: str) -> str:
    """The ``<head>`` of a warm page: packaged fonts, the given CSS and the renderer script."""
    return (
        f"<style>{font_face_css()}</style><style>{css}</style><script>{renderer_script()}</script>"
    )
