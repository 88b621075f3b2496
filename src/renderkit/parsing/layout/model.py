"""A layout model of a page: rows, segments, blocks and columns, in reading order.

Every extractor reads the same model, built from words with boxes whatever their origin (a
PDF's text layer or OCR):

- a **row** is the words that share a baseline across the whole page width;
- a **segment** is a run of words within a row, cut where the horizontal gap is wider than
  the text is tall: a table cell, a label, a value printed further right;
- a **block** is segments stacked on consecutive rows with their left edges (or boxes)
  aligned: an address, a paragraph, a column of a table;
- a **column** is blocks whose horizontal spans overlap; blocks are read column by column,
  top to bottom, which is the reading order of :meth:`PageLayout.lines`.

The top of a one-column page (a till receipt's header) is read differently, by
:func:`stacked_blocks`: whole rows top to bottom, cut into blocks by vertical gap alone, since
centred lines of different widths there are one block, not several columns.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import TypeVar

import attrs

from renderkit.parsing._protocol import (
    BBox,
    Document,
    Line,
    Page,
    Word,
    WordRun,
    stand_over,
    union_bbox,
)

__all__ = [
    "Block",
    "PageLayout",
    "Row",
    "Segment",
    "build_layout",
    "layout_document",
    "stacked_blocks",
]

# What :func:`_banded` groups into rows: words, or an OCR page's lines.
_Item = TypeVar("_Item", Word, Line)

# A horizontal gap wider than this many text heights ends a segment (table cells, label/value).
_SEGMENT_GAP = 1.0
# Two words side by side whose heights differ by this ratio are set in different type.
_TYPE_JUMP = 1.4
# A vertical gap wider than this many text heights ends a block.
_BLOCK_GAP = 0.9
# Left edges within this many text heights count as aligned.
_ALIGN = 1.5
# A tilt is estimated only from this many word pairs, and never steeper than this slope.
_SKEW_EVIDENCE = 3
_MAX_SKEW = 0.15


@attrs.frozen(kw_only=True)
class Segment(WordRun):
    """A run of words on one row, separated from its neighbours by a wide gap.

    Attributes:
        words: the words, left to right.
        page: 1-based page number.
        row: the index of the row on its page.
    """

    words: tuple[Word, ...]
    page: int
    row: int
    #: True when the words come from a PDF's text layer, whose word boxes are their font's
    #: height; OCR's vary with the letters ("UG" against "(haftungsbeschränkt)").
    text_layer: bool = False

    def as_line(self) -> Line:
        """The segment as a :class:`Line`."""
        return Line(words=self.words, page=self.page)

    def type_texts(self) -> tuple[str, ...]:
        """The segment's text in runs set in one type size, cut where the next word is
        :data:`_TYPE_JUMP` times taller or shorter: a logo's big word printed beside the name
        on the name's line is no part of it, nor a title of the label beside it.

        Only on a text layer (:attr:`text_layer`): an OCR line stays whole.
        """
        if not self.text_layer:
            return (self.text,)
        runs: list[list[Word]] = [[self.words[0]]]
        for before, word in zip(self.words, self.words[1:], strict=False):
            low, high = sorted((_height(before), _height(word)))
            if high > low * _TYPE_JUMP:
                runs.append([])
            runs[-1].append(word)
        return tuple(" ".join(w.text for w in run) for run in runs)


@attrs.frozen(kw_only=True)
class Row:
    """The segments that share a text row, left to right.

    Attributes:
        segments: the segments.
        page: 1-based page number.
        index: the row's index on its page, top to bottom.
    """

    segments: tuple[Segment, ...]
    page: int
    index: int

    @property
    def words(self) -> tuple[Word, ...]:
        """Every word of the row, left to right."""
        return tuple(w for s in self.segments for w in s.words)

    @property
    def text(self) -> str:
        """The segments joined by single spaces."""
        return " ".join(s.text for s in self.segments)

    @property
    def bbox(self) -> BBox:
        """The union of the segments' boxes."""
        return union_bbox(s.bbox for s in self.segments)

    @property
    def leading(self) -> Segment | None:
        """The first segment that says something: strokes OCR reads from rules and edges
        ("|", "—") come before it at most."""
        return next((s for s in self.segments if any(c.isalnum() for c in s.text)), None)


@attrs.frozen(kw_only=True)
class Block:
    """Segments stacked on consecutive rows and aligned: an address, a paragraph, a cell column.

    Attributes:
        segments: the segments, top to bottom.
        column: the index of the page column the block belongs to, left to right.
    """

    segments: tuple[Segment, ...]
    column: int = 0

    @property
    def text(self) -> str:
        """One line per segment."""
        return "\n".join(s.text for s in self.segments)

    @property
    def bbox(self) -> BBox:
        """The union of the segments' boxes."""
        return union_bbox(s.bbox for s in self.segments)


