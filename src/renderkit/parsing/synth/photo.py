"""Photo-like variants of rendered pages: the page on a background, turned a little, seen at a
slant, unevenly lit, slightly out of focus and saved as a low-quality JPEG."""

from __future__ import annotations

import io
import random

from PIL import Image, ImageDraw, ImageFilter

__all__ = ["MAX_SIDE", "photograph"]

#: The longest side of a photo, in pixels: photos are bounded whatever the page's size.
MAX_SIDE = 1800


def _perspective(width: int, height: int, rng: random.Random) -> tuple[float, ...]:
    """Coefficients of a mild perspective warp (corners moved by up to 4% of the side)."""
    dx, dy = width * 0.04, height * 0.04
    src = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
    dst = [(x + rng.uniform(-dx, dx), y + rng.uniform(-dy, dy)) for x, y in src]
    # Solve the 8 unknowns of the projective map from dst (output) to src (input) by Gauss.
    rows: list[list[float]] = []
    for (x, y), (u, v) in zip(dst, src, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, v])
    for col in range(8):
        pivot = max(range(col, 8), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(8):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return tuple(rows[i][8] / rows[i][i] for i in range(8))


def _lighting(size: tuple[int, int], rng: random.Random) -> Image.Image:
    """A grey mask, bright where light falls and darker in a shadow across one side."""
    width, height = size
    small = Image.new("L", (64, 64), 255)
    draw = ImageDraw.Draw(small)
    low = rng.randint(150, 215)
    side = rng.randrange(4)
    for i in range(64):
        shade = round(low + (255 - low) * i / 63)
        if side == 0:
            draw.line([(i, 0), (i, 63)], fill=shade)
        elif side == 1:
            draw.line([(63 - i, 0), (63 - i, 63)], fill=shade)
        elif side == 2:
            draw.line([(0, i), (63, i)], fill=shade)
        else:
            draw.line([(0, 63 - i), (63, 63 - i)], fill=shade)
    return small.resize((width, height), Image.Resampling.BILINEAR)


def photograph(page: Image.Image, rng: random.Random) -> bytes:
    """``page`` as a phone photo would show it, as JPEG bytes (longest side <= MAX_SIDE)."""
    page = page.convert("RGB")
    scale = min(1.0, (MAX_SIDE * 0.85) / max(page.size))
    if scale < 1.0:
        page = page.resize(
            (round(page.width * scale), round(page.height * scale)), Image.Resampling.LANCZOS
        )
    margin = round(max(page.size) * rng.uniform(0.04, 0.09))
    table = tuple(rng.randint(70, 160) for _ in range(3))
    canvas = Image.new("RGB", (page.width + 2 * margin, page.height + 2 * margin), table)
    canvas.paste(page, (margin, margin))
    canvas = canvas.rotate(
        rng.uniform(-4.0, 4.0), resample=Image.Resampling.BICUBIC, expand=False, fillcolor=table
    )
    canvas = canvas.transform(
        canvas.size,
        Image.Transform.PERSPECTIVE,
        _perspective(*canvas.size, rng),
        resample=Image.Resampling.BICUBIC,
        fillcolor=table,
    )
    shade = _lighting(canvas.size, rng)
    canvas = Image.composite(canvas, Image.new("RGB", canvas.size, (0, 0, 0)), shade)
    canvas = canvas.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.1)))
    if max(canvas.size) > MAX_SIDE:
        ratio = MAX_SIDE / max(canvas.size)
        canvas = canvas.resize(
            (round(canvas.width * ratio), round(canvas.height * ratio)), Image.Resampling.LANCZOS
        )
    out = io.BytesIO()
    canvas.save(out, "JPEG", quality=rng.randint(35, 70))
    return out.getvalue()
