"""A shipping charge between the subtotal and the total: subtotal - discount + shipping + tax
= total. A shipping line among the items is an item, not a charge on top of them."""

from __future__ import annotations

from renderkit.parsing._protocol import Document, Page
from renderkit.parsing.extract.invoice import invoice_fields

from .test_invoice import _page

_HEAD = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-2024-91"),
    (0.60, 0.07, "Invoice date: 03.03.2024"),
]


def _fields(page: Page) -> dict[str, str]:
    document = Document(mime_type="application/pdf", content=b"", pages=(page,))
    return {k: str(v.value) for k, v in invoice_fields(document).fields.items()}


def test_a_shipping_charge_between_subtotal_and_tax_makes_the_sums_agree() -> None:
    page = _page(
        [
            *_HEAD,
            (0.60, 0.40, "Subtotal"), (0.80, 0.40, "100.00"),
            (0.60, 0.42, "Shipping"), (0.80, 0.42, "10.00"),
            (0.60, 0.44, "VAT 20 %"), (0.80, 0.44, "22.00"),
            (0.60, 0.46, "Total"), (0.80, 0.46, "132.00"),
        ]
    )  # fmt: skip
    document = Document(mime_type="application/pdf", content=b"", pages=(page,))
    fields = invoice_fields(document).fields
    assert (fields["subtotal"].value, fields["tax"].value, fields["total"].value) == (
        "100.00",
        "22.00",
        "132.00",
    )
    # 100 + 10 + 22 = 132 holds, so none of them is flagged as disagreeing.
    assert min(fields[n].confidence for n in ("subtotal", "tax", "total")) >= 0.9


# A shipping line printed as an item, then a summary whose total no lexicon label names and a
# balance due that carries a previous balance equal to the shipping line: counting the item
# as a charge on top would make subtotal + shipping + tax = the balance due.
_SUMMARY = [
    (0.60, 0.40, "Subtotal"), (0.80, 0.40, "100.00"),
    (0.60, 0.42, "VAT 20 %"), (0.80, 0.42, "20.00"),
    (0.60, 0.44, "Sum to settle"), (0.80, 0.44, "120.00"),
    (0.60, 0.46, "Previous balance"), (0.80, 0.46, "96.00"),
    (0.60, 0.48, "Balance due"), (0.80, 0.48, "216.00"),
]  # fmt: skip


def test_a_shipping_label_after_a_quantity_is_an_item_not_a_charge() -> None:
    page = _page(
        [
            *_HEAD,
            (0.05, 0.30, "Item"), (0.80, 0.30, "Price"),
            (0.05, 0.32, "1 Consulting"), (0.80, 0.32, "4.00"),
            (0.05, 0.34, "2 Shipping costs"), (0.80, 0.34, "96.00"),
            *_SUMMARY,
        ]
    )  # fmt: skip
    assert _fields(page)["total"] == "120.00"


def test_a_shipping_label_in_the_item_table_is_an_item_not_a_charge() -> None:
    page = _page(
        [
            *_HEAD,
            (0.05, 0.30, "Description"), (0.50, 0.30, "Qty"), (0.62, 0.30, "Unit price"),
            (0.80, 0.30, "Amount"),
            (0.05, 0.32, "Consulting"), (0.50, 0.32, "1"), (0.62, 0.32, "4.00"),
            (0.80, 0.32, "4.00"),
            (0.05, 0.34, "Shipping"), (0.50, 0.34, "1"), (0.62, 0.34, "96.00"),
            (0.80, 0.34, "96.00"),
            *_SUMMARY,
        ]
    )  # fmt: skip
    assert _fields(page)["total"] == "120.00"
