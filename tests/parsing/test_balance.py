"""A total followed by payments, a deposit or a rounding and then the balance due: total + the
amounts between = the balance names the total, whatever its label says."""

from __future__ import annotations

from decimal import Decimal

import pytest

from renderkit.parsing._protocol import Document, Word
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.sums import Printed, total_before_balance
from renderkit.parsing.layout.model import Segment

from .test_invoice import _page

# No tax is printed, and the total's wording is in no lexicon: only the balance due has a
# known label, and it is not the total.
BALANCE = _page(
    [
        (0.05, 0.05, "Supplier Trading Ltd"),
        (0.60, 0.05, "Invoice No: INV-2024-93"),
        (0.60, 0.07, "Invoice date: 03.03.2024"),
        (0.60, 0.40, "Sum to settle"), (0.80, 0.40, "1,198.66"),
        (0.60, 0.42, "Already settled"), (0.80, 0.42, "-59.93"),
        (0.60, 0.44, "Rounding"), (0.80, 0.44, "0.01"),
        (0.60, 0.46, "Balance due"), (0.80, 0.46, "1,138.74"),
    ]
)  # fmt: skip


@pytest.mark.parametrize("ranker", [False, True])
def test_the_total_is_the_amount_the_payments_after_it_turn_into_the_balance(
    ranker: bool,
) -> None:
    document = Document(mime_type="application/pdf", content=b"", pages=(BALANCE,))
    assert invoice_fields(document, ranker=ranker).fields["total"].value == "1198.66"


def _printed(*amounts: str) -> list[Printed]:
    """The amounts one under another, each in a segment of its own."""
    out = []
    for row, amount in enumerate(amounts):
        word = Word(text=amount, page=1, bbox=(0.8, 0.4 + 0.02 * row, 0.86, 0.412 + 0.02 * row))
        out.append(Printed(value=Decimal(amount), segment=Segment(words=(word,), page=1, row=row)))
    return out


def test_the_parts_of_a_total_end_the_walk_up_from_the_balance() -> None:
    # Subtotal 100.00 and tax 20.00 above an amount due of 120.00: 100 + 20 = 120, but the
    # tax is a part of the total, not a payment after it, so 100.00 is no total.
    printed = _printed("100.00", "20.00", "120.00")
    tax = Decimal("20.00")
    assert total_before_balance(printed, 2, lambda p: p.value != tax, lambda p: False) is None
    found = total_before_balance(printed, 2, lambda p: True, lambda p: False)
    assert found is not None and found.value == Decimal("100.00")


def test_an_amount_that_can_follow_no_total_ends_the_walk() -> None:
    # Two line amounts above an amount payable of their sum: 4,800 + 200 = 5,000, but a
    # positive amount under no payment or balance label is no payment after a total.
    printed = _printed("4800.00", "200.00", "5000.00")
    assert total_before_balance(printed, 2, lambda p: p.value < 0, lambda p: False) is None
