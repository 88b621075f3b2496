"""Rows of the item table that are its own sums (carried forward, a subtotal read as a last
row) are not items: the line sum leaves them out, and the arithmetic finds the total."""

from __future__ import annotations

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.invoice import invoice_fields

from .test_invoice import _page

# A carried-forward row in the middle of the items and the goods value under them are read as
# table rows; the total is printed under a wording no lexicon holds, after it a payment and
# the balance due (an amount-due label).
SUM_ROWS = _page(
    [
        (0.05, 0.05, "Supplier Trading Ltd"),
        (0.60, 0.05, "Invoice No: INV-2024-90"),
        (0.60, 0.07, "Invoice date: 03.03.2024"),
        (0.05, 0.30, "Description"), (0.50, 0.30, "Qty"), (0.62, 0.30, "Unit price"),
        (0.80, 0.30, "Amount"),
        (0.05, 0.32, "Consulting"), (0.50, 0.32, "2"), (0.62, 0.32, "50.00"),
        (0.80, 0.32, "100.00"),
        (0.05, 0.34, "Cables"), (0.50, 0.34, "4"), (0.62, 0.34, "50.00"), (0.80, 0.34, "200.00"),
        (0.05, 0.36, "Carried forward"), (0.80, 0.36, "300.00"),
        (0.05, 0.38, "Chairs"), (0.50, 0.38, "1"), (0.62, 0.38, "50.00"), (0.80, 0.38, "50.00"),
        (0.05, 0.40, "Goods value"), (0.80, 0.40, "350.00"),
        (0.60, 0.44, "VAT 19 %"), (0.80, 0.44, "66.50"),
        (0.60, 0.46, "Sum to settle"), (0.80, 0.46, "416.50"),
        (0.60, 0.48, "Paid"), (0.80, 0.48, "-116.50"),
        (0.60, 0.50, "Balance due"), (0.80, 0.50, "300.00"),
    ]
)  # fmt: skip


def test_a_table_row_that_sums_the_rows_above_it_is_no_item_of_the_line_sum() -> None:
    document = Document(mime_type="application/pdf", content=b"", pages=(SUM_ROWS,))
    fields = invoice_fields(document).fields
    # Items 100 + 200 + 50: the carried 300 and the goods value 350 are sums, not items.
    assert fields["subtotal"].value == "350.00"
    assert fields["tax"].value == "66.50"
    assert fields["total"].value == "416.50"


# The summary under the items has no labels the table reading stops at: its rows are read on
# as table rows after the goods value (their sum).
SUMMARY_AS_ROWS = _page(
    [
        (0.05, 0.05, "Supplier Trading Ltd"),
        (0.60, 0.05, "Invoice No: INV-2024-95"),
        (0.60, 0.07, "Invoice date: 03.03.2024"),
        (0.05, 0.30, "Description"), (0.50, 0.30, "Qty"), (0.62, 0.30, "Unit price"),
        (0.80, 0.30, "Amount"),
        (0.05, 0.32, "Consulting"), (0.50, 0.32, "2"), (0.62, 0.32, "50.00"),
        (0.80, 0.32, "100.00"),
        (0.05, 0.34, "Cables"), (0.50, 0.34, "4"), (0.62, 0.34, "50.00"), (0.80, 0.34, "200.00"),
        (0.05, 0.36, "Goods value"), (0.80, 0.36, "300.00"),
        (0.05, 0.38, "Freight flat"), (0.80, 0.38, "12.00"),
        (0.05, 0.40, "Sum to settle"), (0.80, 0.40, "312.00"),
        (0.05, 0.42, "Paid in advance"), (0.80, 0.42, "-112.00"),
        (0.05, 0.44, "Balance due"), (0.80, 0.44, "200.00"),
    ]
)  # fmt: skip


def test_rows_without_quantity_or_price_after_the_items_sum_are_no_items() -> None:
    document = Document(mime_type="application/pdf", content=b"", pages=(SUMMARY_AS_ROWS,))
    fields = invoice_fields(document).fields
    # The line sum is 100 + 200: the freight, total, payment and balance rows are no items.
    assert fields["subtotal"].value == "300.00"
    assert fields["total"].value == "312.00"


# A tax-free invoice's summary printed as columns under the items, under labels of its own:
# the row of its amounts (the items' sum, a rounding, the amount to pay) describes nothing.
COLUMN_SUMMARY = _page(
    [
        (0.05, 0.05, "Kestrel Handel SA"),
        (0.60, 0.05, "Code facture: F074707"),
        (0.60, 0.07, "Date: 28.10.2023"),
        (0.10, 0.30, "Qte Désignation"), (0.80, 0.30, "Montant HT"),
        (0.12, 0.32, "8 Impression de flyers"), (0.815, 0.32, "8'127.04"),
        (0.12, 0.34, "1 Heures de conseil"), (0.815, 0.34, "1'367.08"),
        (0.12, 0.36, "1 Licence logicielle"), (0.833, 0.36, "707.91"),
        (0.55, 0.39, "Montant final Arrondi Montant à payer"),
        (0.55, 0.41, "Fr. 10'202.03"), (0.69, 0.41, "Fr. 0.04"), (0.773, 0.41, "Fr. 10'202.07"),
    ]
)  # fmt: skip


def test_a_row_of_amounts_describing_nothing_under_the_items_ends_the_table() -> None:
    document = Document(mime_type="application/pdf", content=b"", pages=(COLUMN_SUMMARY,))
    fields = invoice_fields(document).fields
    # The lines come to 10'202.03; the amount to pay (10'202.07) is no fourth line.
    assert [line["amount"] for line in fields["line_items"].value] == [8127.04, 1367.08, 707.91]
    assert fields["subtotal"].value == "10202.03"
