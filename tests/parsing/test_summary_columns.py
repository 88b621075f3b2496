"""A totals block printed as columns: labels in a row (some wrapped), the amounts in a row below."""

from __future__ import annotations

from renderkit.parsing._protocol import Document, Line, Page, Word
from renderkit.parsing.extract.invoice import invoice_fields, total_candidates
from renderkit.parsing.extract.numbers import DOT_DECIMAL
from renderkit.parsing.extract.summary_columns import summary_columns
from renderkit.parsing.layout.model import layout_document

# As tests/parsing/test_invoice.py's _page: a word is 0.009 wide a character, 0.006 apart.
_CHAR, _SPACE, _HEIGHT = 0.009, 0.006, 0.012


def _width(text: str) -> float:
    parts = text.split()
    return sum(_CHAR * len(p) for p in parts) + _SPACE * (len(parts) - 1)


def _line(x: float, y: float, text: str) -> Line:
    words = []
    for part in text.split():
        width = _CHAR * len(part)
        words.append(Word(text=part, page=1, bbox=(x, y, x + width, y + _HEIGHT)))
        x += width + _SPACE
    return Line(words=tuple(words), page=1)


def _right(edge: float, y: float, text: str) -> Line:
    """``text`` right-aligned at ``edge``."""
    return _line(edge - _width(text), y, text)


def _invoice(lines: list[Line]) -> Document:
    head = [
        _line(0.05, 0.05, "Supplier Trading Ltd"),
        _line(0.60, 0.05, "Invoice No: INV-2024-88"),
        _line(0.60, 0.07, "Invoice date: 03.03.2024"),
    ]
    page = Page(number=1, lines=(*head, *lines), source="text", width=600, height=800)
    return Document(mime_type="application/pdf", content=b"", pages=(page,))


def _amount_row(y: float, amounts: list[str], x: float = 0.45) -> tuple[Line, list[float]]:
    """The amounts run together as one row (cells too narrow for a segment gap) and each
    amount's right edge."""
    line = _line(x, y, " ".join(amounts))
    edges = [w.bbox[2] for w in line.words if any(c.isdigit() for c in w.text)]
    return line, edges


def test_labels_above_a_run_of_amounts_pair_by_column() -> None:
    # "Sales tax 19 %" wraps onto two lines; the one-line labels sit on its second line.
    values, edges = _amount_row(0.54, ["1,000.00", "190.00", "1,190.00"])
    lines = [
        _right(edges[1], 0.50, "Sales tax"),
        _right(edges[0], 0.515, "Net amount"),
        _right(edges[1], 0.515, "19 %"),
        _right(edges[2], 0.515, "Total"),
        values,
    ]
    fields = invoice_fields(_invoice(lines)).fields
    assert fields["subtotal"].value == "1000.00"
    assert fields["tax"].value == "190.00"
    assert fields["total"].value == "1190.00"
    # Subtotal + tax = total holds, so none of the three is flagged.
    assert min(fields[n].confidence for n in ("subtotal", "tax", "total")) >= 0.9


def test_the_ranker_scores_each_amount_of_a_column_block_under_its_own_label() -> None:
    # A payment and the balance it leaves follow the total: the last amount is no total.
    values, edges = _amount_row(0.54, ["1,000.00", "190.00", "1,190.00", "-190.00", "1,000.00"])
    labels = ["Net amount", "VAT 19 %", "Total", "Paid", "Balance due"]
    lines = [_right(edge, 0.515, label) for edge, label in zip(edges, labels, strict=True)]
    document = _invoice([*lines, values])
    candidates, _ = total_candidates(document)
    assert {(c.concept, str(c.value)) for c in candidates} >= {
        ("subtotal", "1000.00"),
        ("tax", "190.00"),
        ("total", "1190.00"),
        ("amount_due", "1000.00"),
    }
    assert invoice_fields(document, ranker=True).fields["total"].value == "1190.00"


