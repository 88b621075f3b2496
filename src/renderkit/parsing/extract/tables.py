"""Line-item tables found by column alignment and checked arithmetically.

A table starts at a header row whose segments name columns from the lexicons (description,
quantity, unit price, amount); each following row's segments are assigned to the header column
they overlap most, numbers are read with the document's number format, text-only rows continue
the previous item's description, and the table ends at a totals label or a wide vertical gap.
Each item is checked: quantity x unit price = amount; a failed check lowers its confidence.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import attrs

from renderkit.parsing.extract.keyvalues import find_labels
from renderkit.parsing.extract.numbers import CENT, NumberFormat, find_money
from renderkit.parsing.layout.model import PageLayout, Row, Segment
from renderkit.parsing.lexicons import COLUMN_CONCEPTS, Lexicon, load_lexicon, tokens

__all__ = ["LineItem", "Table", "column_header_rows", "find_tables", "table_rows"]

# Rows further below the previous row than this many text heights end the table.
_GAP = 4.0
_NUMERIC = ("quantity", "unit_price", "line_amount")
_STOP = frozenset({"subtotal", "total", "tax", "amount_due", "discount"})


@attrs.frozen(kw_only=True)
class Table:
    """A line-item table: its header columns and its body rows.

    Attributes:
        page: 1-based page number.
        header_row: the header's row index on the page.
        columns: per column concept, the header cell's horizontal span.
        rows: the body rows, top to bottom.
        number_format: how the document writes numbers.
    """

    page: int
    header_row: int
    columns: dict[str, tuple[float, float]]
    rows: tuple[Row, ...]
    number_format: NumberFormat


@attrs.frozen(kw_only=True)
class LineItem:
    """One line of a table.

    Attributes:
        description: the item's text, continuation lines joined by spaces.
        quantity, unit_price, amount: the numbers, when printed.
        confidence: 1.0 when quantity x unit price = amount, lower when unchecked or failed.
        warnings: why the confidence is low.
    """

    description: str
    quantity: Decimal | None = None
    unit_price: Decimal | None = None
    amount: Decimal | None = None
    confidence: float = 0.7
    warnings: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The item as JSON-ready values (numbers as floats, absent numbers left out)."""
        out: dict[str, Any] = {"description": self.description}
        for name in ("quantity", "unit_price", "amount"):
            value = getattr(self, name)
            if value is not None:
                out[name] = float(value)
        return out


def _leads(segment: Segment, start: int) -> bool:
    """Whether a label at ``start`` begins its segment, OCR debris ("—_", "|") aside."""
    return not any(c.isalnum() for c in segment.text[:start])


def _glued(segment: Segment, lexicon: Lexicon) -> str | None:
    """The column a header cell names with its words run together by OCR ("UNITPRICE")."""
    key = "".join(t for t, _, _ in tokens(segment.text))
    for concept in sorted(COLUMN_CONCEPTS):
        if any(
            len(label) > 1 and "".join(label) == key for label in lexicon.labels.get(concept, ())
        ):
            return concept
    return None


def _cells(segment: Segment, lexicon: Lexicon) -> list[tuple[str, tuple[float, float]]]:
    """The columns a header segment names, each with its x-range: the segment's own for one
    label; for labels run into one segment, one after another with nothing between ("Qta
    Descrizione", a narrow column's cell close to the next), each label's words, the first
    from the segment's left edge and the last to its right. A label inside a word
    ("Qty/Description") has no words of its own: the run ends before it."""
    # Character offsets of each word in the segment's text (words joined by single spaces).
    starts = list(itertools.accumulate((len(w.text) + 1 for w in segment.words), initial=0))
    run: list[tuple[str, int, int]] = []
    for hit in find_labels(segment, lexicon):
        if hit.concept not in COLUMN_CONCEPTS:
            continue
        follows = (
            _leads(segment, hit.start)
            if not run
            else hit.start in starts and _adjoins(segment, run[-1][2], hit.start)
        )
        if not follows:
            break
        run.append((hit.concept, hit.start, hit.end))
    x0, _, x1, _ = segment.bbox
    if len(run) < 2:
        return [(concept, (x0, x1)) for concept, _, _ in run]
    cells: list[tuple[str, tuple[float, float]]] = []
    for index, (concept, start, end) in enumerate(run):
        words = [w for w, at in zip(segment.words, starts, strict=False) if start <= at < end]
        left = x0 if index == 0 else words[0].bbox[0]
        right = x1 if index == len(run) - 1 else words[-1].bbox[2]
        cells.append((concept, (left, right)))
    return cells


def _adjoins(segment: Segment, end: int, start: int) -> bool:
    """Whether a label at ``start`` follows one ending at ``end`` with nothing but spaces and
    punctuation between."""
    return start >= end and not any(c.isalnum() for c in segment.text[end:start])


def _header(row: Row) -> dict[str, tuple[float, float]] | None:
    lexicon = load_lexicon()
    columns: dict[str, tuple[float, float]] = {}
    for segment in row.segments:
        glued = _glued(segment, lexicon)
        if glued is not None and glued not in columns:
            columns[glued] = (segment.bbox[0], segment.bbox[2])
            continue
        for concept, span in _cells(segment, lexicon):
            columns.setdefault(concept, span)
    numeric = sum(c in columns for c in _NUMERIC)
    if numeric >= 1 and len(columns) >= 3 and "description" in columns:
        return columns
    return None


