"""A receipt's date of sale, and the order its numeric dates are printed in.

The date is a date label's value by position (a label that also marks a due or delivery date
aside), else the first date, one printed beside a time first. Day or month first is voted over
the receipt's dates; when none shows its order, a US receipt reads month first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from renderkit.parsing._protocol import Line
from renderkit.parsing.extract.found import Found
from renderkit.parsing.extract.invoice import day_first_vote
from renderkit.parsing.extract.keyvalues import key_values
from renderkit.parsing.extract.receipt_lines import fix_ocr_digits
from renderkit.parsing.extract.values import find_dates
from renderkit.parsing.layout.model import PageLayout

__all__ = ["reads_day_first", "sale_date"]


# Dates a label marks as something other than the day of the sale.
_OTHER_DATE = frozenset({"due_date", "delivery_date"})


def sale_date(
    lines: Sequence[Line], layouts: Sequence[PageLayout], day_first: bool
) -> Found | None:
    """The date of a date label's value (by position), else the first date, timed first."""
    pairs = key_values(layouts)
    # A segment that also carries a due or delivery label ("Date due") is not the sale's date.
    other = {id(p.hit.segment) for p in pairs if p.concept in _OTHER_DATE}
    for pair in pairs:
        if pair.concept != "invoice_date" or id(pair.hit.segment) in other:
            continue
        for candidate in pair.values:
            dates = find_dates(fix_ocr_digits(candidate.text), day_first=day_first)
            if dates:
                line = pair.hit.segment.as_line()
                return Found(value=dates[0][0].isoformat(), confidence=0.9, lines=(line,))
    fallback: Found | None = None
    for line in lines:
        dates = find_dates(fix_ocr_digits(line.text), day_first=day_first)
        if not dates:
            continue
        value = dates[0][0].isoformat()
        # Till receipts print the date beside the time: prefer that to a stray number.
        timed = re.search(r"\d{1,2}:\d{2}", line.text) is not None
        if fallback is None or (timed and fallback.confidence < 0.8):
            fallback = Found(value=value, confidence=0.8 if timed else 0.75, lines=(line,))
    return fallback


# A phone number in the North American style, the area code in brackets ("(212) 555-0134").
_NORTH_AMERICAN_PHONE = re.compile(r"(?<!\d)\(\d{3}\)\s?\d{3}-\d{4}(?!\d)")
_NUMERIC_DATE = re.compile(r"(?<![\d.])(\d{1,2})[./-](\d{1,2})[./-](\d{2,4})(?!\d)")


def reads_day_first(text: str, *, day_first: bool) -> bool:
    """Whether the receipt's numeric dates read day first (``day_first``: the caller's default).

    The dates vote (:func:`~renderkit.parsing.extract.invoice.day_first_vote`) when one shows
    its order (a part above 12). When none does, a receipt printing dollars ("$", "USD") and a
    North American phone number is from the US, whose tills print the month first.
    """
    if not (day_first and day_first_vote(text)):
        return False
    shown = any(int(m.group(1)) > 12 or int(m.group(2)) > 12 for m in _NUMERIC_DATE.finditer(text))
    dollars = "$" in text or re.search(r"\bUSD\b", text) is not None
    return shown or not dollars or not _NORTH_AMERICAN_PHONE.search(text)
