"""A tax printed under no label the lexicons know (a stamp over its label, a wording of its
own) is the amount that makes the labelled subtotal and total agree."""

from __future__ import annotations

from renderkit.parsing._protocol import Document, Page
from renderkit.parsing.extract.found import Found
from renderkit.parsing.extract.invoice import invoice_fields

from .test_invoice import _page


def _fields(page: Page) -> dict[str, Found]:
    """The invoice fields of a one-page document."""
    document = Document(mime_type="application/pdf", content=b"", pages=(page,))
    return invoice_fields(document).fields


# A "RECEIVED" stamp printed into the tax line hides its label; a page total equal to the
# subtotal would let "no tax" agree with it (subtotal = total).
STAMPED = _page(
    [
        (0.05, 0.05, "Supplier Trading Ltd"),
        (0.60, 0.05, "Invoice No: INV-2024-96"),
        (0.60, 0.07, "Invoice date: 03.03.2024"),
        (0.05, 0.36, "Total per page: 9,031.32"),
        (0.60, 0.40, "Subtotal"), (0.80, 0.40, "9,031.32"),
        (0.45, 0.42, "RECEIVED Levy 9 %"), (0.80, 0.42, "812.82"),
        (0.60, 0.44, "Total incl VAT"), (0.80, 0.44, "9,844.14"),
    ]
)  # fmt: skip


def test_a_tax_under_no_known_label_is_the_amount_that_completes_the_labelled_sums() -> None:
    fields = _fields(STAMPED)
    assert fields["subtotal"].value == "9031.32"
    assert fields["tax"].value == "812.82"
    assert fields["total"].value == "9844.14"


# The tax label follows another word, so it is weak (0.6): the amount is also the one that
# completes the sums, and the labelled reading of it must stay, with the line it came from.
WEAK_LABEL = _page(
    [
        (0.05, 0.05, "Supplier Trading Ltd"),
        (0.60, 0.05, "Invoice No: INV-2024-97"),
        (0.60, 0.40, "Subtotal"), (0.80, 0.40, "100.00"),
        (0.45, 0.42, "plus sales tax 19 %"), (0.80, 0.42, "19.00"),
        (0.60, 0.44, "Total"), (0.80, 0.44, "119.00"),
    ]
)  # fmt: skip


def test_a_weakly_labelled_tax_keeps_its_label_and_line() -> None:
    tax = _fields(WEAK_LABEL)["tax"]
    assert tax.value == "19.00"
    assert [w.text for line in tax.lines for w in line.words] == ["plus", "sales", "tax", "19", "%"]


# Every summary wording unknown and one line item (no table read): the rate on the tax's row
# names its base, and base + tax is printed below.
NO_KNOWN_SUMMARY_LABEL = _page(
    [
        (0.05, 0.05, "Supplier Trading Ltd"),
        (0.60, 0.05, "Invoice No: INV-2024-98"),
        (0.05, 0.30, "1"), (0.20, 0.30, "2 Consulting hours"),
        (0.65, 0.30, "1121.79"), (0.85, 0.30, "2243.58"),
        (0.60, 0.40, "Sum of items"), (0.80, 0.40, "£ 2243.58"),
        (0.60, 0.42, "Levy 5 %"), (0.80, 0.42, "£ 112.18"),
        (0.60, 0.44, "Sum to pay"), (0.80, 0.44, "£ 2355.76"),
    ]
)  # fmt: skip


def test_a_rate_on_an_unlabelled_tax_row_names_the_subtotal_the_total_completes() -> None:
    fields = _fields(NO_KNOWN_SUMMARY_LABEL)
    assert fields["subtotal"].value == "2243.58"
    assert fields["tax"].value == "112.18"
    assert fields["total"].value == "2355.76"


# The tax's label and rate lost under a stamp, the total under a wording of its own: the tax
# is 21 % of the subtotal and subtotal + tax is printed. A round 10 % of it that no total
# completes is no tax.
NO_RATE_PRINTED = _page(
    [
        (0.05, 0.05, "Supplier Trading Ltd"),
        (0.60, 0.05, "Invoice No: INV-2024-99"),
        (0.05, 0.30, "Deposit held 244.05"),
        (0.60, 0.40, "Subtotal"), (0.80, 0.40, "2,440.50"),
        (0.60, 0.42, "RECEIVED"), (0.80, 0.42, "512.51"),
        (0.60, 0.44, "Sum to pay"), (0.80, 0.44, "2,953.01"),
    ]
)  # fmt: skip


def test_an_unlabelled_amount_at_a_standard_rate_of_the_subtotal_is_its_tax() -> None:
    fields = _fields(NO_RATE_PRINTED)
    assert fields["subtotal"].value == "2440.50"
    assert fields["tax"].value == "512.51"
    assert fields["total"].value == "2953.01"


# A rounding's cents between the final sum (read as a subtotal) and the amount due are no
# tax: no rate is that small a share of a sum.
ROUNDED = _page(
    [
        (0.05, 0.05, "Suministros Tovarin S.L."),
        (0.60, 0.05, "Factura n.º: F-2024-0073"),
        (0.05, 0.40, "Suma de artículos"), (0.80, 0.40, "9076,40"),
        (0.05, 0.42, "Bonificación"), (0.80, 0.42, "-181,53"),
        (0.05, 0.44, "Impuesto 21 %"), (0.80, 0.44, "1867,92"),
        (0.05, 0.46, "Suma final"), (0.80, 0.46, "10762,79"),
        (0.05, 0.48, "Redondeo"), (0.80, 0.48, "0,04"),
        (0.05, 0.50, "A pagar"), (0.80, 0.50, "10762,83"),
    ]
)  # fmt: skip


def test_a_roundings_cents_are_no_tax_even_where_they_complete_two_labelled_sums() -> None:
    fields = _fields(ROUNDED)
    assert fields["tax"].value == "1867.92"
    assert fields["subtotal"].value == "9076.40"
