"""Headings: pieces set larger than the body text, or in bold at its size.

The body size is the text height most characters of the document are set in. A short piece
clearly larger than it is a heading, its level given by its size among the headings' sizes
(the largest is level 1); a short bold line at body size is a heading one level below them.
Text layers measure heights exactly; OCR boxes follow the letters drawn, so a scan's heading
must stand out more.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from renderkit.parsing.markdown.pieces import Piece

__all__ = ["mark_headings"]

# How much larger than the body text a heading is set (text layer, OCR).
_LARGER = 1.18
_LARGER_OCR = 1.35
# Heading sizes within this ratio share a level.
_SAME_LEVEL = 1.08
# A heading is a few short lines.
_MAX_LINES = 3
_MAX_CHARS = 160
_MAX_BOLD_CHARS = 90
_LETTERS = 0.6


def _body_size(pieces: Sequence[Piece]) -> float:
    weights: dict[float, int] = {}
    for piece in pieces:
        if piece.kind in ("paragraph", "list", "table"):
            size = round(piece.size, 4)
            weights[size] = weights.get(size, 0) + piece.chars
    return max(weights, key=lambda s: weights[s]) if weights else 0.0


def _candidate(piece: Piece) -> bool:
    text = " ".join(piece.lines)
    return (
        piece.kind == "paragraph"
        and len(piece.lines) <= _MAX_LINES
        and len(text) <= _MAX_CHARS
        # Mostly letters: a date or an amount set large is no heading.
        and sum(c.isalpha() for c in text) > _LETTERS * sum(c.isalnum() for c in text)
        and not text.rstrip().endswith((".", ",", ";"))
    )


def mark_headings(pieces: Sequence[Piece]) -> list[Piece]:
    """``pieces`` with their headings marked and levelled."""
    body = _body_size(pieces)
    if body <= 0:
        return list(pieces)
    large: list[Piece] = []
    bold: list[Piece] = []
    for piece in pieces:
        if not _candidate(piece):
            continue
        factor = _LARGER_OCR if piece.ocr else _LARGER
        if piece.size >= body * factor:
            large.append(piece)
        elif (
            piece.bold
            and len(piece.lines) == 1
            and piece.size >= body * 0.95
            and piece.chars <= _MAX_BOLD_CHARS
        ):
            bold.append(piece)
    sizes: list[float] = []
    for size in sorted({p.size for p in large}, reverse=True):
        if not sizes or size * _SAME_LEVEL < sizes[-1]:
            sizes.append(size)
    levels = {id(p): min(6, 1 + sum(s > p.size * _SAME_LEVEL for s in sizes)) for p in large}
    bold_level = min(6, len(sizes) + 1)
    levels.update({id(p): bold_level for p in bold})
    return [
        attrs.evolve(p, kind="heading", level=levels[id(p)]) if id(p) in levels else p
        for p in pieces
    ]
