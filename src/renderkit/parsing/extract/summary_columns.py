"""A totals block printed as columns: a row of labels, and the amounts in a row below them.

Many invoices print their summary as a small table whose header cells are the labels
("Net amount | VAT 20 % | Total") and whose one body row holds the amounts. The key-value
reading pairs a label with what follows it on its row or with the one cell under it, and that
fails here in general ways: the amounts of the row run together into one segment (the gaps
between right-aligned cells are narrow), a long label wraps onto two or three rows (and the
short ones, centred in their cells, land on a middle row), labels run together into one
segment, and a currency mark may sit on a line of its own above its amount. So no label got
its amount, and the totals had no candidates at all.

This module reads such a block by columns instead of segments. A *value row* is a row that
prints two or more amounts with decimals and nothing else (currency marks aside); the row
right below may continue it (an amount that wrapped under its currency mark). Its amounts,
left to right, are the columns. The *label rows* are the rows right above it that print no
amount; each of their words belongs to the column its cells are aligned with (right edges
when the labels are right-aligned like the amounts, else left edges), and a column's words,
top to bottom, are its label, read with the lexicon like any other. The result is one
:class:`~renderkit.parsing.extract.keyvalues.KeyValue` per labelled column, its amount the
value found ``below``; the pairs the segment reading made from those label rows are dropped.
Which label is which still comes from the lexicons, and the document's arithmetic still
decides between them (:mod:`~renderkit.parsing.extract.invoice`).
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Sequence
from decimal import Decimal

import attrs

from renderkit.parsing._protocol import BBox, Word, union_bbox
from renderkit.parsing.extract.keyvalues import KeyValue, LabelHit, Value, find_labels
from renderkit.parsing.extract.numbers import NumberFormat, find_money, join_grouped_thousands
from renderkit.parsing.extract.values import CURRENCY_SYMBOLS
from renderkit.parsing.layout.model import PageLayout, Row, Segment
from renderkit.parsing.lexicons import Lexicon, load_lexicon

__all__ = ["AMOUNT_CONCEPTS", "SummaryColumns", "summary_columns"]

#: The label concepts a totals block prints.
AMOUNT_CONCEPTS = frozenset({"total", "amount_due", "subtotal", "tax", "discount", "shipping"})
# How many rows a wrapped label may take, and how far apart (in text heights) its rows may be.
_LABEL_ROWS = 6
_ROW_GAP = 2.5
# A currency mark alone on a line: a wrapped cell's first line, or a column's unit.
_MARKS = frozenset("$€£¥₹")
_MIN_COLUMNS = 2
# How close (in text heights) a currency mark is to the amount it belongs to.
_MARK_GAP = 1.0
_KEY_VALUE = re.compile(r"[:：]\s*\S")


@attrs.frozen(kw_only=True)
class SummaryColumns:
    """What :func:`summary_columns` read.

    Attributes:
        pairs: one label-amount pair per column whose label the lexicon knows.
        values: the amounts' segments (each holds the words of one amount), which no layout
            row has as a segment of its own.
        label_rows: ``(page, row index)`` of every label row read; the segment reading's pairs
            from those rows are superseded.
    """

    pairs: tuple[KeyValue, ...] = ()
    values: tuple[Segment, ...] = ()
    label_rows: frozenset[tuple[int, int]] = frozenset()


@attrs.frozen
class _Column:
    words: tuple[Word, ...]
    value: Decimal


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def _row_amounts(row: Row, number_format: NumberFormat) -> list[_Column] | None:
    """The amounts of a row that prints only amounts with decimals (and currency marks), each
    with its words; None for any other row."""
    text = join_grouped_thousands(row.text)
    amounts = [a for a in find_money(text, number_format) if not a.percent]
    if not amounts or not all(a.decimals for a in amounts):
        return None
    words = list(row.words)
    if any(not _digits(w.text) and not _currency_word(w.text) for w in words):
        return None
    # Each amount takes the words whose digits spell it, left to right.
    out: list[list[Word]] = []
    marks: list[Word] = []
    position = 0
    for amount in amounts:
        want = _digits(format(abs(amount.value), "f"))
        taken: list[Word] = []
        got = ""
        while position < len(words) and got != want:
            word = words[position]
            position += 1
            digits = _digits(word.text)
            if not digits:
                marks.append(word)
                continue
            got += digits
            taken.append(word)
            if not want.startswith(got):
                return None
        if got != want:
            return None
        out.append(taken)
    if any(_digits(w.text) for w in words[position:]):
        return None
    # A currency mark goes with the amount it is printed right beside; a mark further away
    # is a column's unit printed on its own line, and belongs to no amount of this row.
    for mark in [*marks, *words[position:]]:
        height = mark.bbox[3] - mark.bbox[1]
        gaps = [_gap(mark.bbox, union_bbox(w.bbox for w in taken)) for taken in out]
        nearest = min(range(len(out)), key=lambda i: gaps[i])
        if gaps[nearest] < height * _MARK_GAP:
            out[nearest].append(mark)
    return [
        _Column(words=tuple(sorted(taken, key=lambda w: w.bbox[0])), value=amount.value)
        for taken, amount in zip(out, amounts, strict=True)
    ]


def _gap(a: BBox, b: BBox) -> float:
    return max(a[0] - b[2], b[0] - a[2], 0.0)


def _currency_word(text: str) -> bool:
    stripped = text.strip("()-+")
    return (
        (stripped.isalpha() and stripped.isupper() and len(stripped) <= 3)
        or (
            bool(stripped)
            and all(c in _MARKS or c.isupper() for c in stripped)
            and len(stripped) <= 3
        )
        # A sign of letters and a dot or dollar ("Fr.", "Rs.", "A$").
        or stripped in CURRENCY_SYMBOLS
    )


def _box(column: _Column) -> BBox:
    return union_bbox(w.bbox for w in column.words)


def _overlap(a: BBox, b: BBox) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0])


def _columns(layout: PageLayout, index: int, number_format: NumberFormat) -> list[_Column] | None:
    """The columns of the value row at ``index``, left to right, with the next row's when it
    continues the cells (only amounts there too, as close as a wrapped cell's next line, in
    other columns). A next row of amounts in the same columns makes it a table with a row per
    tax rate, whose sum row the segment reading finds (:mod:`.keyvalues`): None."""
    row = layout.rows[index]
    columns = _row_amounts(row, number_format)
    if columns is None:
        return None
    height = max(w.bbox[3] - w.bbox[1] for w in row.words)
    bottom = row.bbox[3]
    for below in layout.rows[index + 1 : index + 3]:
        more = _row_amounts(below, number_format)
        if more is None or below.bbox[1] - bottom > height * _ROW_GAP:
            break
        if any(_overlap(_box(m), _box(c)) for m in more for c in columns):
            return None
        if below.bbox[1] - bottom >= height:
            break
        columns += more
        bottom = below.bbox[3]
    if len(columns) < _MIN_COLUMNS:
        return None
    return sorted(columns, key=lambda c: _box(c)[0])


def _extent(boxes: Sequence[BBox]) -> tuple[float, float]:
    """How far left and right the block's cells may reach: a column pitch beyond the amounts
    (a label may be wider than its amount, on either side)."""
    centres = [(b[0] + b[2]) / 2 for b in boxes]
    pitch = min(b - a for a, b in itertools.pairwise(centres))
    return boxes[0][0] - pitch, boxes[-1][2] + pitch


def _inside(segment: Segment, extent: tuple[float, float]) -> bool:
    centre = (segment.bbox[0] + segment.bbox[2]) / 2
    return extent[0] < centre < extent[1]


def _right_aligned(rows: Sequence[Sequence[Segment]], boxes: Sequence[BBox]) -> bool:
    """Whether the label cells share right edges with the amounts (else left edges)."""
    segments = [s for cells in rows for s in cells if any(c.isalpha() for c in s.text)]
    right = sum(min(abs(s.bbox[2] - b[2]) for b in boxes) for s in segments)
    left = sum(min(abs(s.bbox[0] - b[0]) for b in boxes) for s in segments)
    # Right unless the left edges match clearly better: amounts are right-aligned far more
    # often than not, and a label run together over two cells matches neither edge.
    return left >= right / 2


def _label_rows(
    layout: PageLayout, index: int, extent: tuple[float, float], number_format: NumberFormat
) -> list[list[Segment]]:
    """The cells (segments inside ``extent``) of the rows right above the value row at
    ``index`` that print no amount with decimals there, top row first. Text beside the block
    (a paragraph on the left of the page) is not part of it and does not end it."""
    out: list[list[Segment]] = []
    top = layout.rows[index].bbox[1]
    for row in reversed(layout.rows[max(0, index - _LABEL_ROWS) : index]):
        cells = [s for s in row.segments if _inside(s, extent)]
        if not cells:
            continue
        height = max(s.height for s in cells)
        text = " ".join(s.text for s in cells)
        amounts = [a for a in find_money(text, number_format) if not a.percent]
        # Words, percentages, bare integers ("Sales tax 6", its "%" wrapped to the next
        # line) and currency marks, no amount with decimals; and no label with its value
        # after a colon ("Total quantity: 18"), which is a line of its own, not a cell.
        if (
            top - max(s.bbox[3] for s in cells) > height * _ROW_GAP
            or any(a.decimals for a in amounts)
            or _KEY_VALUE.search(text)
        ):
            break
        out.append(cells)
        top = min(s.bbox[1] for s in cells)
    return out[::-1]


def _assign(
    rows: Sequence[Sequence[Segment]], boxes: Sequence[BBox], right: bool
) -> list[list[Word]]:
    """Each label word in the column whose cell it overlaps most. Right-aligned cells (like the
    amounts) end at their amount's right edge and start after the previous one's; left-aligned
    ones start at their amount's left edge. Cell edges get half a text height of slack: a
    label drawn a little past its amount's edge ("TOTAL HT" over "100,00") stays in its cell.
    """
    words = [w for cells in rows for s in cells for w in s.words]
    slack = statistics.median(w.bbox[3] - w.bbox[1] for w in words) / 2
    if right:
        ends = [b[2] + slack for b in boxes]
        spans = list(zip([-1.0, *ends[:-1]], ends, strict=True))
    else:
        starts = [b[0] - slack for b in boxes]
        spans = list(zip(starts, [*starts[1:], 2.0], strict=True))
    out: list[list[Word]] = [[] for _ in boxes]
    for word in words:
        overlaps = [min(word.bbox[2], b) - max(word.bbox[0], a) for a, b in spans]
        best = max(range(len(spans)), key=lambda i: overlaps[i])
        if overlaps[best] > 0:
            out[best].append(word)
    return out


def _pair(
    words: Sequence[Word], column: _Column, page: int, rows: tuple[int, int], lexicon: Lexicon
) -> tuple[KeyValue, Segment] | None:
    if not words:
        return None
    label = Segment(words=tuple(words), page=page, row=rows[0])
    hit = next((h for h in find_labels(label, lexicon) if h.concept in AMOUNT_CONCEPTS), None)
    if hit is None:
        return None
    value = Segment(words=column.words, page=page, row=rows[1])
    pair = KeyValue(
        concept=hit.concept,
        label=hit.text,
        strength=1.0 if hit.start == 0 else 0.6,
        values=(Value(text=value.text, where="below", page=page, bbox=value.bbox),),
        hit=LabelHit(
            concept=hit.concept, segment=label, start=hit.start, end=hit.end, whole=hit.whole
        ),
    )
    return pair, value


def summary_columns(
    layouts: Sequence[PageLayout], number_format: NumberFormat, lexicon: Lexicon | None = None
) -> SummaryColumns:
    """The totals blocks of ``layouts`` printed as labels above a row of amounts."""
    lexicon = lexicon or load_lexicon()
    pairs: list[KeyValue] = []
    values: list[Segment] = []
    label_rows: set[tuple[int, int]] = set()
    for layout in layouts:
        for index in range(1, len(layout.rows)):
            columns = _columns(layout, index, number_format)
            if columns is None:
                continue
            boxes = [_box(c) for c in columns]
            rows = _label_rows(layout, index, _extent(boxes), number_format)
            if not rows:
                continue
            right = _right_aligned(rows, boxes)
            found = [
                pair
                for words, column in zip(_assign(rows, boxes, right), columns, strict=True)
                if (pair := _pair(words, column, layout.number, (rows[0][0].row, index), lexicon))
            ]
            if not found:
                continue
            pairs += [kv for kv, _ in found]
            values += [value for _, value in found]
            label_rows.update((layout.number, cells[0].row) for cells in rows)
    return SummaryColumns(
        pairs=tuple(pairs), values=tuple(values), label_rows=frozenset(label_rows)
    )
