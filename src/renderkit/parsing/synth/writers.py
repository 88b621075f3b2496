"""Invoices written the way other PDF generators write them: turned pages, fonts without
their ToUnicode maps.

Chromium writes a clean text layer: upright pages, every glyph mapped to its text. Other
generators and scanners turn a page's content and set ``/Rotate`` to turn it back (a scan
fed sideways, a landscape print), draw landscape text sideways onto a portrait page, save an
upright page under a stray ``/Rotate``, or embed fonts without a ToUnicode map, so the text
layer is glyph numbers. The option ``--pdf-writers`` (``Variations(pdf_writers=True)``)
draws one of these for half the invoices printed as PDFs, from a generator of its own (sets
made without it are unchanged); :func:`rewrite` applies it to the printed PDF with pikepdf.
The page looks the same (all but ``sideways`` and ``stray`` display upright); the truth is
the untouched document's.
"""

from __future__ import annotations

import io
import random

import pikepdf

__all__ = ["WAYS", "choose_writer", "rewrite"]

#: The ways a PDF is rewritten: (content turned counter-clockwise, /Rotate) for the turns,
#: or None for fonts stripped of their ToUnicode maps.
WAYS: dict[str, tuple[int, int] | None] = {
    "turned-90": (90, 90),
    "turned-180": (180, 180),
    "turned-270": (270, 270),
    "sideways": (90, 0),
    "stray-rotate": (0, 90),
    "unmapped": None,
}


def choose_writer(rng: random.Random) -> str:
    """How one invoice's PDF is rewritten (``Layout.writer``): as printed on half of them."""
    return rng.choice(sorted(WAYS)) if rng.random() < 0.5 else ""


def rewrite(pdf: bytes, way: str) -> bytes:
    """``pdf`` rewritten the ``way`` of :data:`WAYS`."""
    turn = WAYS[way]
    with pikepdf.open(io.BytesIO(pdf)) as document:
        for page in document.pages:
            if turn is None:
                _unmap(page)
            else:
                _turn(document, page, *turn)
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()


def _unmap(page: pikepdf.Page) -> None:
    for font in page.Resources.get("/Font", {}).values():
        if "/ToUnicode" in font:
            del font["/ToUnicode"]


def _turn(document: pikepdf.Pdf, page: pikepdf.Page, turn: int, rotate: int) -> None:
    """Draw ``page``'s content turned ``turn`` degrees counter-clockwise (the media box turned
    to fit) and set its ``/Rotate``."""
    width, height = float(page.mediabox[2]), float(page.mediabox[3])
    placed = {
        0: (1, 0, 0, 1, 0, 0),
        90: (0, 1, -1, 0, height, 0),
        180: (-1, 0, 0, -1, width, height),
        270: (0, -1, 1, 0, 0, width),
    }[turn]
    page.contents_coalesce()
    content = page.Contents.read_bytes()
    matrix = " ".join(f"{v:g}" for v in placed).encode()
    page.Contents = document.make_stream(b"q " + matrix + b" cm\n" + content + b"\nQ")
    if turn in (90, 270):
        page.MediaBox = [0, 0, height, width]
    if rotate:
        page.Rotate = rotate
