"""rate x base = tax: a subtotal printed under a wording no lexicon holds is the amount the tax
line's rate names, and subtotal + tax = an amount printed under another such wording is the
total."""

from __future__ import annotations

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.invoice import invoice_fields

from .test_invoice import _page

# Neither "Goods together" nor "Sum to settle" is a lexicon label; "Hours booked" is a decoy
# amount, and 7 % of it is not the tax.
RATED = _page(
    [
        (0.05, 0.05, "Supplier Trading Ltd"),
        (0.60, 0.05, "Invoice No: INV-2024-92"),
        (0.60, 0.07, "Invoice date: 03.03.2024"),
        (0.05, 0.36, "Hours booked"), (0.80, 0.36, "24,754.99"),
        (0.60, 0.40, "Goods together"), (0.80, 0.40, "30,696.30"),
        (0.60, 0.42, "VAT 7 %"), (0.80, 0.42, "2,148.74"),
        (0.60, 0.44, "Sum to settle"), (0.80, 0.44, "32,845.04"),
    ]
)  # fmt: skip


def test_the_subtotal_is_the_amount_the_tax_rate_names_and_completes_the_total() -> None:
    document = Document(mime_type="application/pdf", content=b"", pages=(RATED,))
    fields = invoice_fields(document).fields
    assert fields["subtotal"].value == "30696.30"
    assert fields["tax"].value == "2148.74"
    assert fields["total"].value == "32845.04"
