"""The unit every stage passes on: a block of a page before it is written as Markdown."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import attrs

from renderkit.parsing._protocol import BBox, StyledWord, union_bbox
from renderkit.parsing.layout.model import Segment

__all__ = ["Piece", "is_bold", "text_size"]


@attrs.frozen(kw_only=True)
class Piece:
    """A block of one page: a run of lines of one style, a list or a table.

    Attributes:
        page: 1-based page number.
        kind: ``paragraph``, ``heading``, ``list`` or ``table``.
        lines: the text lines, top to bottom (a list: one item per line; a table: none).
        cells: a table's rows of cells, the first row its header.
        size: the text height as a fraction of the page height (the font size, for headings).
        bold: most of its words are set in a bold face (text layers only).
        level: a heading's level, 1 for the largest.
        ocr: the page was read by OCR.
    """

    page: int
    kind: str
    bbox: BBox
    lines: tuple[str, ...] = ()
    cells: tuple[tuple[str, ...], ...] = ()
    size: float = 0.0
    bold: bool = False
    level: int = 0
    ocr: bool = False

    @property
    def chars(self) -> int:
        """How many characters the piece says."""
        return sum(len(line) for line in self.lines) + sum(len(c) for r in self.cells for c in r)


def text_size(segments: Sequence[Segment]) -> float:
    """The median word height of ``segments`` (a fraction of the page height)."""
    return statistics.median(w.bbox[3] - w.bbox[1] for s in segments for w in s.words)


def is_bold(segments: Sequence[Segment]) -> bool:
    """Whether most characters of ``segments`` are set in a bold face."""
    bold = total = 0
    for segment in segments:
        for word in segment.words:
            total += len(word.text)
            if isinstance(word, StyledWord) and word.bold:
                bold += len(word.text)
    return total > 0 and bold * 2 > total


def box_of(segments: Sequence[Segment]) -> BBox:
    """The union of the segments' boxes."""
    return union_bbox(s.bbox for s in segments)
