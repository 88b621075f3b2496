"""Paragraphs and lists: the layout's blocks, cut where the style changes.

The layout model stacks aligned segments on close rows into blocks; a heading set right above
its paragraph lands in the paragraph's block, so a block is cut wherever the text height or
the weight changes. A block whose lines open with a bullet or a number is a list, and so is
a block of short lines indented from the line of text above them (a list whose markers are
drawn, not written, as browsers print them).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from renderkit.parsing.layout.model import PageLayout, Segment
from renderkit.parsing.markdown.pieces import Piece, box_of, is_bold, text_size

__all__ = ["BULLET", "text_pieces"]

#: A list item's marker at the start of a line: a bullet, or a number or letter with ``.``/``)``.
BULLET = re.compile(r"^(?:[•·▪◦‣●○■□➢►–*-]|\(?(?:\d{1,3}|[a-zA-Z])[.)])\s+")
# Text heights differing by more than this ratio are different styles.
_SIZE_STEP = 1.12
# An indented list: lines shorter than this share of the page's text width, indented at
# least this many text heights.
_SHORT_LINE = 0.6
_INDENT = 1.0


def _styled_runs(segments: Sequence[Segment]) -> list[list[Segment]]:
    runs: list[list[Segment]] = []
    for segment in segments:
        if runs:
            last = runs[-1]
            size, new = text_size(last), text_size([segment])
            same_size = max(size, new) <= min(size, new) * _SIZE_STEP
            if same_size and is_bold(last) == is_bold([segment]):
                last.append(segment)
                continue
        runs.append([segment])
    return runs


def _marked_items(run: Sequence[Segment]) -> list[list[Segment]] | None:
    """The run's items when its first line opens with a marker: a new item at every marker."""
    if not BULLET.match(run[0].text):
        return None
    items: list[list[Segment]] = []
    for segment in run:
        if BULLET.match(segment.text) or not items:
            items.append([segment])
        else:
            items[-1].append(segment)
    return items


def _indented_list(run: Sequence[Segment], others: Sequence[Segment], aspect: float) -> bool:
    """Short lines indented from the line of text right above them, in the same column."""
    if len(run) < 2:
        return False
    x0 = min(s.bbox[0] for s in run)
    x1 = max(s.bbox[2] for s in run)
    top = run[0].bbox[1]
    above = [
        s for s in others if s.bbox[3] <= top and s.bbox[0] < x1 and s.bbox[2] > x0 and s not in run
    ]
    if not above:
        return False
    nearest = max(above, key=lambda s: s.bbox[3])
    width = nearest.bbox[2] - nearest.bbox[0]
    height = text_size(run) * aspect
    return x0 - nearest.bbox[0] >= _INDENT * height and all(
        (s.bbox[2] - s.bbox[0]) < _SHORT_LINE * width for s in run
    )


def text_pieces(
    layout: PageLayout,
    *,
    taken: Collection[Segment],
    aspect: float,
    ocr: bool,
) -> list[Piece]:
    """The page's paragraphs and lists (segments in ``taken``, the tables', left out)."""
    kept = [[s for s in b.segments if s not in taken] for b in layout.blocks]
    every = [s for block in kept for s in block]
    if not every:
        return []
    pieces: list[Piece] = []
    for block in kept:
        if not block:
            continue
        if ocr and all(len(w.text) == 1 for s in block for w in s.words):
            continue  # stray letters OCR found beside a line it read whole: debris
        for run in _styled_runs(block):
            items = _marked_items(run)
            if items is not None:
                kind, lines = "list", tuple(" ".join(s.text for s in item) for item in items)
            else:
                lines = tuple(s.text for s in run)
                kind = "list" if _indented_list(run, every, aspect) else "paragraph"
            pieces.append(
                Piece(
                    page=layout.number,
                    kind=kind,
                    bbox=box_of(run),
                    lines=lines,
                    size=text_size(run),
                    bold=is_bold(run),
                    ocr=ocr,
                )
            )
    return pieces
