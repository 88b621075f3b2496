"""A tax label followed by a whole net / tax / gross row: the arithmetic picks the tax."""

from __future__ import annotations

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.invoice import invoice_fields

from .test_invoice import _page

# "VAT" opens a row that prints the net amount, the tax and the gross amount to its right; the
# tax label's first value is the net amount.
TAX_ROW = _page(
    [
        (0.05, 0.05, "Supplier Trading Ltd"),
        (0.60, 0.05, "Invoice No: INV-404"),
        (0.60, 0.07, "Invoice date: 03.03.2024"),
        (0.05, 0.40, "Subtotal"), (0.70, 0.40, "376.37"),
        (0.05, 0.42, "VAT 19 %"), (0.40, 0.42, "376.37"), (0.55, 0.42, "71.51"),
        (0.70, 0.42, "447.88"),
        (0.05, 0.44, "Total"), (0.70, 0.44, "447.88"),
    ]
)  # fmt: skip


def test_the_tax_is_the_amount_of_a_tax_row_that_makes_the_sums_agree() -> None:
    document = Document(mime_type="application/pdf", content=b"", pages=(TAX_ROW,))
    fields = invoice_fields(document).fields
    assert fields["tax"].value == "71.51"
    assert fields["subtotal"].value == "376.37" and fields["total"].value == "447.88"
    # Subtotal + tax = total holds, so none of the three is flagged.
    assert min(fields[name].confidence for name in ("subtotal", "tax", "total")) >= 0.9