@attrs.frozen(kw_only=True)
class PageLayout:
    """The layout of one page.

    Attributes:
        number: 1-based page number.
        rows: the rows, top to bottom.
        blocks: the blocks in reading order.
    """

    number: int
    rows: tuple[Row, ...]
    blocks: tuple[Block, ...]

    def lines(self) -> tuple[Line, ...]:
        """The page's text as lines in reading order (block by block)."""
        return tuple(s.as_line() for b in self.blocks for s in b.segments)

    def block_of(self, segment: Segment) -> Block | None:
        """The block holding ``segment``."""
        for block in self.blocks:
            if segment in block.segments:
                return block
        return None


def _height(word: Word) -> float:
    return max(word.bbox[3] - word.bbox[1], 1e-4)


def _centre(word: Word) -> tuple[float, float]:
    return (word.bbox[0] + word.bbox[2]) / 2, (word.bbox[1] + word.bbox[3]) / 2


def _skew(lines: Sequence[Line]) -> float:
    """The page's tilt as a slope (vertical drift per unit of width), from the text lines.

    The words of one line share a baseline, so on a photo taken askew their centres climb or
    fall steadily from left to right: the median slope between neighbours spaced apart tells
    the page's tilt, whatever a few misread words say. A text layer's lines are level (0).
    """
    slopes: list[float] = []
    for line in lines:
        for left, right in zip(line.words, line.words[1:], strict=False):
            (lx, ly), (rx, ry) = _centre(left), _centre(right)
            if rx - lx > 2 * max(_height(left), _height(right)):
                slopes.append((ry - ly) / (rx - lx))
    if len(slopes) < _SKEW_EVIDENCE:
        return 0.0
    return max(-_MAX_SKEW, min(_MAX_SKEW, statistics.median(slopes)))


def _banded(
    items: Sequence[_Item],
    level: Callable[[_Item], float],
    height: Callable[[_Item], float],
    apart: Callable[[_Item, _Item], bool] = lambda a, b: False,
) -> list[list[_Item]]:
    """``items`` (words, or an OCR page's lines) grouped into rows by their ``level`` (the
    centre's height across the page's tilt), top to bottom.

    An item joins the row above when its level falls in the band of the item that opened the
    row, or that item's level in the item's own band, a band being most of half the item's
    height either side (superscripts stay, the next row doesn't), and it stands ``apart``
    from none of the row's items: a short stroke ("|", "—") opening the row does not keep
    its taller neighbours out, and a tall stamp does not swallow the next row.
    """
    placed = sorted(((level(i), i) for i in items), key=lambda p: (p[0], p[1].bbox[0]))
    rows: list[list[tuple[float, _Item]]] = []
    for at, item in placed:
        if rows:
            opener_at, opener = rows[-1][0]
            reach, own_reach = height(opener) / 2 * 0.8, height(item) / 2 * 0.8
            near = abs(at - opener_at) <= reach or abs(opener_at - at) <= own_reach
            if near and not any(apart(item, other) for _, other in rows[-1]):
                rows[-1].append((at, item))
                continue
        rows.append([(at, item)])
    return [[item for _, item in row] for row in rows]


def _rows(words: Sequence[Word], skew: float = 0.0) -> list[list[Word]]:
    """Words grouped by shared baseline, measured across the page's tilt (``skew``)
    (:func:`_banded`), each row left to right."""

    def level(word: Word) -> float:
        x, y = _centre(word)
        return y - skew * x

    return [sorted(row, key=lambda w: w.bbox[0]) for row in _banded(words, level, _height)]


def _line_rows(lines: Sequence[Line], skew: float = 0.0) -> list[list[Word]]:
    """An OCR page's lines grouped into rows, measured across the page's tilt (``skew``).

    The OCR engine already joined each printed line's parts along the page's skew, so a line
    is never split, and lines join one row only side by side (:func:`_banded`): two lines
    that stand over each other (:func:`~renderkit.parsing._protocol.stand_over`) are two
    rows, however close their levels on a tilted photo (their words interleaved made "IBAN:
    BTW nr: NL95 NL972410582B36 MHVP 3905 ..." of a VAT id's line and the IBAN's under it).
    Lines at one level side by side (a form's two columns, read by Tesseract as separate
    lines) are one row, as words are in :func:`_rows`.
    """

    def level(line: Line) -> float:
        return statistics.median(_centre(w)[1] - skew * _centre(w)[0] for w in line.words)

    def stacked(a: Line, b: Line) -> bool:
        return stand_over((a.bbox[0], a.bbox[2]), (b.bbox[0], b.bbox[2]))

    rows = _banded([x for x in lines if x.words], level, _line_height, stacked)
    return [sorted((w for x in row for w in x.words), key=lambda w: w.bbox[0]) for row in rows]


def _segments(
    row: list[Word], page: int, index: int, aspect: float, *, text_layer: bool
) -> tuple[Segment, ...]:
    height = statistics.median(_height(w) for w in row)
    # Boxes are page fractions: heights of the page height, gaps of its width, so a gap is
    # compared with a height times the page's aspect ratio (height / width).
    out: list[Segment] = []
    current: list[Word] = [row[0]]
    for word in row[1:]:
        gap = word.bbox[0] - current[-1].bbox[2]
        if gap > height * _SEGMENT_GAP * aspect:
            out.append(Segment(words=tuple(current), page=page, row=index, text_layer=text_layer))
            current = []
        current.append(word)
    out.append(Segment(words=tuple(current), page=page, row=index, text_layer=text_layer))
    return tuple(out)


