"""A till receipt's total told by the receipt's own arithmetic, whatever its label says.

A till prints its amounts in the order it computed them: the items, then what they add up to
(a subtotal, a tax, a discount, a rounding), the total, and last how it was paid (the amount
tendered, then the change). Two sums name the total without reading a label:

- a run of consecutive amounts adds up to it (subtotal + tax, items - discount + tax), and
- two consecutive amounts after it leave it (tendered - change = total).

A label the till printed in a wording no lexicon holds ("Sum to pay" in any language), or a
photo whose OCR put each label beside the next line's amount, leaves the label rules with the
wrong amount or none; the sums still hold, because they read only amounts in printing order.
A value is trusted only when both sums agree on it: one run that happens to add up, or one pair
that happens to differ by it, is too easily a coincidence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

import attrs

from renderkit.parsing._protocol import Line

__all__ = ["Summed", "left_by_payment", "summed_total"]

# A subtotal block is a few amounts; an items run may be long (every line of the receipt).
_LONGEST_RUN = 40


@attrs.frozen(kw_only=True)
class Summed:
    """A total the receipt's sums agree on.

    Attributes:
        value: the amount.
        line: the line printing it, or None when it is printed nowhere legible (a total whose
            amount OCR lost, still named by the amounts around it).
    """

    value: Decimal
    line: Line | None


def _runs_ending(amounts: Sequence[Decimal], end: int) -> set[Decimal]:
    """Sums of every run of two or more consecutive amounts that ends right before ``end``."""
    out: set[Decimal] = set()
    if end < 2:
        return out
    total = amounts[end - 1]
    for start in range(end - 2, max(-1, end - 1 - _LONGEST_RUN), -1):
        total += amounts[start]
        out.add(total)
    return out


def _printed(
    lines: Sequence[Line], amounts_of: Callable[[Line], list[str]]
) -> list[tuple[Decimal, Line]]:
    """Each line's last amount, in printing order, with its line."""
    out: list[tuple[Decimal, Line]] = []
    for line in lines:
        found = amounts_of(line)
        if found:
            out.append((Decimal(found[-1]), line))
    return out


def left_by_payment(
    lines: Sequence[Line], amounts_of: Callable[[Line], list[str]], tendered: Decimal
) -> Summed | None:
    """The total printed right before ``tendered`` when ``tendered`` - the next amount is it.

    A label read one row off (a photo's rows run together) sits beside the amount handed
    over; the amount before it is the total, the one after it the change.
    """
    printed = _printed(lines, amounts_of)
    for index in range(1, len(printed) - 1):
        (before, line), (value, _), (change, _) = printed[index - 1 : index + 2]
        if value == tendered and 0 < change < value and value - change == before:
            return Summed(value=before, line=line)
    return None


def summed_total(lines: Sequence[Line], amounts_of: Callable[[Line], list[str]]) -> Summed | None:
    """The amount both of the receipt's sums name (the last such when several do), or None.

    ``amounts_of`` reads a line's amounts (left to right); each line counts its last one, the
    amount a till prints at the right edge. A run must end before the amount it adds up to;
    a payment pair must come after it, the tendered amount larger than the total and the change
    above zero (an exact payment proves nothing: every amount leaves itself and 0).
    """
    printed = _printed(lines, amounts_of)
    amounts = [a for a, _ in printed]
    runs = [_runs_ending(amounts, end) for end in range(len(amounts) + 1)]
    best: Summed | None = None
    for index, (value, line) in enumerate(printed):
        added = value > 0 and any(value in runs[end] for end in range(2, index + 1))
        paid = any(
            given > value and change > 0 and given - change == value
            for given, change in zip(amounts[index + 1 :], amounts[index + 2 :], strict=False)
        )
        if added and paid:
            best = Summed(value=value, line=line)
    if best is not None:
        return best
    # A total OCR lost: the run right before the payment adds up to what the payment leaves.
    for given_at in range(2, len(amounts) - 1):
        given, change = amounts[given_at], amounts[given_at + 1]
        left = given - change
        if change > 0 and left > 0 and left not in amounts and left in runs[given_at]:
            return Summed(value=left, line=None)
    return None
