"""Running headers and footers: what repeats at the top or bottom of the pages.

A piece in the top or bottom band of a page whose text, digits aside ("Page 3 of 9"),
comes back in the same band on at least half the pages (two at least) is page furniture,
and so is a lone page number there; both are dropped from the Markdown.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from renderkit.parsing.markdown.pieces import Piece

__all__ = ["drop_furniture"]

# The share of the page height at its top and bottom where running headers and footers sit.
_BAND = 0.09
_PAGE_NUMBER = re.compile(
    r"^\W*(?:page|seite|página|pagina|p\.)?\s*\d{1,4}"
    r"(?:\s*(?:/|of|von|de|di)\s*\d{1,4})?\W*$",
    re.IGNORECASE,
)


def _band(piece: Piece) -> str | None:
    if piece.bbox[3] <= _BAND:
        return "top"
    if piece.bbox[1] >= 1 - _BAND:
        return "bottom"
    return None


def _key(piece: Piece) -> str:
    text = " ".join(piece.lines) + " ".join(c for r in piece.cells for c in r)
    return re.sub(r"\d+", "#", text.lower()).strip()


def drop_furniture(pages: Sequence[Sequence[Piece]]) -> list[list[Piece]]:
    """Each page's pieces without its running headers and footers."""
    if len(pages) < 2:
        return [list(p) for p in pages]
    seen: Counter[tuple[str, str]] = Counter()
    for page in pages:
        keys = {(band, _key(p)) for p in page if (band := _band(p)) is not None}
        seen.update(keys)
    needed = max(2, (len(pages) + 1) // 2)
    out: list[list[Piece]] = []
    for page in pages:
        kept = []
        for piece in page:
            band = _band(piece)
            if band is not None and (
                seen[(band, _key(piece))] >= needed or _PAGE_NUMBER.match(" ".join(piece.lines))
            ):
                continue
            kept.append(piece)
        out.append(kept)
    return out
