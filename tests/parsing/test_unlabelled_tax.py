"""A tax printed under no label the lexicons know (a stamp over its label, a wording of its
own) is the amount that makes the labelled subtotal and total agree."""

from __future__ import annotations

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.invoice import invoice_fields

from .test_invoice import _page

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
    document = Document(mime_type="application/pdf", content=b"", pages=(STAMPED,))
    fields = invoice_fields(document).fields
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
    document = Document(mime_type="application/pdf", content=b"", pages=(WEAK_LABEL,))
    tax = invoice_fields(document).fields["tax"]
    assert tax.value == "19.00"
    assert [w.text for line in tax.lines for w in line.words] == ["plus", "sales", "tax", "19", "%"]
