"""Invoice fields from the layout model: key-value pairs, tables, identifiers and arithmetic.

Each field gets a confidence made of three parts: how label-like its label is, how valid its
value is (a date, an amount, a checksum), and whether the amounts agree (subtotal + tax =
total, lines sum to the subtotal). A field whose check fails gets a low confidence and a
warning rather than a confident wrong value.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal

import attrs

from renderkit.parsing._protocol import Document, Line
from renderkit.parsing.extract.constraints import (
    amount_refusal,
    by_checksum,
    issue_date_refusal,
    lines_agree,
    number_refusal,
    period_dates,
    total_floor,
    total_refusal,
)
from renderkit.parsing.extract.found import Found
from renderkit.parsing.extract.identifiers import (
    completed_iban,
    find_ibans,
    find_vat_ids,
    repaired_iban,
    tax_id_currency,
    valid_iban,
    vat_checksum_ok,
)
from renderkit.parsing.extract.keyvalues import KeyValue, Value, key_values, where_weight
from renderkit.parsing.extract.numbers import (
    CENT,
    NumberFormat,
    detect_format,
    find_money,
    parse_amount,
    parse_percent,
)
from renderkit.parsing.extract.parties import Party, issuer, parties
from renderkit.parsing.extract.shaped import (
    colon_labels,
    introduces_due_date,
    labelled_values,
    names_document,
)
from renderkit.parsing.extract.summary_columns import AMOUNT_CONCEPTS, summary_columns
from renderkit.parsing.extract.sums import (
    TAX_RATES,
    Printed,
    RowSums,
    amounts_only,
    at_tax_rate,
    column_balances,
    column_sums,
    is_rate_of,
    printed_amounts,
    row_sums,
    total_before_balance,
)
from renderkit.parsing.extract.tables import LineItem, column_header_rows, find_tables, table_rows
from renderkit.parsing.extract.values import CURRENCY_SYMBOLS, currency_counts, find_dates
from renderkit.parsing.fill.confidence import failed_check
from renderkit.parsing.layout.model import PageLayout, Segment, layout_document
from renderkit.parsing.lexicons import (
    COLUMN_CONCEPTS,
    Lexicon,
    Terms,
    fold,
    load_lexicon,
    load_terms,
    tokens,
)
from renderkit.parsing.rank.candidates import (
    FEATURES,
    AmountCandidate,
    amount_candidates,
    amount_features,
    labels_by_segment,
)
from renderkit.parsing.rank.dates import (
    DATE_FEATURES,
    DateCandidate,
    column_dates,
    date_candidates,
    date_features,
    due_worded_date,
    issue_date_choices,
    printed_at,
    stamped_rows,
)
from renderkit.parsing.rank.issuer import (
    ISSUER_FEATURES,
    IssuerCandidate,
    issuer_candidates,
    issuer_features,
    name_key,
)
from renderkit.parsing.rank.model import Ranker, load_ranker

__all__ = [
    "InvoiceFields",
    "day_first_vote",
    "invoice_date_candidates",
    "invoice_fields",
    "invoice_issuer_candidates",
    "total_candidates",
]

# The issuer ranker's pick and its rivals kept for the arbiter.
_MAX_ISSUER_RIVALS = 6
# An amount, its strength and the label it was read under (None: the sum of the line items).
_Cand = tuple[Decimal, float, "KeyValue | None"]
# The strength of a total printed under no known label, found by the arithmetic alone.
_UNLABELLED = 0.3
# The confidence of a due date read after a label no lexicon holds, by its words' kinds.
_SHAPED_DUE = 0.6
# A row of this many labelled fields is the document's, even inside a party's block; a number
# read there is trusted this much of its label's strength.
_META_ROW_FIELDS = 2
_META_ROW_VALIDITY = 0.7
# A row equal to the sum of this many rows or more above it is their sum, not an item.
_MIN_SUMMED = 2
# The parts a total is made of: what stands before it, never after it.
_PARTS = ("subtotal", "tax", "discount", "shipping")
# The strength of a total confirmed by the balance printed after it.
_BEFORE_BALANCE = 0.9
# The strength of a tax printed under no known label that completes labelled sums: above the
# "no tax" candidate's 0.5.
_PRINTED_TAX = 0.6
# The strength of a tax and its base printed under any wording that the rate printed beside
# the tax and a total confirm (:func:`_rated_parts`): three printed amounts and a rate agree.
_RATED_PART = 0.8


@attrs.frozen(kw_only=True)
class InvoiceFields:
    """What :func:`invoice_fields` found.

    Attributes:
        fields: per field name, the value, its confidence and the lines it was read from.
        warnings: failed checks (arithmetic, checksums).
        total_floor: the least any total can be (:func:`~.constraints.total_floor`), None
            where nothing bounds it.
        other_numbers: the numbers read under another number's label (an order's, a
            customer's, a delivery note's): no invoice number.
    """

    fields: dict[str, Found]
    warnings: tuple[str, ...] = ()
    total_floor: Decimal | None = None
    other_numbers: frozenset[str] = frozenset()


def _line(value: Value | Segment) -> tuple[Line, ...]:
    if isinstance(value, Segment):
        return (value.as_line(),)
    return ()


def day_first_vote(text: str) -> bool:
    """Whether ``text`` writes numeric dates day first.

    Each numeric date with a part above 12 votes for the order it shows ("25/03/2024" day
    first, "03/25/2024" month first). With no vote either way, the dates' spread does: one
    document's dates (issued, due, delivered, printed) lie weeks apart, so an order that
    scatters them over many months is the wrong one ("10/12/2019" and "09/01/2020" are 30
    days apart day first, 325 month first). Else a North American phone number ("(488)
    470-1290") says month first, the US order; else day first, the common order elsewhere.

    Args:
        text: the document's text.

    Returns:
        True unless more dates show the month first.
    """
    first = second = 0
    numeric: list[tuple[int, int, int]] = []
    for match in re.finditer(r"(?<![\d.])(\d{1,2})[./-](\d{1,2})[./-](\d{2,4})(?!\d)", text):
        a, b = int(match.group(1)), int(match.group(2))
        first += a > 12
        second += b > 12
        numeric.append((a, b, int(match.group(3))))
    if first == second == 0:
        spread_vote = _spread_vote(numeric)
        if spread_vote is not None:
            return spread_vote
        if _NANP_PHONE.search(text):
            return False
    return not (second > first)


# One order of a document's dates must spread them this many times less than the other to
# decide, and the other over more than a quarter: an invoice issued on 4 April may fall due on
# 5 April or on 4 May, while one whose dates span half a year is misread.
_SPREAD_RATIO = 3
_SPREAD_DAYS = 92


def _spread_vote(numeric: Sequence[tuple[int, int, int]]) -> bool | None:
    """Day first (True) or month first (False), whichever spreads the dates ``numeric``
    ((first part, second part, year) each, both parts 12 or under) over fewer days, when it
    does so by :data:`_SPREAD_RATIO` at least and the other spreads them over more than
    :data:`_SPREAD_DAYS`; None when it does not tell."""

    def spread(day_first: bool) -> int | None:
        days = []
        for a, b, year in numeric:
            day, month = (a, b) if day_first else (b, a)
            try:
                days.append(datetime.date(year + 2000 if year < 100 else year, month, day))
            except ValueError:
                return None
        return (max(days) - min(days)).days if len(days) >= 2 else None

    by_day, by_month = spread(True), spread(False)
    if by_day is None or by_month is None or max(by_day, by_month) <= _SPREAD_DAYS:
        return None
    if by_day * _SPREAD_RATIO < by_month:
        return True
    if by_month * _SPREAD_RATIO < by_day:
        return False
    return None


# A North American phone number as printed there: area code in brackets, 3 + 4 digits.
_NANP_PHONE = re.compile(r"(?<![\d(])\(\d{3}\)\s?\d{3}[-.]\d{4}(?!\d)")


def _date_of(text: str, day_first: bool) -> datetime.date | None:
    dates = find_dates(text, day_first=day_first)
    return dates[0][0] if dates else None


def _issue_date_of(text: str, day_first: bool) -> datetime.date | None:
    # A period's start or end is no issue date (constraints.period_dates).
    periods = period_dates(text, day_first=day_first)
    dates = [d for d, _, _ in find_dates(text, day_first=day_first) if d not in periods]
    return dates[0] if dates else None


def _unlabelled_issue_date(reading: _Reading) -> datetime.date | None:
    """The issue date of an invoice whose issue-date label no lexicon holds ("Dated:",
    "Ausgestellt am"): its first date that nothing else claims.

    A date under a due or delivery date's label, a period's start or end, a date after an
    order's or a customer's number ("Order no: PO-4711 of 10/08/2020"), an earlier
    document's date and a print stamp's each say what they are. With no date left, the
    first date that is not an earlier document's nor a print stamp's.
    """
    day_first = reading.day_first
    candidates = date_candidates(reading.layouts, reading.pairs, day_first)
    # An earlier document's date is no issue date, wherever it stands; a print stamp's date
    # only where the stamp prints it (a page is often printed the day it is issued).
    refused = {c.value for c in candidates if c.earlier and _labels_own(c)}
    others = [kv for kv in reading.pairs if kv.concept in _OTHER_NUMBERS]
    free = next(
        (
            c.value
            for c in candidates
            if c.value not in refused and not c.stamp and not _claimed(c, others, day_first)
        ),
        None,
    )
    if free is not None:
        return free
    refused |= {c.value for c in candidates if c.stamp}
    dates = find_dates(reading.text, day_first=day_first)
    return next((d for d, _, _ in dates if d not in refused), None)


def _claimed(candidate: DateCandidate, others: Sequence[KeyValue], day_first: bool) -> bool:
    """Whether ``candidate`` is another date than the issue date by what its segment says:
    ``others`` are the labels of other documents' and parties' numbers."""
    line = candidate.line
    if line is None:
        return False
    if candidate.wrapped or candidate.value in period_dates(line.text, day_first=day_first):
        return True
    if candidate.concept in ("due_date", "delivery_date"):
        return _labels_own(candidate)
    # A label no lexicon holds that says it is the due date by its words ("Saldare entro:").
    if due_worded_date(candidate, day_first=day_first):
        return True
    start = printed_at(candidate, day_first=day_first) or 0
    return any(
        kv.hit.segment.page == candidate.page
        and kv.hit.segment.text == line.text
        and kv.hit.start < start
        for kv in others
    )


def _labels_own(candidate: DateCandidate) -> bool:
    """Whether ``candidate``'s label is its own: a label's value to its right or below is,
    unless words of the date's own segment label it otherwise ("Delivery date: 03/08 |
    Dated: 13/08", "Original invoice date: 02.12.2024 | Drawn up on: 24.02.2025")."""
    return candidate.where == "inline" or candidate.extra_words == 0


def _dates_earlier(kv: KeyValue, day_first: bool, stamped: Collection[tuple[int, int]]) -> bool:
    """Whether ``kv`` is an issue-date label naming an earlier document ("Original invoice
    date", :func:`~.constraints.issue_date_refusal`: the words of its segment before the
    first date count) or opening a print stamp: its row, one of ``stamped`` (page, row),
    prints a clock time and a page number beside the date ("Datum: 30.10.2024" | "Zeit:
    04:59:13" | "Seite: 1", each a segment of its own)."""
    if kv.concept != "invoice_date":
        return False
    if (kv.hit.segment.page, kv.hit.segment.row) in stamped:
        return True
    text = kv.hit.segment.text
    dates = find_dates(text, day_first=day_first)
    return issue_date_refusal(text[: dates[0][1]] if dates else text) is not None


def _amount_of(
    text: str, number_format: NumberFormat, quantities: frozenset[Decimal] = frozenset()
) -> Decimal | None:
    # A year, a date part, a phone, a postcode or a quantity is no amount without decimals or
    # a currency mark (constraints.amount_refusal).
    amounts = [
        a
        for a in find_money(text, number_format)
        if not a.percent and amount_refusal(text, a, quantities=quantities) is None
    ]
    # The last amount of a candidate: "19 % 19,00" is a rate then the tax.
    decimals = [a for a in amounts if a.decimals]
    chosen = decimals or amounts
    return chosen[-1].value if chosen else None


_ID = re.compile(r"[A-Z0-9][A-Z0-9\-/._]*[A-Z0-9]|[0-9]", re.I)
# A series prefix printed apart from the number it opens: "INV 20-20658", "RE 19-48795".
_PREFIX = re.compile(r"^[\s:#.]*([A-Z]{1,4}) $")
_MAX_ID = 30


def _identifier(text: str, day_first: bool) -> str | None:
    for match in _ID.finditer(text):
        token = match.group(0)
        if not any(c.isdigit() for c in token) or len(token) > _MAX_ID:
            continue
        if find_dates(token, day_first=day_first):
            continue
        return _with_prefix(text[: match.start()], token)
    return None


def _with_prefix(before: str, token: str) -> str:
    """``token`` with the series prefix that opens the value before it, if any.

    A word of one to four capitals, alone before the number and not a number mark ("Nr",
    "No"), is part of the number: a series code. Without it "INV 20-20658" read as "20-20658",
    a number that is not the invoice's.
    """
    # Only what follows the value's own label: "Belegkennung: RE 20-55120" read as the
    # value below a "Rechnung" title still opens with "RE".
    prefix = _PREFIX.match(re.split(r"[:：]", before)[-1])
    if prefix is None or fold(prefix.group(1)) in load_terms().number_marks:
        return token
    return f"{prefix.group(1)} {token}"


def _best(
    pairs: Sequence[KeyValue], concept: str, parse: object, *, prefer_first: bool = True
) -> tuple[object, float, Value, KeyValue] | None:
    best: tuple[object, float, Value, KeyValue] | None = None
    for kv in pairs:
        if kv.concept != concept:
            continue
        for value in kv.values:
            parsed = parse(value.text)  # type: ignore[operator]
            if parsed is None:
                continue
            score = kv.strength * where_weight(value)
            if best is None or score > best[1] + (0.0 if prefer_first else -1e-9):
                best = (parsed, score, value, kv)
            break
    return best


def _found(hit: tuple[object, float, Value, KeyValue] | None, validity: float) -> Found | None:
    if hit is None:
        return None
    value, score, _, kv = hit
    return Found(
        value=value, confidence=round(score * validity, 3), lines=(kv.hit.segment.as_line(),)
    )


def _amounts(
    pairs: Sequence[KeyValue],
    concept: str,
    number_format: NumberFormat,
    quantities: frozenset[Decimal] = frozenset(),
    *,
    every: bool = False,
) -> list[_Cand]:
    """The first amount value of each ``concept`` label; ``every``: all of its amount values,
    each later one trusted a little less ("VAT 376,37 71,51 447,88": a net, tax, gross row)."""
    out: list[_Cand] = []
    for kv in pairs:
        if kv.concept != concept:
            continue
        taken = 0
        for value in kv.values:
            amount = _amount_of(value.text, number_format, quantities)
            if amount is not None:
                out.append((amount, kv.strength * where_weight(value) * 0.9**taken, kv))
                taken += 1
                if not every:
                    break
    return out


# The most tax rows of different rates one invoice prints (Italy's 22, 10, 5 and 4 %).
_MAX_RATES = 4
# The amounts of one tax row weighed (its base, its tax, a gross amount).
_ROW_AMOUNTS = 3
# A sum of tax rows is trusted a little less than one row: where a row of their sum is
# printed, it agrees too and is the one taken.
_RATE_SUM = 0.9


def _rate_sums(taxes: Sequence[_Cand]) -> list[_Cand]:
    """The sums of one amount from each of two to :data:`_MAX_RATES` tax labels' values ("VAT 7 %
    on 109.80 | 7.69", "VAT 19 % on 64.46 | 12.25", rows or columns): an invoice with goods at
    several rates prints a tax per rate, and not always their sum. The arithmetic (subtotal +
    tax = total) decides whether a sum is the tax, and which of a row's amounts (its base or
    its tax) counts. Each carries its first row's label, at :data:`_RATE_SUM` of its weakest
    amount's weight."""
    # By label: a stacked summary prints a label per row, a summary in columns a label per
    # column, side by side on one row.
    labels: dict[Segment, list[_Cand]] = {}
    for tax in taxes:
        kv = tax[2]
        if kv is not None and tax[0] > 0:
            row = labels.setdefault(kv.hit.segment, [])
            if len(row) < _ROW_AMOUNTS:
                row.append(tax)
    return _sums_of(list(labels.values()), least=2, factor=_RATE_SUM)


def _sums_of(groups: Sequence[Sequence[_Cand]], *, least: int, factor: float) -> list[_Cand]:
    """The sums of one candidate from each of ``least`` to :data:`_MAX_RATES` of ``groups``
    (the first ``2 * _MAX_RATES``), each at ``factor`` of its weakest candidate's weight, with
    its first candidate's label: the taxes of several rates taken together."""
    kept = list(groups)[: _MAX_RATES * 2]
    out: list[_Cand] = []
    for size in range(least, min(_MAX_RATES, len(kept)) + 1):
        for chosen in itertools.combinations(kept, size):
            for combo in itertools.product(*chosen):
                weight = min(t[1] for t in combo) * factor
                out.append((sum((t[0] for t in combo), Decimal(0)), weight, combo[0][2]))
    return out


def _as_money(amounts: Iterable[Decimal], items: Sequence[LineItem]) -> bool:
    """Whether the document prints its sums as money: one of ``amounts`` (read under sum
    labels) or of the line items' amounts has decimals. There a bare integer under a tax or
    total label is a rate or a count."""
    return any(_with_decimals(a) for a in (*amounts, *_line_amounts(items)))


def _places(value: Decimal) -> int:
    """How many decimal places ``value`` was printed with ("19,00": 2, "8.1": 1, "19": 0)."""
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _places_of(amounts: Iterable[Decimal]) -> int | None:
    """The decimal places that ``amounts`` printed with decimals share, or None where they
    disagree or none has any."""
    places = {_places(a) for a in amounts if _with_decimals(a)}
    return places.pop() if len(places) == 1 else None


def _with_decimals(value: Decimal) -> bool:
    """Whether ``value`` was printed with a decimal part (read amounts keep their exponent:
    "19,00" is ``Decimal("19.00")``, "19" is ``Decimal("19")``)."""
    exponent = value.as_tuple().exponent
    return isinstance(exponent, int) and exponent < 0


def _line_amounts(items: Sequence[LineItem]) -> list[Decimal]:
    """The amounts of the line items, leaving out each row whose amount is the sum of all the
    counted rows above it: that row is the table's own sum (a subtotal read as a last row, a
    carried-forward or page total, the amount brought forward), not an item, and counting it
    doubles the line sum. Under a single item, only a row without quantity or unit price is
    its sum (two equal items are no sum). After a sum, rows without quantity or unit price
    are the summary read on as rows (shipping, tax, total, payments), not items."""
    out: list[Decimal] = []
    running = Decimal(0)
    summed = False
    for item in items:
        if item.amount is None:
            continue
        bare = item.quantity is None and item.unit_price is None
        if bare and summed:
            continue
        if len(out) >= (1 if bare else _MIN_SUMMED) and abs(item.amount - running) <= CENT:
            summed = True
            continue
        out.append(item.amount)
        running += item.amount
    return out


def _checked_lines(items: Sequence[LineItem]) -> list[Decimal]:
    """The amounts of the lines whose quantity x unit price = amount held."""
    return [i.amount for i in items if i.amount is not None and i.confidence >= 1.0]


def _total_floor(
    items: Sequence[LineItem], pairs: Sequence[KeyValue], number_format: NumberFormat
) -> Decimal | None:
    """The least the total can be: the largest checked line less the largest discount
    printed (a discount can take the total below a line's amount)."""
    quantities = frozenset(i.quantity for i in items if i.quantity is not None)
    discounts = [abs(a) for a, _, _ in _amounts(pairs, "discount", number_format, quantities)]
    return total_floor(_checked_lines(items), max(discounts, default=Decimal(0)))


@attrs.frozen
class _Adjustment:
    """What lies between the subtotal and the total besides the tax: a discount taken off, a
    shipping charge added (either, both or none)."""

    discount: _Cand | None = None
    charge: _Cand | None = None

    @property
    def off(self) -> Decimal:
        """How much it takes off the subtotal (negative: adds to it)."""
        taken = self.discount[0] if self.discount is not None else Decimal(0)
        return taken - (self.charge[0] if self.charge is not None else Decimal(0))

    @property
    def score(self) -> float:
        return sum(c[1] for c in (self.discount, self.charge) if c is not None)

    @property
    def printed(self) -> bool:
        return self.discount is not None or self.charge is not None


def _adjustments(
    pairs: Sequence[KeyValue], number_format: NumberFormat, quantities: frozenset[Decimal]
) -> list[_Adjustment]:
    """Every discount and shipping charge printed, alone and in pairs, and none. A discount's
    sign is how it is printed, its size is what it takes off; a charge adds its size. (Not in
    the total ranker's features: it was trained without them, and where the rules' sums
    agree only with a charge, the rules' total stands.)"""
    discounts: list[_Cand | None] = [None] + [
        (abs(a), s, kv) for a, s, kv in _amounts(pairs, "discount", number_format, quantities)
    ]
    # A charge's label opens its line: after a number ("12 Shipping costs 96,00") it is an
    # item's description, whose amount the line sum holds already.
    charges: list[_Cand | None] = [None] + [
        (abs(a), s, kv)
        for a, s, kv in _amounts(pairs, "shipping", number_format, quantities)
        if kv is not None and kv.hit.start == 0
    ]
    return [_Adjustment(discount=d, charge=c) for d in discounts for c in charges]


# How much a value read from a row of amounts that add up is trusted (:func:`_row_best`).
_ROW_SUMS = 0.8


def _row_best(summed: RowSums) -> tuple[float, _Cand, _Cand, _Cand, _Adjustment]:
    """The sums read from a row of amounts, as the arithmetic's best choice."""

    def cand(value: Decimal) -> _Cand:
        return (value, _ROW_SUMS, None)

    adjustment = _Adjustment(
        discount=cand(summed.discount) if summed.discount else None,
        charge=cand(summed.charge) if summed.charge else None,
    )
    picks = (cand(summed.subtotal), cand(summed.tax), cand(summed.total))
    return (sum(p[1] for p in picks) + adjustment.score, *picks, adjustment)


def _unlabelled_total(
    subs: Sequence[_Cand],
    taxes: Sequence[_Cand],
    adjustments: Sequence[_Adjustment],
    printed: Sequence[Printed],
) -> tuple[float, _Cand, _Cand, _Cand, _Adjustment] | None:
    """The best subtotal, tax, total and discount where the total is an amount printed under
    no known label (:mod:`~renderkit.parsing.extract.sums`).

    The subtotal and the tax or discount must be read under their labels (or be the line
    items' sum; a tax may be one its row's rate confirms, :func:`_rated_row_taxes`), and one
    of tax and discount must be printed: an amount equal to the subtotal alone says nothing.
    Such a total is trusted less than a labelled one.
    """
    by_value = {p.value: p for p in printed}
    best: tuple[float, _Cand, _Cand, _Cand, _Adjustment] | None = None
    for s in subs:
        for t in taxes:
            for d in adjustments:
                if t[2] is None and not t[0] and not d.printed:
                    continue
                target = (s[0] - d.off + t[0]).quantize(CENT)
                hit = next(
                    (by_value[v] for v in (target, target - CENT, target + CENT) if v in by_value),
                    None,
                )
                if s[0] <= 0 or hit is None or hit.value == s[0]:
                    continue
                g: _Cand = (hit.value, _UNLABELLED, None)
                score = s[1] + t[1] + g[1] + d.score
                if best is None or score > best[0]:
                    best = (score, s, t, g, d)
    return best


# The least share of its net amount a tax can be: below it, cents of a rounding.
_LEAST_RATE = Decimal("0.005")


def _distinct(candidates: Sequence[_Cand]) -> list[_Cand]:
    """One candidate per value, the last of each, in the order each value first came."""
    return list({c[0]: c for c in candidates}.values())


def _tax_rate(tax: Decimal, net: Decimal) -> bool:
    """Whether ``tax`` can be a tax on ``net``: from half a percent to the highest standard
    rate in use."""
    return net > 0 and net * _LEAST_RATE <= tax <= net * TAX_RATES[-1] / 100 + CENT


def _unlabelled_taxes(
    subs: Sequence[_Cand],
    totals: Sequence[_Cand],
    adjustments: Sequence[_Adjustment],
    printed: Sequence[Printed],
) -> list[_Cand]:
    """Amounts printed under no known tax label (a wording no lexicon holds, a stamp over the
    label) that make a labelled subtotal and a labelled total agree: total - subtotal +
    discount - shipping, printed as an amount of its own, at a rate a tax can have (the
    cents a rounding adds to a total are no tax). Such a tax is trusted a little more than
    no tax at all (a subtotal equal to some "total", a page's or a column's)."""
    values = {p.value for p in printed}
    out: list[_Cand] = []
    for s in (s for s in subs if s[2] is not None):
        for g in (g for g in totals if g[2] is not None):
            for d in adjustments:
                tax = g[0] - s[0] + d.off
                if tax in values and tax not in (s[0], g[0]) and _tax_rate(tax, s[0] - d.off):
                    out.append((tax, _PRINTED_TAX, None))
    return _distinct(out)


def _rated_subtotals(
    taxes: Sequence[_Cand], printed: Sequence[Printed], number_format: NumberFormat
) -> list[_Cand]:
    """Amounts printed under no known label that a tax line's rate names as its base: rate x
    amount = tax within a cent ("MWST 7 %  2.148,74" and, under a wording no lexicon holds,
    "30.696,30"). Such a subtotal is trusted as little as an unlabelled total."""
    out: list[_Cand] = []
    for tax, _, kv in taxes:
        rate = parse_percent(kv.hit.segment.text, number_format) if kv is not None else None
        if not rate or tax <= 0:
            continue
        out += [(base, _UNLABELLED, None) for base in _bases_at(rate, tax, printed)]
    return _distinct(out)


def _bases_at(rate: Decimal, tax: Decimal, printed: Sequence[Printed]) -> list[Decimal]:
    """The printed amounts (other than the tax) of which ``tax`` is ``rate`` percent within a
    cent."""
    return [p.value for p in printed if p.value != tax and is_rate_of(tax, p.value, rate)]


def _rated_row_taxes(
    printed: Sequence[Printed], rows: Mapping[tuple[int, int], str], number_format: NumberFormat
) -> tuple[list[_Cand], list[_Cand]]:
    """Amounts printed on a row with a rate, under no known label ("Levy 5 % | 2.756,15"),
    that are that rate of another printed amount within a cent: taxes the document's own
    arithmetic confirms, whatever their wording, and (second) those bases, the subtotals the
    rates name. Used only where no tax label was read; the total must then also be printed
    as base + tax (:func:`_unlabelled_total`). ``rows``: each row's text by (page, row)."""
    taxes: list[_Cand] = []
    bases: list[_Cand] = []
    for p in printed:
        rate = parse_percent(rows.get((p.segment.page, p.segment.row), ""), number_format)
        if not rate or p.value <= 0:
            continue
        named = _bases_at(rate, p.value, printed)
        if named:
            taxes.append((p.value, _UNLABELLED, None))
            bases += [(base, _UNLABELLED, None) for base in named]
    return _distinct(taxes), _distinct(bases)


def _rated_parts(
    pairs: Sequence[KeyValue],
    printed: Sequence[Printed],
    rows: Mapping[tuple[int, int], str],
    totals: Sequence[_Cand],
    number_format: NumberFormat,
) -> tuple[list[_Cand], list[_Cand], list[_Cand]]:
    """A tax and its base that the page's own arithmetic confirms whatever their wording: an
    amount that is the rate printed beside it of another printed amount within a cent, the two
    adding up to a total candidate or to another printed amount. The rate stands on the
    amount's row (the amount alone on it), in a summary column's label, or in a row of labels
    right above a row of amounts. The taxes, their bases, and the printed amounts they add up
    to that were no total candidate."""

    def amounts(text: str) -> int:
        return sum(not a.percent for a in find_money(text, number_format))

    rated: list[tuple[Decimal, Decimal]] = []
    for p in printed:
        row = rows.get((p.segment.page, p.segment.row), "")
        rate = parse_percent(row, number_format)
        # Alone on its row: a table's row (net, tax, gross side by side) is no summary's.
        if rate and p.value > 0 and amounts(row) == 1:
            rated.append((p.value, rate))
        above = rows.get((p.segment.page, p.segment.row - 1), "")
        # A summary's labels in one row over its amounts, a rate among them: which amount it
        # is the rate of, the arithmetic below decides.
        header_rate = parse_percent(above, number_format)
        if header_rate and not rate and p.value > 0 and amounts(row) > 1 and not amounts(above):
            rated.append((p.value, header_rate))
    for kv in pairs:
        # A summary printed as columns: the rate in the column's label, the amount below it.
        rate = parse_percent(kv.hit.segment.text, number_format)
        below = [v for v in kv.values if v.where == "below"]
        amount = parse_amount(below[0].text, number_format) if rate and below else None
        if rate and amount is not None and amount > 0:
            rated.append((amount, rate))
    taxes: list[_Cand] = []
    bases: list[_Cand] = []
    sums: list[_Cand] = []
    values = {p.value for p in printed}
    for tax, rate in dict.fromkeys(rated):
        for base in _bases_at(rate, tax, printed):
            whole = base + tax
            candidate = any(abs(whole - g[0]) <= CENT for g in totals)
            if not candidate and whole not in values:
                continue
            taxes.append((tax, _RATED_PART, None))
            bases.append((base, _RATED_PART, None))
            if not candidate:
                # The total printed under a wording no lexicon holds ("Montant final TTC").
                sums.append((whole, _UNLABELLED, None))
    return _distinct(taxes), _distinct(bases), _distinct(sums)


def _rate_row_sums(
    printed: Sequence[Printed], rows: Mapping[tuple[int, int], str], number_format: NumberFormat
) -> list[_Cand]:
    """The sums of the amounts of one to :data:`_MAX_RATES` rows that print a rate beside
    them, under no known label ("Levy 8.25 % | 1,049.34", "Levy 6 % | 265.92"): the taxes of
    goods at several rates, whatever their wording. Only a total printed as subtotal + such a
    sum makes one the tax (:func:`_unlabelled_total`)."""
    by_row: dict[tuple[int, int], Decimal] = {}
    for p in printed:
        key = (p.segment.page, p.segment.row)
        if p.value > 0 and key not in by_row and parse_percent(rows.get(key, ""), number_format):
            by_row[key] = p.value
    return _sums_of([[(v, _UNLABELLED, None)] for v in by_row.values()], least=1, factor=1.0)


def _implied_rate_taxes(
    subs: Sequence[_Cand], adjustments: Sequence[_Adjustment], printed: Sequence[Printed]
) -> list[_Cand]:
    """Printed amounts that are a whole or half percent of a read subtotal's net amount
    (after its discount or charge) within a cent, where net + that amount is printed too: a
    tax whose label and rate were lost (a wording no lexicon holds, a stamp over it, a
    summary row read without its labels). Used only where no tax label and no rate on a
    tax's row were read; the total must then be printed as net + tax
    (:func:`_unlabelled_total`)."""
    values = {p.value for p in printed}
    out: list[_Cand] = []
    for sub in subs:
        for d in adjustments:
            net = sub[0] - d.off
            if net <= 0:
                continue
            for value in values:
                if at_tax_rate(value, net) and any(
                    abs(net + value - total) <= CENT for total in values
                ):
                    out.append((value, _UNLABELLED, None))
    return _distinct(out)


def _totals(
    pairs: Sequence[KeyValue],
    number_format: NumberFormat,
    items: Sequence[LineItem],
    printed_amounts: Sequence[Printed] = (),
    rows: Mapping[tuple[int, int], str] | None = None,
    *,
    floor: Decimal | None,
) -> tuple[dict[str, Found], list[str], bool, frozenset[Decimal]]:
    """Subtotal, tax and total, chosen so that they agree when any combination does (the
    third value: whether they do; the fourth: the totals that the amounts printed after them
    turn into a balance due, :func:`~.sums.total_before_balance`, or a row of amounts that
    add up to, :func:`~.sums.row_sums`).

    ``printed_amounts`` holds negative amounts too (payments taken off a total); ``rows`` is
    each row's text by (page, row), for the rates printed beside amounts; ``floor``: the
    least a total can be (:func:`_total_floor`).

    A discount printed between them (``-100.00``, ``(100.00)``) is taken off the subtotal, a
    shipping charge added to it: subtotal - discount + shipping + tax = total. When no labelled
    total agrees, an amount printed under no known label that does is the total
    (:func:`_unlabelled_total`); a total-labelled amount may then be the subtotal it completes
    ("Sum of items" read as a total label).
    """
    quantities = frozenset(i.quantity for i in items if i.quantity is not None)
    subs = _amounts(pairs, "subtotal", number_format, quantities)
    adjustments = _adjustments(pairs, number_format, quantities)
    # Without a tax line, no tax is a candidate too: subtotal - discount = total. Every amount
    # after a tax label is a candidate of the arithmetic, which decides between them.
    printed = _amounts(pairs, "tax", number_format, quantities)
    taxes = _amounts(pairs, "tax", number_format, quantities, every=True) or [
        (Decimal(0), 0.5, None)
    ]
    totals = _amounts(pairs, "total", number_format, quantities) + [
        (a, s * 0.8, kv) for a, s, kv in _amounts(pairs, "amount_due", number_format, quantities)
    ]
    # A total that the payments, deposits or rounding printed after it turn into the balance
    # due is confirmed by that arithmetic, wherever the labels put it.
    before_balance = _before_balance(pairs, printed_amounts, _line_amounts(items))
    # A "total" below a checked line's amount is a count of hours, a page or a price.
    totals = [c for c in totals if total_refusal(c[0], floor) is None]
    if not any(kv is not None and kv.concept == "total" for _, _, kv in totals):
        # No label read a total (an amount due is what is left after them): payments or a
        # rounding printed below one, whatever their wording, say which amount it is.
        before_balance |= column_balances(printed_amounts)
    totals += [
        (value, _BEFORE_BALANCE, None)
        for value in sorted(before_balance)
        if total_refusal(value, floor) is None
    ]
    signed = printed_amounts
    printed_amounts = [p for p in printed_amounts if p.value > 0]
    if _as_money([c[0] for c in subs + totals], items):
        # Where the totals or the lines are printed as money, so is the tax: a bare integer
        # under a tax label ("Sales tax 6 %", its "%" cut off into the next segment) is the
        # rate. And so is the total: a bare integer under a total label is a rate or a count
        # that a wrapped row of labels put there ("Jumlah | Cukai jualan 8").
        # So is a tax printed with other decimal places than the sums ("MWST 8.1 %" heading
        # a column of a summary whose sums print cents).
        places = _places_of([c[0] for c in subs + totals])

        def money(value: Decimal) -> bool:
            return _with_decimals(value) and places in (None, _places(value))

        printed = [t for t in printed if money(t[0])]
        taxes = [t for t in taxes if t[2] is None or money(t[0])] or [(Decimal(0), 0.5, None)]
        totals = [g for g in totals if _with_decimals(g[0])]
    if items:
        line_sum = sum(_line_amounts(items), Decimal(0))
        subs.append((line_sum, 0.7, None))
    # Taxes at several rates, one row each and no row of their sum: together they are the tax.
    taxes += _rate_sums(taxes)
    # A labelled tax of the same value keeps its label and lines.
    labelled_taxes = {t[0] for t in taxes if t[2] is not None}
    taxes += [
        t
        for t in _unlabelled_taxes(subs, totals, adjustments, printed_amounts)
        if t[0] not in labelled_taxes
    ]
    rated_taxes, rated_subs, rated_totals = _rated_parts(
        pairs, printed_amounts, rows or {}, totals, number_format
    )
    taxes += [t for t in rated_taxes if t[0] not in labelled_taxes]
    subs += rated_subs
    totals += rated_totals
    out: dict[str, Found] = {}
    warnings: list[str] = []
    best: tuple[float, _Cand, _Cand, _Cand, _Adjustment] | None = None
    for s in subs:
        for t in taxes:
            for g in totals:
                for d in adjustments:
                    # Subtotal = total only when no tax is printed, or the tax taken is zero
                    # ("Steuerbetrag 0,00"): otherwise one amount was read twice.
                    same = s[0] == g[0] and bool(printed) and t[0] != 0
                    if s[0] > 0 and abs(s[0] - d.off + t[0] - g[0]) <= CENT and not same:
                        score = s[1] + t[1] + g[1] + d.score
                        if best is None or score > best[0]:
                            best = (score, s, t, g, d)
    if best is None or (best[2][2] is None and not best[2][0]):
        # No sums agree, or only with no tax printed: a row of amounts that add up (a
        # summary whose labels were not read) says more.
        texts = rows or {}

        def confirmed(tax: Printed, net: Decimal) -> bool:
            rate = parse_percent(texts.get((tax.segment.page, tax.segment.row), ""), number_format)
            by_rate = rate is not None and is_rate_of(tax.value, net, rate)
            return tax.value in labelled_taxes or by_rate

        summed = row_sums(
            signed, lambda page, row: amounts_only(texts.get((page, row), ""))
        ) or column_sums(signed, confirmed)
        if summed is not None:
            best = _row_best(summed)
            # Confirmed by the printed amounts as a balance after it would be.
            before_balance |= {summed.total}
    if best is not None and best[1][0] == best[3][0] and not best[2][0] and not best[4].printed:
        # Subtotal = total, no tax, and the discount or charge printed beside them left out: a
        # page total read as the total. An amount printed under no known label that the
        # adjustment completes is the total ("Total par page: 55168,10 | Livraison 47,00 |
        # Somme à régler 55215,10").
        printed_adjustments = [d for d in adjustments if d.printed]
        best = _unlabelled_total([best[1]], [best[2]], printed_adjustments, printed_amounts) or best
    if best is not None and best[1][0] == best[3][0] and not best[2][0]:
        # Still no tax, yet rows printing a rate and an amount under no known label ("Levy
        # 8.25 % | 1,049.34", one per rate): the amount their sum completes is the total.
        rated = _rate_row_sums(printed_amounts, rows or {}, number_format)
        best = _unlabelled_total([best[1]], rated, adjustments, printed_amounts) or best
    if best is None and printed_amounts:
        labelled = [t for t in taxes if t[2] is not None]
        row_taxes, row_bases = (
            ([], []) if labelled else _rated_row_taxes(printed_amounts, rows or {}, number_format)
        )
        real_taxes = (
            labelled
            or row_taxes
            or _implied_rate_taxes(subs, adjustments, printed_amounts)
            or [(Decimal(0), 0.5, None)]
        )
        # Under no known label, a rate's base is the subtotal as a tax label's rate names it.
        rated = _rated_subtotals(real_taxes, printed_amounts, number_format) + row_bases
        labelled_subs = subs + rated + [(a, w * 0.5, kv) for a, w, kv in totals]
        best = _unlabelled_total(labelled_subs, real_taxes, adjustments, printed_amounts)
        if best is None and not labelled:
            # Taxes at several rates, each on a row of its own under no known label: their
            # sum is the tax when the subtotal completes it to a printed amount ("Levy 7.5 %
            # | Levy 6 % | Total Levy", the total under a wording no lexicon holds).
            rated_sums = _rate_row_sums(printed_amounts, rows or {}, number_format)
            best = _unlabelled_total(labelled_subs, rated_sums, adjustments, printed_amounts)
    if best is not None:
        agreeing = (*best[1:4], best[4].discount)
        chosen = zip(("subtotal", "tax", "total", "discount"), agreeing, strict=True)
        for name, pick in ((n, p) for n, p in chosen if p is not None):
            lines = (pick[2].hit.segment.as_line(),) if pick[2] is not None else ()
            out[name] = Found(
                value=str(pick[0]), confidence=round(min(1.0, 0.9 + 0.1 * pick[1]), 3), lines=lines
            )
        line_amounts = _line_amounts(items)
        if line_amounts and best[1][2] is not None and not lines_agree(line_amounts, best[1][0]):
            # The printed amounts agree with each other, so the table was read wrong (or in
            # part): the line items are flagged, not the amounts.
            warnings.append(
                f"line_items: the lines sum to {sum(line_amounts, Decimal(0))} "
                f"but subtotal = {best[1][0]}"
            )
        return out, warnings, True, before_balance
    # No agreeing triple: each amount alone, or completed by arithmetic, with low confidence.
    picks: dict[str, _Cand | None] = {
        name: max(cands, key=lambda c: c[1]) if cands else None
        for name, cands in (("subtotal", subs), ("tax", printed), ("total", totals))
    }
    for name, picked in picks.items():
        if picked is not None:
            lines = (picked[2].hit.segment.as_line(),) if picked[2] is not None else ()
            out[name] = Found(
                value=str(picked[0]), confidence=round(0.6 * picked[1], 3), lines=lines
            )
    last_item = next((i.amount for i in reversed(items) if i.amount is not None), None)
    if picks["total"] is None and not printed and last_item is not None and printed_amounts:
        # No tax printed and no total read: the document's last amount, printed after the
        # last item's and all the lines come to, is the total ("Montant final 3.562,16"
        # under a wording no lexicon holds). A subtotal would have a tax or a total after it;
        # the last item's own amount is no summary.
        *before, last = printed_amounts
        after_items = last_item in {p.value for p in before}
        # A page's sum carried to the next page ("Carried forward") is no total either.
        row = (rows or {}).get((last.segment.page, last.segment.row), last.segment.text)
        carried = "page_sum" in load_lexicon().concepts_in([t for t, _, _ in tokens(row)])
        lines_sum = sum(_line_amounts(items), Decimal(0))
        if after_items and not carried and abs(last.value - lines_sum) <= CENT:
            out["total"] = Found(
                value=str(last.value), confidence=0.5, lines=(last.segment.as_line(),)
            )
    # A discount that no arithmetic confirms ("3 % within 10 days") is left out of the sums.
    ps, pt, pg = picks["subtotal"], picks["tax"], picks["total"]
    # A tax as large as the subtotal is no tax (no rate reaches 100 %): one of them is misread.
    if ps and pg and not pt and ps[0] <= pg[0] < 2 * ps[0]:
        out["tax"] = Found(value=str(pg[0] - ps[0]), confidence=0.55)
    elif ps and pt and not pg and pt[0] < ps[0]:
        out["total"] = Found(value=str(ps[0] + pt[0]), confidence=0.55)
    elif pg and pt and not ps and pt[0] < pg[0] / 2:
        out["subtotal"] = Found(value=str(pg[0] - pt[0]), confidence=0.55)
    if ps and pt and pg:
        # No assignment of the printed amounts agrees: at least one of them is wrong, so each
        # is flagged (capped, with a warning naming them) rather than reported as read.
        for name in ("subtotal", "tax", "total"):
            out[name] = attrs.evolve(out[name], confidence=failed_check(out[name].confidence))
        warnings.append(
            f"subtotal, tax, total: subtotal + tax = {ps[0] + pt[0]} but total = {pg[0]}: "
            "the amounts do not agree"
        )
    return out, warnings, False, before_balance


def _before_balance(
    pairs: Sequence[KeyValue], printed: Sequence[Printed], lines: Sequence[Decimal]
) -> frozenset[Decimal]:
    """The totals found above each balance due (an amount under an amount-due label) by
    :func:`~.sums.total_before_balance`. What may follow a total: an amount taken off (printed
    negative), one under a payment or balance label (a previous balance), a rounding (under
    one unit); a subtotal, tax, discount or charge, or a line item's amount, is a part of the
    total and no total itself."""
    labelled = labels_by_segment(pairs, ("amount_due", "prepaid", *_PARTS))
    # A line's amount is a part of the total, unless it is all the lines come to (an invoice
    # of one line, no tax: its total is that line's amount).
    items = frozenset(lines) - {sum(lines, Decimal(0))}

    def concepts(p: Printed) -> set[str]:
        return {kv.concept for kv, _, _ in labelled.get((p.segment.page, p.segment.bbox), ())}

    def part(p: Printed) -> bool:
        return p.value in items or bool(concepts(p) & set(_PARTS))

    def follows(p: Printed) -> bool:
        after = p.value < 0 or abs(p.value) < 1 or bool(concepts(p) & {"prepaid", "amount_due"})
        return after and not part(p)

    found = (
        total_before_balance(printed, index, follows, part)
        for index, p in enumerate(printed)
        if "amount_due" in concepts(p) and p.value > 0
    )
    return frozenset(total.value for total in found if total is not None)


def _currency(pairs: Sequence[KeyValue], text: str) -> Found | None:
    for kv in pairs:
        if kv.concept == "currency":
            for value in kv.values:
                code = value.text.strip().upper()[:3]
                if code in CURRENCY_SYMBOLS.values():
                    return Found(value=code, confidence=0.95, lines=(kv.hit.segment.as_line(),))
    counts = currency_counts(text)
    if not counts:
        # No sign or code on the page (an OCR model without the rupee sign reads none): the
        # first tax number's country tells the money, at the confidence of a guess.
        local = next(filter(None, (tax_id_currency(v) for v, _ in find_vat_ids(text))), None)
        return Found(value=local, confidence=0.5) if local else None
    code = max(counts, key=lambda c: counts[c])
    return Found(value=code, confidence=0.8 if len(counts) == 1 else 0.6)


def _title_number(layouts: Sequence[PageLayout], day_first: bool) -> Found | None:
    """The number after the document's title: "Handelsrechnung (380) Nr. E2018 vom ...".

    Such a title names the document itself, so its number is the invoice number even where
    the title word is a compound or other words sit between it and the number mark.
    """
    lexicon, terms = load_lexicon(), load_terms()
    for layout in layouts[:1]:
        for row in layout.rows:
            for segment in row.segments:
                toks = tokens(segment.text)
                words = [t for t, _, _ in toks]
                for index, word in enumerate(words[:3]):
                    titled = any(c == "document_title" for c, _ in lexicon.match(words, index))
                    if not titled and not any(
                        word.endswith(x) and word != x for x in terms.compound_suffixes
                    ):
                        continue
                    for mark in range(index + 1, min(index + 4, len(words))):
                        if words[mark] not in terms.number_marks:
                            continue
                        if any(
                            c in _OTHER_NUMBERS
                            for between in range(index + 1, mark)
                            for c, _ in lexicon.match(words, between)
                        ):
                            break  # "Rechnung gemäß Bestellung Nr. ...": the order's number
                        after = mark + 1
                        while after < len(words) and words[after] in terms.number_marks:
                            after += 1
                        if after >= len(words):
                            break
                        value = _identifier(segment.text[toks[after][1] :], day_first)
                        if value is not None and number_refusal(value, segment.text, inline=True):
                            break
                        if value is not None:
                            return Found(value=value, confidence=0.95, lines=(segment.as_line(),))
                        break
    return None


# How long an identifier under a label no lexicon holds must be: "A1" could be anything.
_MIN_NAMED_ID = 5
# What the words of a label naming the document may also be: the title, a number, a code or
# position (a table's column word), "de"/"of" (read as the seller's "from"). A date, an amount
# or a party's word makes it that field's label.
_NAMING_CONCEPTS = frozenset({"document_title", "invoice_number", "seller", *COLUMN_CONCEPTS})
# The most words of such a label around a title word.
_MAX_TITLED_WORDS = 3


def _named_number(layouts: Sequence[PageLayout], day_first: bool) -> Found | None:
    """The identifier after a label that names the document and nothing else: "Invoice code:",
    "Código de factura:", "Rechnungskennung:", "Document ref:", "Belegkennung:", when no
    invoice-number label outside the parties' blocks was found: a label naming the document is
    not a party's number.

    Such wordings are endless, so the rule reads their shape, not their words: a short label
    ending in a colon, either around the document's own title word with words no other concept
    claims, or made only of words for a document, a reference and linking words
    (:func:`~.shaped.names_document`); then a value with a digit, five characters or more,
    that is no date, no amount and no number the constraints refuse.
    """
    lexicon, terms = load_lexicon(), load_terms()
    for layout in layouts[:1]:
        for label, value, segment in labelled_values(layout):
            if not _names_number(label.words, lexicon, terms):
                continue
            ident = _identifier(value, day_first)
            if (
                ident is None
                or len(ident.replace(" ", "")) < _MIN_NAMED_ID
                or any(a.decimals for a in find_money(value))
                or number_refusal(ident, segment.text, inline=True) is not None
            ):
                continue
            return Found(value=ident, confidence=0.6, lines=(segment.as_line(),))
    return None


def _names_number(words: Sequence[str], lexicon: Lexicon, terms: Terms) -> bool:
    if names_document(words, lexicon, terms):
        return True
    concepts = lexicon.concepts_in(words)
    titled = "document_title" in concepts or any(
        w.endswith(x) for w in words for x in terms.compound_suffixes
    )
    return titled and len(words) <= _MAX_TITLED_WORDS and not concepts - _NAMING_CONCEPTS


def _numbers_only(kv: KeyValue, day_first: bool) -> KeyValue:
    """``kv`` without the values that are a year, a page or line number or a phone number
    (constraints.number_refusal) if it is an invoice number label."""
    if kv.concept != "invoice_number":
        return kv
    kept = []
    for value in kv.values:
        ident = _identifier(value.text, day_first)
        if ident is not None and value.where == "below" and not _opens(value.text, ident):
            continue
        context = f"{kv.hit.segment.text} {value.text}"
        if ident is None or number_refusal(ident, context, inline=value.where == "inline") is None:
            kept.append(value)
    return attrs.evolve(kv, values=tuple(kept))


def _opens(text: str, ident: str) -> bool:
    """Whether identifier ``ident`` opens ``text``, a line read below its label: after nothing,
    a number mark ("Nr. 2020-1") or a label of its own ("Belegkennung: RE 20-55120"). A figure
    inside a line of words (a house number in the sender's one-line address under the
    document's title) is no value of the label above."""
    at = text.find(ident)
    if at < 0:
        return True
    head = re.split(r"[:：]", text[:at])[-1]
    marks = load_terms().number_marks
    return all(token in marks for token, _, _ in tokens(head))


def _number(
    layouts: Sequence[PageLayout],
    pairs: Sequence[KeyValue],
    blocks: Sequence[Party],
    day_first: bool,
    others: frozenset[str],
) -> Found | None:
    """The invoice number; ``others``: the numbers read under another number's label
    (:func:`other_number_values`), which are none."""
    # A number printed in a party's block is that party's (customer or supplier number).
    free = [
        _numbers_only(kv, day_first)
        for kv in pairs
        if not any(p.holds(kv.hit.segment) for p in blocks) and not _other_number(kv, pairs)
    ]

    # A value read under another number's label is that number, whichever label (a title's,
    # "RECHNUNG" over "Lieferschein-Nr.: 2021/710") also reaches it.
    def identifier(text: str) -> str | None:
        found = _identifier(text, day_first)
        return None if found in others else found

    labelled = _best(free, "invoice_number", identifier)
    titled = _title_number(layouts, day_first)
    if labelled is not None and (titled is None or labelled[1] >= 0.95):
        return _found(labelled, 1.0)
    if titled is not None or labelled is not None:
        return titled
    return _named_number(layouts, day_first) or _meta_row_number(layouts, pairs, blocks, day_first)


# A separator an identifier may end its line with where its column wraps it.
_WRAP_SEPARATORS = "-/._"


def _wrapped_number(number: Found, layouts: Sequence[PageLayout]) -> Found:
    """``number`` with the rest its narrow column wrapped onto the next row ("Rif. documento:
    FT-2024-" / "08020"): where a segment ends in the number and a separator, and the first
    segment of the next row under it is one token with a figure, that token finishes it. A
    separator is never an identifier's last character, so the line did not end there."""
    value = str(number.value)
    squeezed = re.sub(r"\s", "", value)
    if not squeezed:
        return number
    for layout in layouts:
        for segment in (s for row in layout.rows for s in row.segments):
            separator = segment.text.rstrip()[-1:]
            if not separator or separator not in _WRAP_SEPARATORS:
                continue
            if not re.sub(r"\s", "", segment.text)[:-1].endswith(squeezed):
                continue
            under = _segments_under(layout, segment.row, segment.bbox[0], segment.bbox[2], rows=1)
            rest = under[0].text.strip() if under else ""
            if re.fullmatch(r"[A-Za-z0-9]*\d[A-Za-z0-9]*", rest):
                return attrs.evolve(number, value=f"{value}{separator}{rest}")
    return number


def _segments_under(
    layout: PageLayout, row: int, left: float, right: float, *, rows: int
) -> list[Segment]:
    """The segments of the ``rows`` rows under row ``row`` of ``layout`` that reach into the
    span from ``left`` to ``right``, nearest row first: where a narrow column wraps a value."""
    return [
        s
        for r in layout.rows
        if row < r.index <= row + rows
        for s in r.segments
        if s.bbox[0] < right and s.bbox[2] > left
    ]


# Labels of another document's or party's number: "Order no.", "Pedido n.°", "Customer no."
_OTHER_NUMBERS = ("order_number", "customer_number", "other_number")


def other_number_values(pairs: Sequence[KeyValue]) -> frozenset[str]:
    """The numbers read under another number's label (an order's, a customer's, a delivery
    note's): each value's identifier, as :func:`_identifier` reads an invoice number."""
    return frozenset(
        number
        for kv in pairs
        if kv.concept in _OTHER_NUMBERS
        for value in kv.values
        if (number := _identifier(value.text, day_first=True)) is not None
        and not _quotes_invoice(value.text, number)
    )


# A word this long or longer that opens a document title word ("Inv" of "invoice") names it.
_TITLE_PREFIX = 3


def _quotes_invoice(text: str, number: str) -> bool:
    """Whether ``text`` names the document right before ``number``: a payment reference
    quoting the invoice ("Payment reference: Invoice 2024-17", "Inv. 2024-17 Cust 4711"),
    whose number is the invoice's own, not another document's."""
    at = text.find(number)
    words = [t for t, _, _ in tokens(re.split(r"[:：]", text[: max(at, 0)])[-1])]
    if at <= 0 or not words:
        return False
    word = words[-1]
    if len(word) < _TITLE_PREFIX:
        return False
    return any(
        title[0].startswith(word) for title in load_lexicon().labels.get("document_title", ())
    )


def _other_number(kv: KeyValue, pairs: Sequence[KeyValue]) -> bool:
    """Whether ``kv`` is an invoice-number label whose number is another's: its number mark
    made it one after the label of another number in its segment ("Pedido n.°: PO-14769": the
    order's number), or that label stands between it and any figure ("Rechnung gemäß
    Bestellung Nr. 2013-4711": the order's number, the invoice's is printed elsewhere)."""
    if kv.concept != "invoice_number":
        return False
    segment = kv.hit.segment
    return any(
        o.concept in _OTHER_NUMBERS
        and o.hit.segment == segment
        and (
            o.hit.start < kv.hit.start
            or (
                o.hit.start >= kv.hit.end
                and not re.search(r"\d", segment.text[kv.hit.end : o.hit.start])
            )
        )
        for o in pairs
    )


def _meta_row_number(
    layouts: Sequence[PageLayout],
    pairs: Sequence[KeyValue],
    blocks: Sequence[Party],
    day_first: bool,
) -> Found | None:
    """The number of an invoice-number label that a party's block took in, when its row is a
    row of labelled fields ("Number: ... || Date: ... || Order: ..."), and no number was
    found elsewhere.

    Such a row runs across the parties' columns under their blocks: it is the document's,
    not a party's, but the block reading cannot tell where a block stops. A party's own
    number sits on a row of its own.
    """
    rows = {
        (layout.number, index): row for layout in layouts for index, row in enumerate(layout.rows)
    }
    boxed = []
    for kv in pairs:
        segment = kv.hit.segment
        row = rows.get((segment.page, segment.row))
        if row is None or not any(p.holds(segment) for p in blocks):
            continue
        labelled_fields = sum(bool(colon_labels(s.text)) for s in row.segments)
        if labelled_fields >= _META_ROW_FIELDS:
            boxed.append(_numbers_only(kv, day_first))
    hit = _best(boxed, "invoice_number", lambda t: _identifier(t, day_first))
    return _found(hit, _META_ROW_VALIDITY)


def _due_from_terms(text: str, issued: datetime.date) -> datetime.date | None:
    """The due date that payment terms in days ("payable within 30 days") give."""
    folded = fold(text)
    for pattern in load_terms().net_days:
        match = pattern.search(folded)
        if match is not None:
            return issued + datetime.timedelta(days=int(match.group(1)))
    return None


def _deadline_due(layouts: Sequence[PageLayout], day_first: bool) -> Found | None:
    """The date after a label that introduces the due date by its words' kinds
    (:func:`~.shaped.introduces_due_date`: "Pay before:", "Zahlungsfrist:", "Payer avant le:"),
    when no due-date label of the lexicons was found.

    The date must open the value (a date later in it is another field's) and must not open or
    close a period (:func:`~.constraints.period_dates`).
    """
    lexicon, terms = load_lexicon(), load_terms()
    for layout in layouts:
        for label, value, segment in labelled_values(layout):
            if not introduces_due_date(label.words, lexicon, terms):
                continue
            dates = find_dates(value, day_first=day_first)
            if not dates or value[: dates[0][1]].strip(" .,;-"):
                continue
            if dates[0][0] in period_dates(value, day_first=day_first):
                continue
            return Found(
                value=dates[0][0].isoformat(), confidence=_SHAPED_DUE, lines=(segment.as_line(),)
            )
    return None


def _near_label(
    found: list[tuple[str, int]], pairs: Sequence[KeyValue], concept: str
) -> str | None:
    for kv in pairs:
        if kv.concept != concept:
            continue
        for value in kv.values:
            compact = re.sub(r"[\s.\-]", "", value.text.upper())
            for candidate, _ in found:
                if candidate in compact:
                    return candidate
    return None


_IBAN_SHAPE = re.compile(r"[A-Z]{2}\d{2}[A-Z0-9]{8,30}")
# An IBAN whose checksum passes only after one look-alike character is changed: likely, not
# read as printed.
_REPAIRED_IBAN = 0.75


def _iban(
    text: str, pairs: Sequence[KeyValue], customer_text: str, layouts: Sequence[PageLayout]
) -> tuple[Found | None, list[str]]:
    ibans = [i for i in find_ibans(text) if i[0] not in customer_text]
    if not ibans:
        # An IBAN wrapped in its table cell ("DE67 1004 8392 7221" / "8882 72"): the rows put
        # the other columns' words between its parts, its block reads it whole. The checksum
        # and the country's length keep a join of unrelated lines out.
        ibans = [
            i
            for t in _block_lines(layouts)
            for i in find_ibans(t, known_countries=True)
            if i[0] not in customer_text
        ]
    if ibans:
        labelled = _near_label(ibans, pairs, "iban")
        # A valid checksum makes a misread unlikely; the label says it is the payee's account.
        return Found(value=labelled or ibans[0][0], confidence=0.95 if labelled else 0.85), []
    for kv in pairs:
        if kv.concept != "iban":
            continue
        for value in kv.values:
            compact = re.sub(r"[\s\u00a0]", "", value.text.upper().lstrip(":：. "))
            match = _IBAN_SHAPE.match(compact)
            if match is None or valid_iban(match.group(0)):
                continue
            line = (kv.hit.segment.as_line(),)
            completed = completed_iban(value.text, _below_in_column(kv, value, layouts))
            if completed is not None and completed not in customer_text:
                # Its narrow column wrapped it, and OCR read the rest into the next row.
                return Found(value=completed, confidence=0.85, lines=line), []
            repaired = repaired_iban(match.group(0))
            if repaired is not None and repaired not in customer_text:
                # One look-alike character changed makes the checksum pass: what was printed.
                warning = f"iban: read {match.group(0)}, its checksum passes as {repaired}"
                return Found(value=repaired, confidence=_REPAIRED_IBAN, lines=line), [warning]
            warning = f"iban: {match.group(0)} fails the IBAN checksum"
            return Found(value=match.group(0), confidence=failed_check(0.9), lines=line), [warning]
    return None, []


def _below_in_column(kv: KeyValue, value: Value, layouts: Sequence[PageLayout]) -> list[str]:
    """The texts of the two rows under a label and its value on its row that reach under
    them, nearest first: where a narrow column wraps a value, under its label's start."""
    if value.where == "below":
        return []
    row, left, right = kv.hit.segment.row, kv.hit.segment.bbox[0], value.bbox[2]
    return [
        s.text
        for layout in layouts
        if layout.number == value.page
        for s in _segments_under(layout, row, left, right, rows=2)
    ]


def _names_buyer(kv: KeyValue) -> bool:
    words = [t for t, _, _ in tokens(kv.hit.segment.text)]
    if any(w in load_terms().buyer_marks for w in words):
        return True
    return "customer" in load_lexicon().concepts_in(words)


def _vat_id(
    text: str, pairs: Sequence[KeyValue], blocks: Sequence[Party]
) -> tuple[Found | None, list[str]]:
    """The seller's VAT id; of several, one whose check digits hold wins (by_checksum). One
    whose check digits fail is still returned (the format matched, and the digits may be a
    misread of the right id) but capped with a warning."""
    found = _vat_candidate(text, pairs, blocks)
    if found is None:
        return None, []
    if vat_checksum_ok(str(found.value)) is False:
        flagged = attrs.evolve(found, confidence=failed_check(found.confidence))
        return flagged, [f"vat_id: {found.value} fails its check digits"]
    return found, []


def _wrapped_suffix(vat: str, layouts: Sequence[PageLayout]) -> str:
    """A Swiss VAT id with its "MWST", "TVA" or "IVA" (part of the number) when a narrow
    column wrapped it onto the line below ("MWST: CHE-123.456.789" / "MWST"): the id's text
    block reads the two lines as one."""
    if not re.fullmatch(r"CHE\d{9}", vat):
        return vat
    for text in _block_lines(layouts):
        for found, _ in find_vat_ids(text):
            if found.startswith(vat) and found != vat:
                return found
    return vat


def _block_lines(layouts: Sequence[PageLayout]) -> Iterator[str]:
    """Each text block's lines read as one line: a value its cell or column wrapped."""
    for layout in layouts:
        for block in layout.blocks:
            yield " ".join(s.text for s in block.segments)


def _vat_candidate(text: str, pairs: Sequence[KeyValue], blocks: Sequence[Party]) -> Found | None:
    def compact(value: str) -> str:
        return re.sub(r"[\s.\-]", "", value.upper())

    for party in blocks:
        if party.role == "seller":
            own = by_checksum(find_vat_ids(party.text), lambda v: vat_checksum_ok(v[0]))
            if own:
                return Found(value=own[0][0], confidence=0.95)
    buyer_text = compact(" ".join(p.text for p in blocks if p.role == "customer"))
    # "Your VAT id", "N° TVA client": a label naming the buyer introduces the buyer's id.
    buyer_labels = [kv for kv in pairs if kv.concept == "vat_id" and _names_buyer(kv)]
    buyer_text += compact(" ".join(v.text for kv in buyer_labels for v in kv.values))
    vats = [v for v in find_vat_ids(text) if v[0] not in buyer_text]
    if not vats:
        return None
    seller_labels = [kv for kv in pairs if kv not in buyer_labels]
    # An id whose check digits fail is a misread or another number: the valid ones decide.
    vats = [v for v in vats if vat_checksum_ok(v[0]) is not False] or vats
    labelled = _near_label(vats, seller_labels, "vat_id")
    return Found(value=labelled or vats[0][0], confidence=0.85 if labelled else 0.6)


@attrs.frozen(kw_only=True)
class _Reading:
    """What every invoice field is read from: the layout, its labels and its tables."""

    layouts: Sequence[PageLayout]
    text: str
    number_format: NumberFormat
    day_first: bool
    pairs: list[KeyValue]
    items: list[LineItem]
    # The amounts of a totals block printed as columns, one segment each (no layout row has
    # them as segments of their own).
    summary_values: tuple[Segment, ...] = ()
    # The (page, row) of every row naming item columns (:func:`column_header_rows`).
    column_heads: frozenset[tuple[int, int]]


def _reading(document: Document, layouts: Sequence[PageLayout] | None) -> _Reading:
    layouts = layouts if layouts is not None else layout_document(document)
    text = "\n".join(row.text for layout in layouts for row in layout.rows)
    number_format = detect_format(row.text for layout in layouts for row in layout.rows)
    tables = find_tables(layouts, number_format)
    # A row of column labels heads columns whether or not its table was read.
    column_heads = frozenset(column_header_rows(layouts))
    header_rows = {(t.page, t.header_row) for t in tables} | column_heads
    # A shipping label in the item table is an item's description ("Shipping costs | 12,00"):
    # its amount is in the line sum already, and is no charge on top of it.
    body_rows = {(t.page, row.index) for t in tables for row in t.rows}
    # A totals block printed as columns is read by columns; what the segment reading paired
    # in its label rows (a label with the next label, or with a run of several amounts) goes.
    summary = summary_columns(layouts, number_format)
    pairs = [
        kv
        for kv in key_values(layouts)
        if (kv.hit.segment.page, kv.hit.segment.row) not in header_rows
        and not (
            kv.concept in AMOUNT_CONCEPTS
            and (kv.hit.segment.page, kv.hit.segment.row) in summary.label_rows
        )
        and not (
            kv.concept == "shipping" and (kv.hit.segment.page, kv.hit.segment.row) in body_rows
        )
    ]
    pairs += summary.pairs
    return _Reading(
        layouts=layouts,
        text=text,
        number_format=number_format,
        day_first=day_first_vote(text),
        pairs=pairs,
        items=[item for table in tables for item in table_rows(table)],
        summary_values=summary.values,
        column_heads=column_heads,
    )


def total_candidates(
    document: Document, layouts: Sequence[PageLayout] | None = None
) -> tuple[list[AmountCandidate], list[list[float]]]:
    """Every amount of ``document`` that could be its total, and each one's features
    (:func:`~renderkit.parsing.rank.candidates.amount_features`): what the total ranker scores,
    in training and in reading alike."""
    return _total_candidates(_reading(document, layouts))


def _total_candidates(
    reading: _Reading,
) -> tuple[list[AmountCandidate], list[list[float]]]:
    items = reading.items
    quantities = frozenset(i.quantity for i in items if i.quantity is not None)
    candidates = amount_candidates(
        reading.layouts, reading.pairs, reading.number_format, quantities, reading.summary_values
    )
    return candidates, amount_features(candidates, quantities, _line_amounts(items))


@functools.cache
def _total_ranker() -> Ranker:
    return load_ranker("invoice_total", FEATURES)


def _ranked_total(
    reading: _Reading,
    rules: Found | None,
    *,
    agreed: bool = False,
    before_balance: frozenset[Decimal] = frozenset(),
    floor: Decimal | None,
) -> Found | None:
    """The total the learned ranker picks, its calibrated probability as the confidence.

    The pick is an amount under a total or amount-due label, and the amounts' arithmetic stays
    a hard constraint: where some totals agree with a subtotal and tax
    (:func:`~renderkit.parsing.rank.candidates.agreeing_totals`), the ranker chooses among
    those only. Where the rules found no total, the ranker's pick is added only if it is more
    likely right than wrong. A total the rules' arithmetic confirms (``agreed``) beats every
    candidate it does not confirm, and a rules' total that the balance printed after it
    confirms (``before_balance``) beats them all: the ranker's ``agrees`` holds within a cent,
    so a balance after a rounding of one cent passes it. ``floor``: the least a total can be
    (:func:`_total_floor`).
    """
    if rules is not None and Decimal(str(rules.value)) in before_balance:
        return rules
    candidates, features = _total_candidates(reading)
    # A total is read under a total or amount-due label, as the rules read it; subtotals,
    # taxes and discounts are candidates only for what they say about the others. An amount
    # the constraints refuse (a year, a count after a quantity label) is none, as for the
    # rules.
    sums = [c.value for c in candidates if c.concept in ("subtotal", "total", "amount_due")]
    money = _as_money(sums, reading.items)
    totals = [
        i
        for i, c in enumerate(candidates)
        if c.concept in ("total", "amount_due")
        and not c.refused
        and total_refusal(c.value, floor) is None
        and (_with_decimals(c.value) or not money)
    ]
    if not totals:
        return rules
    agrees = FEATURES.index("agrees")
    allowed = [i for i in totals if features[i][agrees]]
    # The ranker's agreement knows no charge (shipping): where the rules' sums agree, a total
    # it finds agreeing without the charge (a page total equal to the lines' sum) does not
    # beat theirs.
    agreeing = {candidates[i].value for i in allowed}
    if agreed and rules is not None and Decimal(str(rules.value)) not in agreeing:
        return rules
    allowed = allowed or totals
    ranker = _total_ranker()
    scores = {i: ranker.score(features[i]) for i in allowed}
    best = max(scores, key=lambda i: scores[i])
    probability = ranker.probability(scores[best])
    if rules is None and probability < 0.5:
        return None
    pick = candidates[best]
    lines = (pick.line,) if pick.line is not None else ()
    return Found(value=str(pick.value), confidence=round(probability, 3), lines=lines)


def invoice_date_candidates(
    document: Document, layouts: Sequence[PageLayout] | None = None
) -> tuple[list[DateCandidate], list[list[float]]]:
    """Every date of ``document`` that could be its issue date, and each one's features
    (:func:`~renderkit.parsing.rank.dates.date_features`): what the date ranker scores, in
    training and in reading alike."""
    return _date_candidates(_reading(document, layouts))


def _date_candidates(reading: _Reading) -> tuple[list[DateCandidate], list[list[float]]]:
    candidates = date_candidates(reading.layouts, reading.pairs, reading.day_first)
    return candidates, date_features(candidates)


@functools.cache
def _date_ranker() -> Ranker:
    return load_ranker("invoice_date", DATE_FEATURES)


def _ranked_date(reading: _Reading) -> Found | None:
    """The issue date the learned ranker picks among the dates under an issue-date label
    (:func:`~renderkit.parsing.rank.dates.issue_date_choices`), its calibrated probability as
    the confidence (None: no such date; the rules' reading stays)."""
    candidates, features = _date_candidates(reading)
    choices = issue_date_choices(candidates, day_first=reading.day_first)
    if not choices:
        return None
    ranker = _date_ranker()
    scores = {i: ranker.score(features[i]) for i in choices}
    best = max(scores, key=lambda i: scores[i])
    pick = candidates[best]
    lines = (pick.line,) if pick.line is not None else ()
    confidence = round(ranker.probability(scores[best]), 3)
    return Found(value=pick.value.isoformat(), confidence=confidence, lines=lines)


@attrs.frozen(kw_only=True)
class _Seller:
    """The seller's identifiers and the segments printing them."""

    iban: Found | None
    vat: Found | None
    warnings: tuple[str, ...]
    ids: tuple[Segment, ...]


def _seller(reading: _Reading, blocks: Sequence[Party]) -> _Seller:
    layouts, text, pairs = reading.layouts, reading.text, reading.pairs
    customer_text = re.sub(
        r"[\s.\-]", "", " ".join(p.text for p in blocks if p.role == "customer").upper()
    )
    iban, iban_warnings = _iban(text, pairs, customer_text, layouts)
    vat, vat_warnings = _vat_id(text, pairs, blocks)
    if vat is not None:
        vat = attrs.evolve(vat, value=_wrapped_suffix(str(vat.value), layouts))
    ids = tuple(
        s
        for layout in layouts
        for row in layout.rows
        for s in row.segments
        if any(
            v is not None and str(v.value) in re.sub(r"[\s.\-]", "", s.text.upper())
            for v in (vat, iban)
        )
    )
    warnings = (*(iban_warnings if iban else ()), *(vat_warnings if vat else ()))
    return _Seller(iban=iban, vat=vat, warnings=tuple(warnings), ids=ids)


def invoice_issuer_candidates(
    document: Document, layouts: Sequence[PageLayout] | None = None
) -> tuple[list[IssuerCandidate], list[list[float]]]:
    """Every name of ``document`` that could be its issuer, and each one's features
    (:func:`~renderkit.parsing.rank.issuer.issuer_features`): what the issuer ranker scores,
    in training and in reading alike."""
    reading = _reading(document, layouts)
    blocks = parties(reading.layouts, reading.pairs)
    ids = _seller(reading, blocks).ids
    rules = issuer(reading.layouts, blocks, ids, column_heads=reading.column_heads)
    return _issuer_candidates(reading, blocks, ids, rules)


def _issuer_candidates(
    reading: _Reading, blocks: Sequence[Party], ids: Sequence[Segment], rules: Found | None
) -> tuple[list[IssuerCandidate], list[list[float]]]:
    ranked = (
        [] if rules is None else [str(rules.value), *(str(a.value) for a in rules.alternatives)]
    )
    candidates = issuer_candidates(reading.layouts, blocks, ids, column_heads=reading.column_heads)
    return candidates, issuer_features(candidates, reading.layouts, ranked)


@functools.cache
def _issuer_ranker() -> Ranker:
    return load_ranker("invoice_issuer", ISSUER_FEATURES)


def _ranked_issuer(
    reading: _Reading, blocks: Sequence[Party], ids: Sequence[Segment], rules: Found | None
) -> Found | None:
    """The issuer the learned ranker picks among the names the party rules propose (the
    buyer's block and titles, stamps and table headers refused), its calibrated probability as
    the confidence; the other candidates, best first, are its rivals for the arbiter."""
    candidates, features = _issuer_candidates(reading, blocks, ids, rules)
    if not candidates:
        return rules
    ranker = _issuer_ranker()
    scores = [ranker.score(f) for f in features]
    order = sorted(range(len(candidates)), key=lambda i: -scores[i])
    best = candidates[order[0]]
    rivals = tuple(
        Found(
            value=candidates[i].value,
            confidence=round(ranker.probability(scores[i]), 3),
            lines=(candidates[i].segment.as_line(),),
        )
        for i in order[1:_MAX_ISSUER_RIVALS]
    )
    # Each candidate's probability is fitted on its own; where rivals are likely too (a trade
    # name and a legal name, both plausible) the pick's share of their sum is the honest
    # figure, never more than its own probability. A rival spelling the same name ("Ltd" and
    # "Ltd.") is no rival.
    probabilities = [ranker.probability(x) for x in scores]
    same = name_key(best.value)
    others = sum(
        p for c, p in zip(candidates, probabilities, strict=True) if name_key(c.value) != same
    )
    share = probabilities[order[0]] / (probabilities[order[0]] + others)
    return Found(
        value=best.value,
        confidence=round(min(probabilities[order[0]], share), 3),
        lines=(best.segment.as_line(),),
        alternatives=rivals,
    )


def invoice_fields(
    document: Document,
    layouts: Sequence[PageLayout] | None = None,
    *,
    ranker: bool = False,
    date_ranker: bool = False,
    issuer_ranker: bool = False,
) -> InvoiceFields:
    """The invoice fields of ``document`` with per-field confidences and the lines read.

    Args:
        document: the document.
        layouts: its layout, when already built.
        ranker: choose the total with the learned ranker
            (:mod:`~renderkit.parsing.rank`) instead of the label rules.
        date_ranker: choose the issue date with the learned date ranker
            (:mod:`~renderkit.parsing.rank.dates`) instead of the label rules; the due date,
            and terms counted from the issue date, still come from the rules.
        issuer_ranker: choose the issuer with the learned issuer ranker
            (:mod:`~renderkit.parsing.rank.issuer`) among the names the party rules propose.
    """
    reading = _reading(document, layouts)
    layouts, text, pairs = reading.layouts, reading.text, reading.pairs
    number_format, day_first = reading.number_format, reading.day_first
    fields: dict[str, Found] = {}
    warnings: list[str] = []

    blocks = parties(layouts, pairs)
    others = other_number_values(pairs)
    number = _number(layouts, pairs, blocks, day_first, others)
    if number is not None:
        fields["number"] = _wrapped_number(number, layouts)
    stamped = stamped_rows(layouts)
    columns = column_dates(layouts, pairs)
    issued = _best(
        [
            kv
            for kv in pairs
            if not _dates_earlier(kv, day_first, stamped) and id(kv) not in columns
        ],
        "invoice_date",
        lambda t: _issue_date_of(t, day_first),
    )
    due = _best(pairs, "due_date", lambda t: _date_of(t, day_first))
    issued_on: datetime.date | None = None
    if issued is None:
        issued_on = _unlabelled_issue_date(reading)
        if issued_on is not None:
            fields["date"] = Found(value=issued_on.isoformat(), confidence=0.5)
    else:
        issued_on = issued[0]  # type: ignore[assignment]
        fields["date"] = Found(
            value=issued_on.isoformat(),  # type: ignore[union-attr]
            confidence=round(issued[1], 3),
            lines=(issued[3].hit.segment.as_line(),),
        )
    if due is not None:
        due_date = due[0]
        fields["due_date"] = Found(
            value=due_date.isoformat(),  # type: ignore[attr-defined]
            confidence=round(due[1] * 0.95, 3),
            lines=(due[3].hit.segment.as_line(),),
        )
    elif shaped_due := _deadline_due(layouts, day_first):
        fields["due_date"] = shaped_due
    elif issued_on is not None and (term_due := _due_from_terms(text, issued_on)):
        fields["due_date"] = Found(value=term_due.isoformat(), confidence=0.7)
    if date_ranker:
        ranked_date = _ranked_date(reading)
        if ranked_date is not None:
            fields["date"] = ranked_date

    items = reading.items
    rows = {(layout.number, row.index): row.text for layout in layouts for row in layout.rows}
    floor = _total_floor(items, pairs, number_format)
    totals, total_warnings, agreed, before_balance = _totals(
        pairs,
        number_format,
        items,
        printed_amounts(layouts, number_format, signed=True),
        rows,
        floor=floor,
    )
    if ranker:
        ranked = _ranked_total(
            reading,
            totals.get("total"),
            agreed=agreed,
            before_balance=before_balance,
            floor=floor,
        )
        totals.pop("total", None)
        if ranked is not None:
            totals["total"] = ranked
    fields.update(totals)
    warnings += total_warnings

    currency = _currency(pairs, text)
    if currency is not None:
        fields["currency"] = currency

    buyer = next((p for p in blocks if p.role == "customer" and p.name), None)
    if buyer is not None and buyer.name:
        line = buyer.heading.hit.segment.as_line()
        fields["customer"] = Found(value=buyer.name, confidence=0.8, lines=(line,))
    sellers = _seller(reading, blocks)
    if sellers.iban is not None:
        fields["iban"] = sellers.iban
    if sellers.vat is not None:
        fields["vat_id"] = sellers.vat
    warnings += sellers.warnings
    found_issuer = issuer(layouts, blocks, sellers.ids, column_heads=reading.column_heads)
    if issuer_ranker:
        found_issuer = _ranked_issuer(reading, blocks, sellers.ids, found_issuer)
    if found_issuer is not None:
        fields["company"] = found_issuer
    if items:
        fields["line_items"] = Found(
            value=[item.as_dict() for item in items],
            confidence=min(item.confidence for item in items),
        )
        warnings += [w for item in items for w in item.warnings]
    return InvoiceFields(
        fields=fields,
        warnings=tuple(warnings),
        total_floor=floor,
        other_numbers=others,
    )