def column_header_rows(layouts: Sequence[PageLayout]) -> set[tuple[int, int]]:
    """The (page, row) of every row that heads item columns, a table found or not: three
    column labels or more, one of them a number's ("Pos | Anzahl Beschreibung | Einzelpreis |
    Gesamt", two cells run into one segment). Its labels head columns; none of them labels the
    value below it ("Gesamt" over the first line's amount is no invoice total)."""
    lexicon = load_lexicon()
    out: set[tuple[int, int]] = set()
    for layout in layouts:
        for index, row in enumerate(layout.rows):
            concepts = {
                hit.concept
                for segment in row.segments
                for hit in find_labels(segment, lexicon)
                if hit.concept in COLUMN_CONCEPTS
            }
            if len(concepts) >= 3 and any(c in concepts for c in _NUMERIC):
                out.add((layout.number, index))
    return out


def _stops(row: Row) -> bool:
    lexicon = load_lexicon()
    return any(
        hit.concept in _STOP and _leads(segment, hit.start)
        for segment in row.segments
        for hit in find_labels(segment, lexicon)
    )


def find_tables(layouts: Sequence[PageLayout], number_format: NumberFormat) -> list[Table]:
    """The line-item tables of ``layouts``."""
    tables: list[Table] = []
    for layout in layouts:
        index = 0
        while index < len(layout.rows):
            columns = _header(layout.rows[index])
            if columns is None:
                index += 1
                continue
            body: list[Row] = []
            previous = layout.rows[index]
            for row in layout.rows[index + 1 :]:
                height = row.segments[0].height
                if _stops(row) or row.bbox[1] - previous.bbox[3] > height * _GAP:
                    break
                body.append(row)
                previous = row
            tables.append(
                Table(
                    page=layout.number,
                    header_row=index,
                    columns=columns,
                    rows=tuple(body),
                    number_format=number_format,
                )
            )
            index += len(body) + 1
    return tables


def _column(segment: Segment, columns: dict[str, tuple[float, float]]) -> str:
    x0, _, x1, _ = segment.bbox

    def overlap(span: tuple[float, float]) -> float:
        return min(x1, span[1]) - max(x0, span[0])

    def distance(span: tuple[float, float]) -> float:
        # Numbers are right-aligned under their header: compare right edges.
        return abs(x1 - span[1])

    best = max(columns, key=lambda c: overlap(columns[c]))
    if overlap(columns[best]) > 0:
        return best
    return min(columns, key=lambda c: distance(columns[c]))


def _half_unit(value: Decimal) -> Decimal:
    """Half the last printed digit of ``value``: how far rounding may have moved it."""
    return Decimal(1).scaleb(min(0, int(value.as_tuple().exponent))) / 2


def _tolerance(quantity: Decimal, price: Decimal, amount: Decimal) -> Decimal:
    """How far quantity x unit price may be from the amount and still agree.

    The amount is rounded to its printed digits (``2.5 x ¥7 = ¥18``) and the unit price may be
    printed rounded too, its error multiplied by the quantity; a cent per unit covers both for
    amounts printed in cents.
    """
    rounding = _half_unit(amount) + abs(quantity) * _half_unit(price)
    return max(rounding, Decimal("0.011") * max(Decimal(1), quantity))


def _check(item: LineItem) -> LineItem:
    q, p, a = item.quantity, item.unit_price, item.amount
    if q is None or p is None or a is None:
        return item
    if abs(q * p - a) <= _tolerance(q, p, a):
        return attrs.evolve(item, confidence=1.0)
    return attrs.evolve(
        item,
        confidence=0.3,
        warnings=(f"line {item.description[:30]!r}: {q} x {p} != {a}",),
    )


def _summary_row(
    description: str, numbers: Mapping[str, Decimal], items: Sequence[LineItem]
) -> bool:
    """Whether a row is the summary below described items, not one more item: it describes
    nothing, gives no quantity or price, and its amount is at least what the items above it
    come to (a total, or their sum and a rounding)."""
    amount = numbers.get("line_amount")
    if description.strip() or amount is None or set(numbers) != {"line_amount"}:
        return False
    above = [item.amount for item in items if item.amount is not None]
    described = any(item.description.strip() for item in items)
    return described and bool(above) and amount >= sum(above, Decimal(0)) - CENT


def _described(row: Row, table: Table) -> bool:
    """Whether ``row`` prints words in the table's description column: an item's row."""
    return any(
        _column(segment, table.columns) == "description" and any(c.isalpha() for c in segment.text)
        for segment in row.segments
    )


def table_rows(table: Table) -> list[LineItem]:
    """The table's items, each checked arithmetically."""
    items: list[LineItem] = []
    for index, row in enumerate(table.rows):
        cells: dict[str, list[str]] = {}
        for segment in row.segments:
            cells.setdefault(_column(segment, table.columns), []).append(segment.text)
        numbers: dict[str, Decimal] = {}
        for name in _NUMERIC:
            for text in cells.get(name, []):
                amounts = [a for a in find_money(text, table.number_format) if not a.percent]
                if amounts:
                    numbers[name] = amounts[-1].value if name != "quantity" else amounts[0].value
        description = " ".join(cells.get("description", []))
        if _summary_row(description, numbers, items):
            # The sums printed under the items as columns ("Fr. 10'202.03 | Fr. 0.04 | Fr.
            # 10'202.07" under labels of their own): the table has ended. Items below it make
            # it a carried-forward sum whose words were read outside the description column.
            if not any(_described(later, table) for later in table.rows[index + 1 :]):
                break
            continue
        if "line_amount" not in numbers and "unit_price" not in numbers:
            if items and description:
                last = items[-1]
                items[-1] = attrs.evolve(last, description=f"{last.description} {description}")
            continue
        items.append(
            LineItem(
                description=description,
                quantity=numbers.get("quantity"),
                unit_price=numbers.get("unit_price"),
                amount=numbers.get("line_amount"),
            )
        )
    return [_check(item) for item in items]