def test_running_text_beside_a_column_block_is_no_label_of_it() -> None:
    # A paragraph on the left shares rows with the labels; its "total" is no column's label.
    values, edges = _amount_row(0.54, ["1,000.00", "190.00", "1,190.00"])
    lines = [
        _line(0.05, 0.505, "The total is due in 30 days,"),
        _line(0.05, 0.52, "late payment costs interest"),
        _right(edges[0], 0.515, "Net amount"),
        _right(edges[1], 0.515, "VAT 19 %"),
        _right(edges[2], 0.515, "Total"),
        values,
    ]
    pairs = summary_columns(layout_document(_invoice(lines)), DOT_DECIMAL).pairs
    assert [(kv.concept, kv.hit.segment.text) for kv in pairs] == [
        ("subtotal", "Net amount"),
        ("tax", "VAT 19 %"),
        ("total", "Total"),
    ]


def test_a_column_table_with_a_row_per_tax_rate_gives_its_sum_row() -> None:
    # One row per rate, then the sum row: the first row under the labels is one rate's part.
    rows = [
        ("100.00", "19.00", "119.00"),
        ("50.00", "3.50", "53.50"),
        ("150.00", "22.50", "172.50"),
    ]
    edges = [0.60, 0.72, 0.84]
    lines = [_right(edges[0], 0.50, "Net amount"), _right(edges[1], 0.50, "VAT")]
    lines.append(_right(edges[2], 0.50, "Total"))
    for index, row in enumerate(rows):
        y = 0.52 + 0.02 * index
        lines += [_right(edge, y, amount) for edge, amount in zip(edges, row, strict=True)]
    fields = invoice_fields(_invoice(lines)).fields
    assert fields["subtotal"].value == "150.00"
    assert fields["tax"].value == "22.50"
    assert fields["total"].value == "172.50"


def test_a_row_of_amounts_without_labels_gives_the_sums_it_adds_up_to() -> None:
    # The labels row lost: subtotal, a discount, shipping, a 21 % tax, the total, then a
    # previous balance and the amount due. A page total equal to the subtotal would agree
    # with no tax at all.
    row = _line(0.05, 0.50, "60674,48€ -3033,72€ 46,02€ 12114,22€ 69801,00€ 15356,22€ 85157,22€")
    fields = invoice_fields(
        _invoice([_line(0.05, 0.40, "Total por página: 60674,48€"), row]), ranker=True
    ).fields
    assert fields["subtotal"].value == "60674.48"
    assert fields["discount"].value == "3033.72"
    assert fields["tax"].value == "12114.22"
    assert fields["total"].value == "69801.00"


def test_a_row_that_adds_up_without_a_tax_is_no_summary() -> None:
    # A total, a previous balance and a deposit make the amount due: no tax at any rate
    # among them, so the row says nothing about the subtotal or the total.
    row = _line(0.05, 0.50, "MYR 3,050.66 MYR 2,288.00 MYR -152.53 MYR 5,186.13")
    fields = invoice_fields(_invoice([row]), ranker=True).fields
    assert fields.get("total") is None or fields["total"].value != "5186.13"


def test_a_rate_whose_sign_wrapped_under_its_label_is_no_amount() -> None:
    # A narrow column: "VAT 2.6" with its "%" on the next line, the amount two rows below.
    lines = [
        _line(0.05, 0.30, "Description"), _line(0.80, 0.30, "Total"),
        _line(0.05, 0.32, "Software licence"), _right(0.90, 0.32, "1,271.91"),
        _line(0.10, 0.50, "Goods"), _line(0.35, 0.50, "VAT 2.6"), _line(0.60, 0.50, "Sum to"),
        _line(0.10, 0.515, "value"), _line(0.39, 0.515, "%"), _line(0.60, 0.515, "settle"),
        _line(0.10, 0.53, "Fr. 1,271.91"), _line(0.35, 0.53, "Fr. 33.07"),
        _line(0.60, 0.53, "Fr. 1,304.98"),
    ]  # fmt: skip
    fields = invoice_fields(_invoice(lines)).fields
    assert (fields["tax"].value, fields["total"].value) == ("33.07", "1304.98")
