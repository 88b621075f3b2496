"""Reading order across columns: a recursive cut of the page along its white space.

A page is cut first at a vertical gutter running through the whole region (two columns are
read one after the other), else at horizontal gaps (bands read top to bottom), and each part
is cut again, until nothing more divides; what is left is read top to bottom, left to right.
Cutting columns first keeps a gap that happens to line up across two columns of text from
interleaving them; a heading or a table across the page blocks the gutter, so the page is
cut into bands there first.
"""

from __future__ import annotations

from collections.abc import Sequence

from renderkit.parsing.markdown.pieces import Piece

__all__ = ["reading_order"]

# A gutter must be at least this wide (a fraction of the page width) to divide columns.
_GUTTER = 0.015
# Cuts nested deeper than this, or pages of more pieces, are read top to bottom instead: a
# crafted page (a staircase of blocks) would otherwise recurse once per block, and its bands
# cost a quadratic number of trial cuts.
_MAX_DEPTH = 40
_MAX_PIECES = 600


def _split(pieces: Sequence[Piece], axis: int, min_gap: float) -> list[list[Piece]]:
    """``pieces`` in groups separated by a gap of at least ``min_gap`` along ``axis``."""
    ordered = sorted(pieces, key=lambda p: p.bbox[axis])
    groups: list[list[Piece]] = []
    end = -1.0
    for piece in ordered:
        start, stop = piece.bbox[axis], piece.bbox[axis + 2]
        if groups and start - end < min_gap:
            groups[-1].append(piece)
            end = max(end, stop)
        else:
            groups.append([piece])
            end = stop
    return groups


def _columns(pieces: Sequence[Piece]) -> int:
    return len(_split(pieces, 0, _GUTTER))


def _bands(pieces: Sequence[Piece]) -> list[list[Piece]]:
    """Horizontal bands, where consecutive bands that share a gutter are one band again.

    Two columns whose paragraph gaps happen to line up would otherwise be cut into bands
    across both columns and read line of blocks by line of blocks, interleaved.
    """
    bands: list[list[Piece]] = []
    for band in _split(pieces, 1, 0.0):
        if bands and _columns(band) > 1 and _columns(bands[-1]) > 1:
            joined = [*bands[-1], *band]
            if _columns(joined) > 1:
                bands[-1] = joined
                continue
        bands.append(band)
    return bands


def reading_order(pieces: Sequence[Piece], *, depth: int = 0) -> list[Piece]:
    """``pieces`` of one page in reading order."""
    if len(pieces) <= 1:
        return list(pieces)
    if depth < _MAX_DEPTH and len(pieces) <= _MAX_PIECES:
        columns = _split(pieces, 0, _GUTTER)
        if len(columns) > 1:
            return [p for c in columns for p in reading_order(c, depth=depth + 1)]
        bands = _bands(pieces)
        if len(bands) > 1:
            return [p for b in bands for p in reading_order(b, depth=depth + 1)]
    return sorted(pieces, key=lambda p: (p.bbox[1], p.bbox[0]))
