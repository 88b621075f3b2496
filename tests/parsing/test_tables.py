"""Line-item tables by column alignment, read in the document's number format and checked."""

from __future__ import annotations

from decimal import Decimal

from renderkit.parsing.extract.numbers import COMMA_DECIMAL, DOT_DECIMAL, NumberFormat
from renderkit.parsing.extract.tables import LineItem, find_tables, table_rows
from renderkit.parsing.layout.model import build_layout

from ._pages import page

_HEADER = [(0.05, 0.30, "Description"), (0.55, 0.30, "Qty"), (0.65, 0.30, "Unit price"),
           (0.85, 0.30, "Amount")]  # fmt: skip


def _row(
    y: float, description: str, qty: str, price: str, amount: str
) -> list[tuple[float, float, str]]:
    return [(0.05, y, description), (0.55, y, qty), (0.65, y, price), (0.85, y, amount)]


def _items(
    cells: list[tuple[float, float, str]], number_format: NumberFormat = DOT_DECIMAL
) -> list[LineItem]:
    tables = find_tables([build_layout(page(cells))], number_format)
    return [item for table in tables for item in table_rows(table)]


def test_each_row_under_the_header_is_a_checked_line_item() -> None:
    items = _items(
        [
            *_HEADER,
            *_row(0.32, "Brand design", "2", "€4,800.00", "€9,600.00"),
            *_row(0.34, "Support hours", "1.5", "$1,200.00", "$1,800.00"),
        ]
    )
    assert [i.as_dict() for i in items] == [
        {"description": "Brand design", "quantity": 2.0, "unit_price": 4800.0, "amount": 9600.0},
        {"description": "Support hours", "quantity": 1.5, "unit_price": 1200.0, "amount": 1800.0},
    ]
    assert all(i.confidence == 1.0 and i.warnings == () for i in items)


def test_a_description_that_wraps_continues_the_item_above() -> None:
    items = _items(
        [
            *_HEADER,
            *_row(0.32, "Annual licence for the", "1", "500.00", "500.00"),
            (0.05, 0.335, "analytics dashboard"),
            *_row(0.35, "Onboarding", "3", "80.00", "240.00"),
        ]
    )
    assert [i.description for i in items] == [
        "Annual licence for the analytics dashboard",
        "Onboarding",
    ]


def test_a_totals_row_ends_the_table_and_a_discount_row_is_no_line_item() -> None:
    items = _items(
        [
            *_HEADER,
            *_row(0.32, "Workshop", "1", "900.00", "900.00"),
            (0.55, 0.36, "Subtotal"), (0.85, 0.36, "900.00"),
            (0.55, 0.38, "Discount"), (0.85, 0.38, "-90.00"),
            (0.55, 0.40, "Total"), (0.85, 0.40, "810.00"),
            *_row(0.45, "Not an item", "1", "5.00", "5.00"),
        ]
    )  # fmt: skip
    assert [i.description for i in items] == ["Workshop"]


def test_a_discount_row_alone_after_the_items_ends_the_table() -> None:
    items = _items(
        [*_HEADER, *_row(0.32, "Workshop", "1", "900.00", "900.00"),
         (0.55, 0.34, "Discount"), (0.85, 0.34, "-€90.00")]
    )  # fmt: skip
    assert [i.description for i in items] == ["Workshop"]


def test_a_failed_arithmetic_check_gives_a_warning_and_a_low_confidence() -> None:
    items = _items([*_HEADER, *_row(0.32, "Consulting", "3", "100.00", "350.00")])
    assert items[0].confidence < 0.5
    assert items[0].warnings == ("line 'Consulting': 3 x 100.00 != 350.00",)


def test_an_amount_rounded_to_its_printed_digits_passes_the_check() -> None:
    # 2.5 x ¥7 = ¥17.5, printed as ¥18 (yen have no minor unit).
    items = _items([*_HEADER, *_row(0.32, "Tea", "2.5", "¥7", "¥18")])
    assert (items[0].amount, items[0].confidence) == (Decimal(18), 1.0)


def test_numbers_are_read_in_the_documents_own_format() -> None:
    items = _items(
        [
            (0.05, 0.30, "Bezeichnung"), (0.55, 0.30, "Menge"), (0.65, 0.30, "Einzelpreis"),
            (0.85, 0.30, "Betrag"),
            *_row(0.32, "Beratung", "1,5", "1.200,00", "1.800,00"),
        ],
        COMMA_DECIMAL,
    )  # fmt: skip
    assert items[0].as_dict() == {
        "description": "Beratung", "quantity": 1.5, "unit_price": 1200.0, "amount": 1800.0
    }  # fmt: skip


def test_ocr_debris_and_words_run_together_in_the_header_still_name_the_columns() -> None:
    header = [(0.05, 0.30, "DESCRIPTION"), (0.55, 0.30, "QTY"), (0.65, 0.30, "—_UNIT PRICE"),
              (0.85, 0.30, "AMOUNT")]  # fmt: skip
    glued = [*header[:2], (0.65, 0.30, "UNITPRICE"), header[3]]
    for cells in (header, glued):
        items = _items([*cells, *_row(0.32, "Hosting", "12", "$29.99", "$359.88")])
        assert items[0].as_dict() == {
            "description": "Hosting", "quantity": 12.0, "unit_price": 29.99, "amount": 359.88
        }  # fmt: skip


def test_amounts_split_by_ocr_after_a_currency_sign_are_read_whole() -> None:
    items = _items([*_HEADER, *_row(0.32, "Photography", "172", "£32.69", "£5 622.68")])
    assert items[0].amount == Decimal("5622.68")
    items = _items([*_HEADER, *_row(0.32, "Hosting", "1", "$1 .00", "$1, 000.00")])
    assert (items[0].unit_price, items[0].amount) == (Decimal("1.00"), Decimal("1000.00"))


def test_column_labels_run_into_one_header_cell_each_head_their_own_column() -> None:
    # A narrow quantity column close to the description's: one segment says "Qty Description".
    header = [(0.10, 0.30, "Qty Description"), (0.85, 0.30, "Amount")]
    items = _items([*header, (0.10, 0.32, "10"), (0.16, 0.32, "Software licence"),
                    (0.85, 0.32, "8,181.20")])  # fmt: skip
    assert [i.as_dict() for i in items] == [
        {"description": "Software licence", "quantity": 10.0, "amount": 8181.2}
    ]


def test_column_labels_run_together_inside_one_word_head_one_column_and_raise_nothing() -> None:
    # "Qty/Description" is one word: its second label has no words of its own to span, so the
    # cell heads only its first column (no description column, no table), as before labels
    # run into one cell were read.
    for head in ("Qty/Description", "Qty.Description", "Qty-Description"):
        cells = [(0.10, 0.30, head), (0.85, 0.30, "Amount"), (0.10, 0.32, "10"),
                 (0.16, 0.32, "Licence"), (0.85, 0.32, "8,181.20")]  # fmt: skip
        assert _items(cells) == [], head
