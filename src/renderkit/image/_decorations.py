"""The decorations of the built-in image templates, drawn in Python as small PNG tiles.

Chromium re-rasterises the whole card in software for every capture, and Blink dithers every
CSS gradient: a card-sized radial glow costs tens of ms of raster, a mask another offscreen
layer, and the dither noise makes the PNG several times larger and slower to encode. So the
soft parts of the design (the glows, the gradient mesh and the fade of the hairline grid) are
drawn here, per theme and card size, into small PNG tiles that Chromium stretches with bilinear
filtering over only the part of the card where they are visible: smooth, never dithered, and
much cheaper to encode. The hairline grid is one 1px gradient per line, with its fade baked
into the stops, instead of a card-sized pattern under a mask. social-square's dots stay a CSS
pattern, in a box no larger than their fade, which the tiles cover except for a fading hole.
(bench/profile_templates.py measures all of this.)
"""

from __future__ import annotations

import functools
import io
import math
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PIL import Image

from renderkit.core.colors import RGB, opaque_rgb, parse_color
from renderkit.image._paint import RGBA, Box, Ellipse, Painter, Ramp, clip, distance, falloff, over
from renderkit.image._theme import Theme

__all__ = ["DECOR", "Decor", "decoration_vars"]


@dataclass(frozen=True)
class Decor:
    """A template's decorations, in the terms of CSS radial gradients over the whole card."""

    grid: Ellipse
    """Where the hairline grid shows: fully at the centre, fading out to the stop."""
    glow: Ellipse
    """The accent glow: the accent colour fading to transparent at the stop (see falloff)."""
    glow_2: Ellipse
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
    "grid": Ellipse(1, 0, 0.70, 0.90, 0.75),
    "glow": Ellipse(1, 0, 0.55, 0.75, 0.70),
    "glow_2": Ellipse(0.75, 1.1, 0.45, 0.60, 0.70),
}
DECOR: Mapping[str, Decor] = {
    "og-card": Decor(**_LANDSCAPE_GLOWS, lines=56, unit=(1200, 630, 1.4, "<", 1000, 1000)),
    "twitter-card": Decor(**_LANDSCAPE_GLOWS, lines=40, unit=(800, 418, 1.4, "<", 640, 640)),
    "social-square": Decor(
        grid=Ellipse(1, 0, 0.80, 0.70, 0.70),
        glow=Ellipse(1, 0, stop=0.55, circle=True),
        glow_2=Ellipse(0, 1, stop=0.50, circle=True),
        lines=None,
        unit=(1080, 1080, 1.4, ">", 1600, 760),
    ),
    "announcement": Decor(
        grid=Ellipse(1, 0.5, 0.45, 1.00, 0.80),
        glow=Ellipse(1, 0.5, 0.40, 1.10, 0.70),
        glow_2=Ellipse(0, 1, 0.30, 0.80, 0.70),
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
    if image.getchannel("A").getextrema()[0] == 255:
        image = image.convert("RGB")  # an opaque image draws without blending
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    # Percent-encoded rather than base64: a ";base64" would put a semicolon in the style
    # attribute, where naive consumers split declarations.
    return "data:image/png," + urllib.parse.quote(buffer.getvalue(), safe="")


def _tile(paint: Painter, box: Box, width: float, height: float) -> str:
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
    decor: Decor, width: int, height: int, veil: Callable[[float, float], float]
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
                alpha = max(0.0, 1 - distance(ramp, x, y)) * veil(x, y) * 100
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


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _area(box: Box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


@functools.lru_cache(maxsize=256)
def decoration_vars(
    template: str, theme: Theme, mode: str, width: int, height: int
) -> tuple[tuple[str, str], ...]:
    """The custom properties that draw a template's decorations for one theme and size.

    ``--rk-canvas`` is what the card paints under everything (a colour, or for the gradient
    background the mesh as one stretched tile), ``--rk-decor`` the tiles over it (a
    ``background`` value), ``--rk-grid`` the hairlines of a line grid, and ``--rk-grid-*``
    the box of a dot grid, which the tiles cover except for a hole where it shows.
    """
    decor = DECOR[template]
    mesh = theme.mesh
    full: Box = (0.0, 0.0, float(width), float(height))
    glows: list[tuple[Ramp, RGB, float, Box]] = []  # bottom to top
    if mode != "gradient" and (accent := parse_color(theme.glow or theme.accent)) is not None:
        dark = theme.tone == "dark"
        strength = float(theme.glow_alpha.rstrip("%")) / 100 if dark else 0.24
        accent_2 = opaque_rgb(theme.glow_2 or theme.accent_2) or accent[:3]
        for ellipse, rgb, alpha in (
            (decor.glow_2, accent_2, 0.28 if dark else 0.16),
            (decor.glow, accent[:3], strength * accent[3]),
        ):
            if alpha > 0:
                glows.append((ellipse.ramp(width, height), rgb, alpha, ellipse.box(width, height)))

    background: Painter | None = None
    if mesh is not None:
        background = mesh.painter(width, height)
        canvas_css = f"{_tile(background, full, width, height)}, {theme.bg_solid}"
    else:
        if (canvas := opaque_rgb(theme.bg_solid)) is not None:
            solid: RGBA = (*canvas, 1.0)
            background = lambda x, y: solid  # noqa: E731
        canvas_css = theme.bg

    def veil(x: float, y: float) -> float:
        shown = 1.0
        for ramp, _, alpha, _ in glows:
            shown *= 1 - alpha * falloff(distance(ramp, x, y))
        return shown

    result = [("--rk-canvas", canvas_css)]
    hole: Ramp | None = None
    grid_box: Box | None = None
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
    def paint(x: float, y: float) -> RGBA:
        p: RGBA = (0.0, 0.0, 0.0, 0.0)
        if background is not None:
            r, g, b, a = background(x, y)
            p = (r, g, b, a * min(1.0, distance(hole, x, y)) if hole else a)
        for ramp, rgb, alpha, _ in glows:
            p = over((*rgb, alpha * falloff(distance(ramp, x, y))), p)
        return p

    boxes = [glow[3] for glow in glows]
    if grid_box is not None:
        m = _GRID_MARGIN
        boxes.append(
            clip(
                (grid_box[0] - m, grid_box[1] - m, grid_box[2] + m, grid_box[3] + m), width, height
            )
        )

    # Every tile paints the same picture, opaque except over the dots' hole (or everywhere
    # when the background is translucent). Tiles that overlap where it is translucent would
    # paint that part twice: merge those.
    def clash(a: Box, b: Box) -> bool:
        if not _overlaps(a, b):
            return False
        if background is None:
            return True
        if grid_box is None:
            return False
        overlap = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
        return _overlaps(overlap, grid_box)

    tiles: list[Box] = []
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
