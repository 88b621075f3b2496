"""A receipt's total, and the amounts printed beside a label (subtotal, tax).

The total is a total label's amount by position, ranked against what was paid (tendered minus
change); the receipt's own sums (:mod:`~renderkit.parsing.extract.receipt_sums`) overrule a
label's amount no payment confirms. Without a label: the sums' amount, else what was paid, else
the subtotal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

import attrs

from renderkit.parsing._protocol import Line
from renderkit.parsing.extract.found import Found, clean
from renderkit.parsing.extract.keyvalues import KeyValue, key_values
from renderkit.parsing.extract.receipt_lines import fix_ocr_digits, line_amounts, till_amounts
from renderkit.parsing.extract.receipt_patterns import receipt_patterns as _rx
from renderkit.parsing.extract.receipt_sums import left_by_payment, summed_total
from renderkit.parsing.extract.values import find_amounts
from renderkit.parsing.layout.model import PageLayout, Row, Segment

__all__ = ["labelled_line_amount", "receipt_total"]


def _labelled_amount(lines: Sequence[Line], index: int) -> str | None:
    amounts = line_amounts(lines[index])
    if amounts:
        return amounts[-1]
    if index + 1 < len(lines):
        following = clean(lines[index + 1].text)
        if re.fullmatch(r"([A-Z]{2,3}|\$|€|£)?\s*[\d.,\s]+", following):
            nxt = line_amounts(lines[index + 1])
            if nxt:
                return nxt[-1]
    return None


def _payment(lines: Sequence[Line]) -> tuple[Decimal | None, Decimal | None]:
    cash = change = None
    for line in lines:
        amounts = line_amounts(line)
        if not amounts:
            continue
        if change is None and _rx().change.search(line.text):
            change = Decimal(amounts[-1])
        elif cash is None and _rx().cash.search(line.text):
            cash = Decimal(amounts[-1])
    return cash, change


def _paid(cash: Decimal | None, change: Decimal | None) -> Decimal | None:
    """What was paid: the amount tendered less the change, when both are printed."""
    return cash - change if cash is not None and change is not None else None


# Label concepts whose value is the amount to pay.
_TOTAL_CONCEPTS = frozenset({"total", "amount_due"})
# The largest step tills round a payment by (the smallest coin in use).
_ROUNDING_STEP = Decimal("0.05")
# At most this many characters of a word cut at the paper's edge may come before a label.
_EDGE_FRAGMENT = 4


def _row_of(segment: Segment, layouts: Sequence[PageLayout]) -> Row | None:
    for layout in layouts:
        if layout.number == segment.page and segment.row < len(layout.rows):
            return layout.rows[segment.row]
    return None


def _leads(pair: KeyValue) -> bool:
    """Whether the label opens its segment, a fragment cut at the paper's edge aside.

    OCR loses the first letters at a receipt's edge ("otal After Rounding"): a few letters
    before the label are what is left of another word of it, not a sentence it ends.
    """
    before = pair.hit.segment.text[: pair.hit.start].strip()
    return len(before) <= _EDGE_FRAGMENT and not any(c.isdigit() for c in before)


def _total_amounts(pair: KeyValue, row: Row) -> tuple[str, list[Decimal], int]:
    """What a total label's row prints after it (or, if nothing, below it): text, amounts,
    and how many numbers.

    The whole rest of the row counts, other labels included ("Total incl. GST 6% RM 47.70"):
    the label opens its row, so what follows is its own. A rate ("6%") or a number glued to a
    word is no amount; an amount counts once however often printed ("TOTAL ROUNDED 33.90 RM
    33.90").
    """
    segment = pair.hit.segment
    after = row.segments[row.segments.index(segment) + 1 :]
    texts = [segment.text[pair.hit.end :], *(s.text for s in after)]
    text = fix_ocr_digits(" ".join(texts))
    if not find_amounts(text):
        below = [v.text for v in pair.values if v.where == "below"]
        text = fix_ocr_digits(" ".join(below[:1]))
    amounts = list(dict.fromkeys(Decimal(a) for a, _, _ in find_amounts(text)))
    plain = re.sub(r"\d+(?:[.,]\d+)?\s*%", " ", text)
    numbers = {
        n.replace(",", ".").lstrip("0")
        for n in re.findall(r"(?<![\w.,])\d+(?:[.,]\d+)?(?![\w%])", plain)
    }
    return text, amounts, len(numbers)


def _labelled_total(
    layouts: Sequence[PageLayout], cash: Decimal | None, change: Decimal | None
) -> tuple[Decimal, float, Line] | None:
    """The amount of a total label by position, ranked against the payment: amount, rank, line.

    The rank is positive when the payment confirms the amount, 0 when nothing does.
    """
    paid = _paid(cash, change)
    candidates: list[tuple[float, int, Decimal, KeyValue]] = []
    for order, pair in enumerate(key_values(layouts)):
        if pair.concept not in _TOTAL_CONCEPTS or not _leads(pair):
            continue
        # A total label opens its row; "GST included in | total" is the end of a sentence.
        row = _row_of(pair.hit.segment, layouts)
        if row is None or row.leading is not pair.hit.segment:
            continue
        text, amounts, numbers = _total_amounts(pair, row)
        said = f"{pair.hit.segment.text[: pair.hit.end]} {text}"
        if (
            _rx().cash.search(said)
            or _rx().change.search(said)
            or _rx().not_total.search(said)
            or not amounts
        ):
            continue
        amount = amounts[-1]
        rank = float(paid is not None and amount == paid) - float(numbers > 1)
        rank -= float(cash is not None and cash > 0 and change is not None and amount > cash)
        # The payment printed right below the total: the amount that was paid.
        below = [v for v in pair.values if v.where == "below"]
        rank += 0.5 * bool(below and _rx().cash.search(below[0].text))
        candidates.append((rank, order, amount, pair))
    # A row of several numbers, or more than the cash given, is no total.
    if not candidates or max(c[0] for c in candidates) < 0:
        return None
    rank, _, amount, pair = max(candidates, key=lambda c: (c[0], c[1]))
    return amount, rank, pair.hit.segment.as_line()


def receipt_total(lines: Sequence[Line], layouts: Sequence[PageLayout]) -> Found | None:
    """The total: a total label's amount, else the amount the receipt's sums agree on, else
    what was paid, else the subtotal."""
    cash, change = _payment(lines)
    paid = _paid(cash, change)
    labelled = _labelled_total(layouts, cash, change)
    summed = summed_total(lines, till_amounts)
    by_sums = (
        None
        if summed is None
        else Found(
            value=f"{summed.value:.2f}",
            confidence=0.8,
            lines=() if summed.line is None else (summed.line,),
        )
    )
    if labelled is not None:
        amount, rank, line = labelled
        # Without change given the amount tendered is the amount paid (a card pays exactly).
        settled = paid if paid is not None else cash
        if settled is not None and 0 < abs(settled - amount) < _ROUNDING_STEP:
            # Tills round what is paid to the smallest coin and may print the rounded total
            # where it cannot be read: the amount paid is the total.
            return Found(value=f"{settled:.2f}", confidence=0.8, lines=(line,))
        chosen = Found(value=f"{amount:.2f}", confidence=0.95 if rank > 0 else 0.8, lines=(line,))
        if paid is not None and amount == paid:
            return chosen
        if by_sums is not None and summed is not None and summed.value != amount:
            # No payment confirms the label's amount, and both sums name another: the label
            # was read beside the wrong amount (a photo's rows run together) or is no total.
            return attrs.evolve(by_sums, alternatives=(chosen,))
        before = left_by_payment(lines, till_amounts, amount)
        if before is not None and before.line is not None:
            # The label's amount is the one handed over: the total is what the change leaves.
            return Found(
                value=f"{before.value:.2f}",
                confidence=0.75,
                lines=(before.line,),
                alternatives=(chosen,),
            )
        return chosen
    if by_sums is not None:
        return by_sums
    if paid is not None and paid > 0:
        return Found(value=f"{paid:.2f}", confidence=0.6)
    # No readable total line: till receipts mostly print the same amount as the subtotal (tax
    # included, nothing rounded), so it beats no value at all.
    subtotal = labelled_line_amount(lines, _rx().subtotal)
    if subtotal is not None and Decimal(str(subtotal.value)) > 0:
        return attrs.evolve(subtotal, confidence=0.45)
    return None


def labelled_line_amount(lines: Sequence[Line], pattern: re.Pattern[str]) -> Found | None:
    """The amount of the first line ``pattern`` labels (printed on it or on the line below),
    a payment's line aside."""
    for index, line in enumerate(lines):
        if pattern.search(line.text) and not _rx().cash.search(line.text):
            amount = _labelled_amount(lines, index)
            if amount is not None:
                return Found(value=amount, confidence=0.75, lines=(line,))
    return None
