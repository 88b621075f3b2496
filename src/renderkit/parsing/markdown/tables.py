"""Tables: runs of rows whose segments line up in columns, read cell by cell.

The layout model cuts each row into segments where the gap is wider than the text is tall, so
a table's row is a row of several segments. A run of such rows, close together, whose
segments share the columns of its most common shape, is a table. Two columns of prose share
that shape too; their cells are long, so a run whose columns hold sentences is left to the
paragraphs. A segment spanning several columns (a merged cell) keeps its text in the first
and leaves the others empty, rather than guessing how a merged cell splits.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import Sequence

import attrs

from renderkit.parsing.layout.model import PageLayout, Row, Segment
from renderkit.parsing.markdown.pieces import Piece, box_of, text_size

__all__ = ["Table", "find_tables"]

# Rows further apart than this many text heights end a table.
_ROW_GAP = 2.6
# A row this close under the one above, with one segment in one column, continues its cell.
_WRAP_GAP = 0.6
# Columns whose cells average more characters than this hold prose, not values.
_PROSE_CELL = 36
_PROSE_WORDS = 5
# A two-column run needs this many rows to be a table (a label and its value is not one).
_TWO_COLUMN_ROWS = 3


@attrs.frozen(kw_only=True)
class Table:
    """A table found on a page.

    Attributes:
        piece: the table as a piece (its ``cells``).
        segments: the segments it took, left out of the paragraphs.
        merged: some cell spanned several columns and was kept in the first.
    """

    piece: Piece
    segments: frozenset[Segment]
    merged: bool = False


def _height(row: Row) -> float:
    return statistics.median(w.bbox[3] - w.bbox[1] for w in row.words)


def _gap(above: Row, below: Row) -> float:
    """The vertical gap between two rows, in text heights."""
    return (below.bbox[1] - above.bbox[3]) / max(_height(above), _height(below), 1e-6)


def _runs(rows: Sequence[Row]) -> list[list[Row]]:
    """Runs of close rows that start and end with a row of several segments."""
    runs: list[list[Row]] = []
    current: list[Row] = []
    for row in rows:
        several = len(row.segments) >= 2
        # A lone segment joins only as a cell's wrapped line; a paragraph below ends the run.
        limit = _ROW_GAP if several else _WRAP_GAP
        if current and _gap(current[-1], row) <= limit:
            current.append(row)
            continue
        if current:
            runs.append(current)
        current = [row] if several else []
    if current:
        runs.append(current)
    out = []
    for run in runs:
        while run and len(run[-1].segments) < 2:
            run.pop()
        if sum(len(r.segments) >= 2 for r in run) >= 2:
            out.append(run)
    return out


def _columns(run: Sequence[Row]) -> list[tuple[float, float]] | None:
    """The columns' horizontal spans, from the rows of the run's most common shape."""
    counts = Counter(len(r.segments) for r in run if len(r.segments) >= 2)
    # The most common shape; of equally common ones the widest (a table's rows, not the
    # label-and-value rows around it).
    width = max(counts, key=lambda n: (counts[n], n))
    spans = [[1.0, 0.0] for _ in range(width)]
    for row in run:
        if len(row.segments) != width:
            continue
        for span, segment in zip(spans, row.segments, strict=True):
            span[0] = min(span[0], segment.bbox[0])
            span[1] = max(span[1], segment.bbox[2])
    if any(a[1] > b[0] for a, b in itertools.pairwise(spans)):
        return None  # the common shape's columns overlap: no grid
    return [(a, b) for a, b in spans]


def _overlapping(segment: Segment, columns: Sequence[tuple[float, float]]) -> list[int]:
    x0, _, x1, _ = segment.bbox
    hits = [i for i, (a, b) in enumerate(columns) if min(x1, b) - max(x0, a) > 0]
    if hits:
        return hits
    centre = (x0 + x1) / 2
    return [min(range(len(columns)), key=lambda i: abs(sum(columns[i]) / 2 - centre))]


def _grid(
    run: Sequence[Row], columns: Sequence[tuple[float, float]]
) -> tuple[list[list[str]], list[Row], bool]:
    rows: list[list[str]] = []
    taken: list[Row] = []
    merged = False
    previous: Row | None = None
    for row in run:
        cells = [""] * len(columns)
        places = [_overlapping(s, columns) for s in row.segments]
        wraps = (
            previous is not None
            and len(row.segments) == 1
            and len(places[0]) == 1
            and _gap(previous, row) <= _WRAP_GAP
        )
        if wraps and rows:
            column = places[0][0]
            rows[-1][column] = f"{rows[-1][column]} {row.segments[0].text}".strip()
            taken.append(row)
            previous = row
            continue
        if len(row.segments) == 1 and len(places[0]) > 1:
            break  # a line across the table's columns ends it
        for segment, hit in zip(row.segments, places, strict=True):
            merged = merged or len(hit) > 1
            cells[hit[0]] = f"{cells[hit[0]]} {segment.text}".strip()
        rows.append(cells)
        taken.append(row)
        previous = row
    return rows, taken, merged


def _prose(rows: Sequence[Sequence[str]]) -> bool:
    width = len(rows[0])
    long_columns = 0
    for column in range(width):
        cells = [r[column] for r in rows if r[column]]
        if not cells:
            continue
        chars = sum(len(c) for c in cells) / len(cells)
        words = sum(len(c.split()) for c in cells) / len(cells)
        if chars > _PROSE_CELL or words >= _PROSE_WORDS:
            long_columns += 1
    return long_columns >= 2 or (width == 2 and long_columns >= 1)


def _aligned(row: Row, columns: Sequence[tuple[float, float]]) -> bool:
    """Whether none of the row's segments spans two columns, and one stands in a column
    (a total's label may stand left of the column it belongs to)."""
    hits = [
        sum(min(s.bbox[2], b) - max(s.bbox[0], a) > 0 for a, b in columns) for s in row.segments
    ]
    return max(hits) == 1


def _trimmed(run: list[Row], columns: Sequence[tuple[float, float]]) -> list[Row]:
    """The run from its first row of the full shape, up to the last row still aligned: the
    label rows above a table and the notes under it are not its rows."""
    start = next(i for i, r in enumerate(run) if len(r.segments) == len(columns))
    end = start + 1
    while end < len(run) and (len(run[end].segments) == 1 or _aligned(run[end], columns)):
        end += 1
    return run[start:end]


def find_tables(layout: PageLayout, *, ocr: bool = False) -> list[Table]:
    """The tables of a page, top to bottom."""
    tables: list[Table] = []
    for found in _runs(layout.rows):
        columns = _columns(found)
        if columns is None:
            continue
        run = _trimmed(found, columns)
        rows, taken, merged = _grid(run, columns)
        if len(columns) == 2 and len(rows) < _TWO_COLUMN_ROWS:
            continue
        if len(rows) < 2 or _prose(rows):
            continue
        segments = frozenset(s for r in taken for s in r.segments)
        piece = Piece(
            page=layout.number,
            kind="table",
            bbox=box_of(list(segments)),
            cells=tuple(tuple(r) for r in rows),
            size=text_size(list(segments)),
            ocr=ocr,
        )
        tables.append(Table(piece=piece, segments=segments, merged=merged))
    return tables