def _aligned(a: Segment, b: Segment, aspect: float) -> bool:
    ax0, _, ax1, _ = a.bbox
    bx0, _, bx1, _ = b.bbox
    tolerance = max(a.height, b.height) * _ALIGN * aspect
    overlap = min(ax1, bx1) - max(ax0, bx0)
    return abs(ax0 - bx0) <= tolerance or overlap >= 0.6 * min(ax1 - ax0, bx1 - bx0)


def _blocks(rows: Sequence[Row], aspect: float) -> list[list[Segment]]:
    blocks: list[list[Segment]] = []
    for row in rows:
        taken: set[int] = set()
        for segment in row.segments:
            best = None
            for index, block in enumerate(blocks):
                last = block[-1]
                if index in taken or last.row >= row.index:
                    continue
                gap = segment.bbox[1] - last.bbox[3]
                close = gap <= max(last.height, segment.height) * _BLOCK_GAP
                # Between rows, only the block whose last segment is nearest above counts.
                nearer = best is None or last.bbox[3] > blocks[best][-1].bbox[3]
                if close and nearer and _aligned(last, segment, aspect):
                    best = index
            if best is None:
                blocks.append([segment])
                taken.add(len(blocks) - 1)
            else:
                blocks[best].append(segment)
                taken.add(best)
    return blocks


def _columns(blocks: list[list[Segment]]) -> list[int]:
    """A column index per block: blocks whose spans overlap share a column."""
    spans = sorted((union_bbox(s.bbox for s in b)[0], union_bbox(s.bbox for s in b)[2], i)
                   for i, b in enumerate(blocks))  # fmt: skip
    column = [0] * len(blocks)
    current, right = -1, -1.0
    for x0, x1, index in spans:
        if x0 >= right:
            current += 1
            right = x1
        else:
            right = max(right, x1)
        column[index] = current
    return column


def build_layout(page: Page) -> PageLayout:
    """The layout of ``page`` from its words' boxes."""
    words = [w for w in page.words if w.text.strip()]
    if not words:
        return PageLayout(number=page.number, rows=(), blocks=())
    aspect = page.height / page.width if page.width and page.height else 1.0
    skew = _skew(page.lines)
    grouped = _line_rows(page.lines, skew) if page.source == "ocr" else _rows(words, skew)
    rows = tuple(
        Row(
            segments=_segments(ws, page.number, i, aspect, text_layer=page.source != "ocr"),
            page=page.number,
            index=i,
        )
        for i, ws in enumerate(grouped)
    )
    raw = _blocks(rows, aspect)
    columns = _columns(raw)
    # Reading order: a full-width block (one column) interrupts columns, so sort by the top of
    # each block first and read blocks that start on the same row left to right.
    order = sorted(range(len(raw)), key=lambda i: (raw[i][0].row, raw[i][0].bbox[0]))
    blocks = tuple(Block(segments=tuple(raw[i]), column=columns[i]) for i in order)
    return PageLayout(number=page.number, rows=rows, blocks=blocks)


def stacked_blocks(lines: Sequence[Line]) -> tuple[tuple[Line, ...], ...]:
    """``lines`` top to bottom (across the page's tilt), cut into blocks where the vertical gap
    between two lines is wider than the text is tall; alignment is not asked.

    A receipt prints its header as one centred column: the shop's name, its registration, its
    address, each line as wide as its text. :func:`build_layout` would tell those lines of
    different widths apart as blocks of their own; here only spacing separates them. The
    lines are the engine's own (it follows a tilted baseline better than rows re-cut from
    words do); lines without a letter or digit (OCR debris) are left out, and lines on one
    baseline become one.
    """
    skew = _skew(lines)

    def level(line: Line) -> float:
        x0, y0, x1, y1 = line.bbox
        return (y0 + y1) / 2 - skew * (x0 + x1) / 2

    rows: list[list[Line]] = []
    for line in sorted((x for x in lines if any(c.isalnum() for c in x.text)), key=level):
        if rows and abs(level(line) - level(rows[-1][0])) < 0.4 * _line_height(rows[-1][0]):
            rows[-1].append(line)
            continue
        rows.append([line])
    merged = [
        Line(
            words=tuple(w for x in sorted(r, key=lambda x: x.bbox[0]) for w in x.words),
            page=r[0].page,
        )
        for r in rows
    ]
    blocks: list[list[Line]] = []
    for line in merged:
        if blocks:
            above = blocks[-1][-1]
            height = max(_line_height(above), _line_height(line))
            if level(line) - level(above) - height <= height * _BLOCK_GAP:
                blocks[-1].append(line)
                continue
        blocks.append([line])
    return tuple(tuple(b) for b in blocks)


def _line_height(line: Line) -> float:
    return statistics.median(_height(w) for w in line.words)


def layout_document(document: Document) -> tuple[PageLayout, ...]:
    """The layout of every page of ``document``."""
    return tuple(build_layout(page) for page in document.pages)
