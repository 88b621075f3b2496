"""A total the labels missed, found by the document's own arithmetic.

A total printed under a wording no lexicon holds ("Sum to pay", "Montante a liquidar") is no
label's value, so the label rules cannot see it, and they take whatever a known label offers
(a total of hours, a balance after a deposit). The document's arithmetic still names it: of
the amounts printed anywhere on the pages, the one that equals subtotal - discount + tax is the
total. Only money is looked at (an amount with decimals, not a percentage), and the agreement
must be exact within :data:`~renderkit.parsing.extract.constraints.ROUNDING`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal

import attrs

from renderkit.parsing.extract.numbers import CENT, NumberFormat, find_money
from renderkit.parsing.extract.values import CURRENCY_SYMBOLS
from renderkit.parsing.layout.model import PageLayout, Segment

__all__ = [
    "TAX_RATES",
    "Printed",
    "RowSums",
    "amounts_only",
    "at_tax_rate",
    "column_balances",
    "column_sums",
    "is_rate_of",
    "printed_amounts",
    "row_sums",
    "total_before_balance",
]


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
            and abs(candidate.value + between - target.value) <= CENT
            and not part(candidate)
        ):
            return candidate
        if not follows(candidate):
            return None
        between += candidate.value
    return None


@attrs.frozen(kw_only=True)
class RowSums:
    """An invoice's sums read from one row of amounts by their arithmetic alone.

    Attributes:
        subtotal: the row's first amount.
        discount: what the negative amounts after it take off (0 for none).
        charge: a positive amount after it that is no tax (shipping; 0 for none).
        tax: the positive amount at a tax's rate of the net.
        total: the first amount that the ones before it add up to.
    """

    subtotal: Decimal
    discount: Decimal
    charge: Decimal
    tax: Decimal
    total: Decimal


#: The rates a tax printed without its rate may be of its net amount: whole and half
#: percents up to the highest standard VAT rate in use (27 %), and the few rates in force
#: that are neither.
TAX_RATES = tuple(
    sorted(
        {Decimal(half) / 2 for half in range(2, 55)}
        # Rates in force that are no whole or half percent: Switzerland's (and its 2018-2023
        # ones), Quebec's sales tax alone and with the federal GST.
        | {Decimal(r) for r in ("2.6", "3.7", "3.8", "7.7", "8.1", "9.975", "14.975")}
    )
)
# Words a row of amounts may print beside them: currency codes and marks.
_CURRENCY_WORDS = frozenset(k.upper() for k in CURRENCY_SYMBOLS) | frozenset(
    CURRENCY_SYMBOLS.values()
)


def at_tax_rate(tax: Decimal, net: Decimal) -> bool:
    """Whether ``tax`` is a positive whole or half percent (:data:`TAX_RATES`) of ``net``
    within a cent: a tax printed without its rate."""
    return tax > 0 and any(is_rate_of(tax, net, rate) for rate in TAX_RATES)


def is_rate_of(tax: Decimal, base: Decimal, rate: Decimal) -> bool:
    """Whether ``tax`` is ``rate`` percent of ``base`` within a cent."""
    return abs(base * rate / 100 - tax) <= CENT


def amounts_only(text: str) -> bool:
    """Whether row ``text`` prints nothing but amounts and currency marks: a summary's values
    whose labels were not read (lost to OCR, or wordings of a row above)."""
    return all(word.upper() in _CURRENCY_WORDS for word in re.findall(r"[^\W\d_]+", text))


def row_sums(printed: Sequence[Printed], value_row: Callable[[int, int], bool]) -> RowSums | None:
    """The sums of the first row (by ``value_row(page, row)``) whose amounts, left to right,
    add up: subtotal, discounts (printed negative), a charge and a tax, then their total
    ("60.674,48 -3.033,72 46,02 12.114,22 69.801,00 ..."; what follows the total, a previous
    balance and the amount due, is not read). Of the positive amounts between, the tax is
    the one at a whole or half percent of the net within a cent; a row without one is no
    invoice's summary.

    ``printed`` must hold negative amounts too (:func:`printed_amounts` with ``signed``).
    """
    for (page, row), group in itertools.groupby(
        printed, key=lambda p: (p.segment.page, p.segment.row)
    ):
        values = [p.value for p in group]
        if len(values) < 3 or values[0] <= 0 or not value_row(page, row):
            continue
        for end in range(2, len(values)):
            if values[end] > 0 and abs(sum(values[:end]) - values[end]) <= CENT:
                sums = _split(values[0], values[1:end], values[end])
                # Without a tax at a tax's rate, the row is some other sum (a total, a
                # previous balance and a deposit adding up to the amount due).
                if sums.tax:
                    return sums
            if (taxes := _taxes_and_their_sum(values[0], values[1:end], values[end])) is not None:
                return taxes
    return None


def _taxes_and_their_sum(
    subtotal: Decimal, between: Sequence[Decimal], total: Decimal
) -> RowSums | None:
    """The sums of a row printing the net, a tax per rate, the taxes' sum and the total
    ("6,230.13 | 441.86 | 65.57 | 507.43 | 6,737.56"): net + sum = total and the sum adds up
    the parts before it. The parts need not be at a rate of the whole net (each rate taxes
    some of the lines); that two amounts add up to a third, which completes the total, is the
    evidence."""
    *parts, summed = between or (Decimal(0),)
    if len(parts) < 2 or any(p <= 0 for p in parts) or total <= 0:
        return None
    if abs(sum(parts, Decimal(0)) - summed) > CENT or abs(subtotal + summed - total) > CENT:
        return None
    nothing = Decimal(0)
    return RowSums(subtotal=subtotal, discount=nothing, charge=nothing, tax=summed, total=total)


# How far apart (a share of the page's width) the right edges of one column's amounts may be.
_ALIGNED = 0.02
# How many amounts a summary may print between its subtotal and its total: discount, charge,
# tax.
_PARTS = 3


def column_sums(
    printed: Sequence[Printed], confirmed: Callable[[Printed, Decimal], bool]
) -> RowSums | None:
    """The sums of a summary printed down one column under labels no lexicon holds
    ("Som artikelen | Verzending | BTW 9 % | Te voldoen"): consecutive amounts, one row each and
    right-aligned, where the first and up to three after it (discounts printed negative, a
    charge, the tax) add up to the next, the largest amount printed. Item amounts down their
    column add up too, so the tax, at a tax's rate of the net, must be one that
    ``confirmed(tax, net)`` (read under a tax label, or beside its rate).

    ``printed`` must hold negative amounts too (:func:`printed_amounts` with ``signed``).
    """
    largest = max((p.value for p in printed), default=Decimal(0))
    for run in _column_runs(printed):
        if run[-1].value != largest:
            continue
        sums = _split(run[0].value, [p.value for p in run[1:-1]], run[-1].value)
        tax = next((p for p in run[1:-1] if p.value == sums.tax), None)
        if sums.tax and tax is not None and confirmed(tax, sums.total - sums.tax):
            return sums
    return None


def column_balances(printed: Sequence[Printed]) -> frozenset[Decimal]:
    """Totals that payments printed below them, down one column, turn into the balance due
    under labels no lexicon holds ("Rechnungssumme | Anzahlung | Zahlung erhalten |
    Zahlbetrag"): the largest amount printed, then up to three amounts printed negative, then
    what they leave. Such a summary may also be printed along one row, under a row of labels.

    ``printed`` must hold negative amounts too (:func:`printed_amounts` with ``signed``).
    """
    largest = max((p.value for p in printed), default=Decimal(0))
    return frozenset(
        run[0].value
        for run in _column_runs(printed, across=True)
        if run[0].value == largest and all(p.value < 0 for p in run[1:-1])
    )


def _column_runs(
    printed: Sequence[Printed], *, across: bool = False
) -> Iterator[Sequence[Printed]]:
    """Consecutive amounts down one column (:func:`_one_column`; ``across``: or along one row),
    the first positive, whose amounts before the last add up to it within a cent: 3 to
    ``_PARTS + 2`` of them."""
    for start, first in enumerate(printed):
        if first.value <= 0:
            continue
        for end in range(start + 2, min(start + _PARTS + 2, len(printed))):
            run = printed[start : end + 1]
            total = run[-1].value
            adds_up = abs(sum(p.value for p in run[:-1]) - total) <= CENT
            along = across and len({(p.segment.page, p.segment.row) for p in run}) == 1
            if total > 0 and adds_up and (along or _one_column(run)):
                yield run


def _one_column(run: Sequence[Printed]) -> bool:
    """Whether ``run`` stands down one column: one page, a row each, right edges aligned."""
    segments = [p.segment for p in run]
    rows = [(s.page, s.row) for s in segments]
    rights = [s.bbox[2] for s in segments]
    return (
        len({page for page, _ in rows}) == 1
        and all(a < b for a, b in itertools.pairwise(rows))
        and max(rights) - min(rights) <= _ALIGNED
    )


def _split(subtotal: Decimal, between: Sequence[Decimal], total: Decimal) -> RowSums:
    discount = -sum((v for v in between if v < 0), Decimal(0))
    added = [v for v in between if v > 0]
    tax = Decimal(0)
    for value in added:
        net = subtotal - discount + sum(added, Decimal(0)) - value
        if at_tax_rate(value, net):
            tax = value
            break
    return RowSums(
        subtotal=subtotal,
        discount=discount,
        charge=sum(added, Decimal(0)) - tax,
        tax=tax,
        total=total,
    )
