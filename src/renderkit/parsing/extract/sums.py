"""A total the labels missed, found by the document's own arithmetic.

A total printed under a wording no lexicon holds ("Sum to pay", "Montante a liquidar") is no
label's value, so the label rules cannot see it, and they take whatever a known label offers
(a total of hours, a balance after a deposit). The document's arithmetic still names it: of
the amounts printed anywhere on the pages, the one that equals subtotal - discount + tax is the
total. Only money is looked at (an amount with decimals, not a percentage), and the agreement
must be exact within :data:`~renderkit.parsing.extract.constraints.ROUNDING`.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import attrs

from renderkit.parsing.extract.numbers import NumberFormat, find_money
from renderkit.parsing.layout.model import PageLayout, Segment

__all__ = ["Printed", "printed_amounts"]


@attrs.frozen(kw_only=True)
class Printed:
    """An amount printed on a page, whatever label (or none) it is printed under.

    Attributes:
        value: the amount.
        segment: the segment printing it.
    """

    value: Decimal
    segment: Segment


def printed_amounts(layouts: Sequence[PageLayout], number_format: NumberFormat) -> list[Printed]:
    """Every positive amount with decimals printed on ``layouts``, in reading order.

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
                    if a.decimals and not a.percent and a.value > 0
                ]
    return out
