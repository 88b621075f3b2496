"""A total the labels missed, found by the document's own arithmetic.

A total printed under a wording no lexicon holds ("Sum to pay", "Montante a liquidar") is no
label's value, so the label rules cannot see it, and they take whatever a known label offers
(a total of hours, a balance after a deposit). The document's arithmetic still names it: of
the amounts printed anywhere on the pages, the one that equals subtotal - discount + tax is the
total. Only money is looked at (an amount with decimals, not a percentage), and the agreement
must be exact within :data:`~renderkit.parsing.extract.constraints.ROUNDING`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

import attrs

from renderkit.parsing.extract.numbers import NumberFormat, find_money
from renderkit.parsing.layout.model import PageLayout, Segment

__all__ = ["Printed", "printed_amounts", "total_before_balance"]


@attrs.frozen(kw_only=True)
class Printed:
    """An amount printed on a page, whatever label (or none) it is printed under.

    Attributes:
        value: the amount.
        segment: the segment printing it.
    """

    value: Decimal
    segment: Segment


def printed_amounts(
    layouts: Sequence[PageLayout], number_format: NumberFormat, *, signed: bool = False
) -> list[Printed]:
    """Every positive amount with decimals printed on ``layouts``, in reading order
    (``signed``: negative ones too).

    Integers are left out: a quantity, a year or a count of hours is printed without decimals
    far more often than a total is.
    """
    out: list[Printed] = []
    for layout in layouts:
        for row in layout.rows:
            for segment in row.segments:
                out += [
                    Printed(value=a.value, segment=segment)
                    for a in find_money(segment.text, number_format)
                    if a.decimals and not a.percent and (a.value > 0 or (signed and a.value))
                ]
    return out


# How many amounts may stand between a total and the balance they leave (a previous balance, a
# deposit, payments, a rounding adjustment).
_BETWEEN = 5
_CENT = Decimal("0.01")


def total_before_balance(
    printed: Sequence[Printed],
    balance: int,
    follows: Callable[[Printed], bool],
    part: Callable[[Printed], bool],
) -> Printed | None:
    """The total that the amounts printed between it and ``printed[balance]`` (a balance due)
    turn into that balance: total + the amounts between = the balance, within a cent.

    An invoice that takes a deposit or a payment off, or adds a previous balance or a
    rounding, prints its total and then those amounts, and last the amount due, which the
    labels read as the total. Walking up from the balance over at most a few amounts that
    can follow a total (``follows``: a payment, a deposit, a previous balance, a rounding),
    the first amount that those passed complete to the balance is the total, unless it is a
    ``part`` of one (a subtotal, a tax, a line's amount).
    """
    target = printed[balance]
    between = Decimal(0)
    for step, candidate in enumerate(reversed(printed[:balance])):
        if step > _BETWEEN:
            return None
        if (
            step
            and candidate.value > 0
            and abs(candidate.value + between - target.value) <= _CENT
            and not part(candidate)
        ):
            return candidate
        if not follows(candidate):
            return None
        between += candidate.value
    return None
