"""Summaries whose wordings no lexicon holds, read by their arithmetic down one column or
along one row: the amounts add up, and a tax's label or rate, or the payments below a total,
say which is which."""

from __future__ import annotations

from renderkit.parsing._protocol import Document, Page
from renderkit.parsing.extract.found import Found
from renderkit.parsing.extract.invoice import invoice_fields

from .test_invoice import _page

# test_invoice._page draws 0.009 of the page's width per character.
_CHAR = 0.009


def _right(right: float, y: float, amount: str) -> tuple[float, float, str]:
    """An amount printed right-aligned at ``right``."""
    return (right - _CHAR * len(amount), y, amount)


def _fields(page: Page) -> dict[str, Found]:
    document = Document(mime_type="application/pdf", content=b"", pages=(page,))
    return invoice_fields(document).fields


def _values(fields: dict[str, Found]) -> dict[str, str]:
    return {k: fields[k].value for k in ("subtotal", "tax", "total") if k in fields}


_HEAD = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-2024-31"),
    (0.60, 0.07, "Invoice date: 03.03.2024"),
]

# Only the tax's wording is known: the goods' sum, a handling charge and the sum to settle are
# printed under words of their own, down one right-aligned column.
COLUMN = _page(
    [
        *_HEAD,
        (0.55, 0.40, "Goods"), _right(0.90, 0.40, "4,843.45"),
        (0.55, 0.42, "Handling"), _right(0.90, 0.42, "52.52"),
        (0.55, 0.44, "VAT 19 %"), _right(0.90, 0.44, "930.23"),
        (0.55, 0.46, "Settlement sum"), _right(0.90, 0.46, "5,826.20"),
    ]
)  # fmt: skip


def test_a_summary_down_one_column_under_unknown_wordings_is_read_by_its_arithmetic() -> None:
    assert _values(_fields(COLUMN)) == {
        "subtotal": "4843.45",
        "tax": "930.23",
        "total": "5826.20",
    }


# No tax label at all: the rate printed beside the tax ("Levy 5 %") is of the net after the
# discount, so no other printed amount is its base.
RATED = _page(
    [
        *_HEAD,
        (0.55, 0.40, "Goods"), _right(0.90, 0.40, "6,546.65"),
        (0.55, 0.42, "Reduction"), _right(0.90, 0.42, "-130.93"),
        (0.55, 0.44, "Levy 5 %"), _right(0.90, 0.44, "320.79"),
        (0.55, 0.46, "Settlement sum"), _right(0.90, 0.46, "6,736.51"),
    ]
)  # fmt: skip


def test_a_rate_printed_beside_an_unlabelled_tax_confirms_the_column_it_completes() -> None:
    fields = _fields(RATED)
    assert _values(fields) == {"subtotal": "6546.65", "tax": "320.79", "total": "6736.51"}
    assert fields["discount"].value == "130.93"


# Item amounts down their column add up too (the third is the first two's sum, the second
# 19 % of the first), but nothing says the second is a tax.
ITEMS = _page(
    [
        *_HEAD,
        (0.05, 0.30, "Description"), (0.62, 0.30, "Qty"), (0.80, 0.30, "Amount"),
        (0.05, 0.32, "Oak table"), (0.62, 0.32, "1"), _right(0.90, 0.32, "200.00"),
        (0.05, 0.34, "Delivery to the door"), (0.62, 0.34, "1"), _right(0.90, 0.34, "38.00"),
        (0.05, 0.36, "Oak bench set"), (0.62, 0.36, "1"), _right(0.90, 0.36, "238.00"),
    ]
)  # fmt: skip


def test_item_amounts_that_add_up_down_their_column_are_no_summary_without_a_tax_word() -> None:
    assert _fields(ITEMS).get("tax") is None


# A total, a deposit and a payment taken off it, and the balance they leave, along one row
# under a row of wordings no lexicon holds.
BALANCE_ROW = _page(
    [
        *_HEAD,
        (0.05, 0.30, "Description"), (0.62, 0.30, "Qty"), (0.80, 0.30, "Amount"),
        (0.05, 0.32, "Oak table"), (0.62, 0.32, "2"), (0.80, 0.32, "18,650.60"),
        (0.30, 0.40, "Settlement sum"), (0.50, 0.40, "Advance"), (0.65, 0.40, "Instalment"),
        (0.80, 0.40, "Left to settle"),
        (0.30, 0.42, "38,259.60"), (0.50, 0.42, "-4,591.15"), (0.65, 0.42, "-6,886.73"),
        (0.80, 0.42, "26,781.72"),
    ]
)  # fmt: skip


def test_payments_along_a_row_after_an_unlabelled_total_name_that_total() -> None:
    assert _fields(BALANCE_ROW)["total"].value == "38259.60"


# The lines' page total agrees with itself as subtotal = total without a tax; the shipping
# charge printed beside it is left out of that reading. The amount it completes, printed
# under a wording no lexicon holds, is the invoice's total.
PAGE_TOTAL_AND_CHARGE = _page(
    [
        *_HEAD,
        (0.05, 0.30, "Qty"), (0.15, 0.30, "Description"), (0.80, 0.30, "Amount"),
        (0.05, 0.32, "3"), (0.15, 0.32, "Freight"), (0.80, 0.32, "2111,91"),
        (0.05, 0.34, "40"), (0.15, 0.34, "Software licence"), (0.80, 0.34, "53056,19"),
        (0.05, 0.38, "Total per page: EUR 55168,10"),
        (0.55, 0.42, "Shipping"), (0.75, 0.42, "Settlement sum"),
        (0.55, 0.44, "EUR 47,00"), (0.75, 0.44, "EUR 55215,10"),
    ]
)  # fmt: skip


def test_a_charge_left_out_of_a_page_total_read_as_the_total_completes_the_real_one() -> None:
    for ranker in (False, True):
        fields = invoice_fields(
            Document(mime_type="application/pdf", content=b"", pages=(PAGE_TOTAL_AND_CHARGE,)),
            ranker=ranker,
        ).fields
        assert fields["total"].value == "55215.10", ranker
        assert fields["subtotal"].value == "55168.10", ranker


# An invoice of one line and no tax: its total, under a wording no lexicon holds, is that
# line's amount, and the payments printed below it turn it into the balance due.
ONE_LINE = _page(
    [
        *_HEAD,
        (0.05, 0.30, "Qty Description"), (0.80, 0.30, "Net amount"),
        (0.05, 0.32, "40"), (0.15, 0.32, "Maintenance"), (0.80, 0.32, "43,650.40"),
        (0.55, 0.40, "Settlement sum"), _right(0.90, 0.40, "43,650.40"),
        (0.55, 0.42, "Payment received"), _right(0.90, 0.42, "-3,928.54"),
        (0.55, 0.44, "Amount due"), _right(0.90, 0.44, "39,721.86"),
    ]
)  # fmt: skip


def test_the_total_of_a_one_line_invoice_is_its_lines_amount_before_the_payments() -> None:
    assert _fields(ONE_LINE)["total"].value == "43650.40"
