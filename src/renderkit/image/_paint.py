"""Soft shapes painted in Python: elliptical ramps, compositing and the gradient mesh.

These are the pixel maths behind the decoration tiles (:mod:`renderkit.image._decorations`)
and the ``gradient`` background (:class:`GradientMesh`), written in the terms of the CSS
gradients they stand in for, so the CSS and the tiles describe the same picture.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from renderkit.core.colors import RGB, mix, to_hex

__all__ = [
    "RGBA",
    "Box",
    "Ellipse",
    "GradientMesh",
    "Painter",
    "Ramp",
    "clip",
    "distance",
    "falloff",
    "over",
]

RGBA = tuple[float, float, float, float]
"""An unpremultiplied colour with alpha, channels in 0..1."""
Painter = Callable[[float, float], RGBA]
"""The colour of a picture at a point (CSS px)."""
Ramp = tuple[float, float, float, float]
"""Centre x, centre y, radius x, radius y (CSS px)."""
Box = tuple[float, float, float, float]
"""Left, top, right, bottom (CSS px)."""


def over(top: RGBA, below: RGBA) -> RGBA:
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


def clip(box: Box, width: float, height: float) -> Box:
    """``box`` cut to a ``width`` x ``height`` card."""
    return (max(0.0, box[0]), max(0.0, box[1]), min(width, box[2]), min(height, box[3]))


def distance(ramp: Ramp, x: float, y: float) -> float:
    """0 at the centre of a ramp, 1 at its stop."""
    cx, cy, rx, ry = ramp
    return math.hypot((x - cx) / rx, (y - cy) / ry) if rx > 0 and ry > 0 else math.inf


_EASE = 0.25


def falloff(ramp_distance: float) -> float:
    """A glow's strength at a ramp distance: 1 - distance, like a CSS gradient to transparent,
    except that the last quarter eases into zero. Blink dithers its gradients, which hides the
    kink where a linear ramp stops; an undithered tile would show it as a faint dark ring."""
    t = 1.0 - ramp_distance
    if t >= _EASE:
        return t
    if t <= 0:
        return 0.0
    # The cubic that leaves 0 flat and meets the line at _EASE with the same value and slope.
    return t * t * (2 * _EASE - t) / (_EASE * _EASE)


@dataclass(frozen=True)
class Ellipse:
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

    def ramp(self, width: float, height: float) -> Ramp:
        """The ramp on a ``width`` x ``height`` card."""
        rx, ry = self.radii(width, height)
        return (self.cx * width, self.cy * height, rx, ry)

    def box(self, width: float, height: float) -> Box:
        """Where the ramp is not yet at its stop, clipped to the card (CSS px)."""
        x, y, rx, ry = self.ramp(width, height)
        return clip((x - rx, y - ry, x + rx, y + ry), width, height)


@dataclass(frozen=True)
class GradientMesh:
    """The ``gradient`` background: two glows over a diagonal wash from ``base`` to ``deep``."""

    base: RGB
    deep: RGB
    c1: RGB
    a1: float
    c2: RGB
    a2: float

    GLOW_1 = Ellipse(0, 0, 0.75, 0.95, 0.7)
    GLOW_2 = Ellipse(1, 1, 0.70, 0.90, 0.7)

    def css(self) -> str:
        """The mesh as CSS gradients, for the ``background`` shorthand (what the tiles draw)."""

        def glow(ellipse: Ellipse, colour: RGB, alpha: float) -> str:
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

    def painter(self, width: float, height: float) -> Painter:
        """The mesh's colour at a point (CSS px) of a ``width`` x ``height`` card."""
        glow_1, glow_2 = self.GLOW_1.ramp(width, height), self.GLOW_2.ramp(width, height)
        # CSS's 135deg gradient line runs corner to corner through the centre.
        dx = dy = math.sqrt(0.5)
        length = width * dx + height * dy

        def paint(x: float, y: float) -> RGBA:
            t = ((x - width / 2) * dx + (y - height / 2) * dy) / length + 0.5
            wash = (*mix(self.base, self.deep, min(1.0, max(0.0, t))), 1.0)
            p = over((*self.c2, self.a2 * falloff(distance(glow_2, x, y))), wash)
            return over((*self.c1, self.a1 * falloff(distance(glow_1, x, y))), p)

        return paint
