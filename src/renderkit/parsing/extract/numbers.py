"""Amounts printed in the document's own number format.

A document writes its amounts one way: ``1.234,56`` (German, French with dots), ``1,234.56``
(English), ``1 234,56`` (French), ``1'234.56`` (Swiss), ``1,23,456.78`` (Indian).
:func:`detect_format` votes over every amount of the document, so an ambiguous ``1,500`` is
read the way the rest of the page writes numbers; :func:`parse_amount` then reads one amount
with that format, with its currency before or after and a negative sign, a minus or
parentheses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

import attrs

from renderkit.parsing.extract.values import CURRENCY_ALTERNATIVES, time_suffix

__all__ = [
    "CENT",
    "COMMA_DECIMAL",
    "DOT_DECIMAL",
    "Amount",
    "NumberFormat",
    "detect_format",
    "find_money",
    "join_grouped_thousands",
    "parse_amount",
    "parse_percent",
]

#: One cent: how far apart two amounts may be and still agree (printed rounding).
CENT = Decimal("0.01")


@attrs.frozen(kw_only=True)
class NumberFormat:
    """How a document writes numbers.

    Attributes:
        decimal: the decimal separator, ``.`` or ``,``.
    """

    decimal: str

    @property
    def group(self) -> str:
        """The thousands separators this format allows besides spaces and apostrophes."""
        return "," if self.decimal == "." else "."


#: ``1,234.56``.
DOT_DECIMAL = NumberFormat(decimal=".")
#: ``1.234,56``.
COMMA_DECIMAL = NumberFormat(decimal=",")

# Currency signs and codes that may stand before or after an amount.
_CUR = f"(?:{CURRENCY_ALTERNATIVES})"
# Indian grouping first ("1,23,45,678.90": thousands, then lakhs and crores in pairs).
_NUM = (
    r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?"
    r"|\d{1,3}(?:[.,'’\u00a0\u202f]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
)
_MONEY = re.compile(
    rf"(?<![\w.,/-])(?P<open>\()?(?P<sign>[-−–])?\s?(?P<pre>{_CUR})?\s?(?P<sign2>[-−–])?\s?"
    rf"(?P<num>{_NUM})(?![\d/:])(?!\.\d)(?![.,]\d)"
    # A trailing minus ("1.234,56-") is the amount's only where no digit follows it: in
    # "£64,801.17 £-5,832.11" it is the next amount's. So is a trailing sign: in
    # "Fr. 2069.77 Fr.81676.26" the second "Fr." is the next amount's.
    rf"(?P<post>\s?(?:{_CUR}(?!\d)|%)(?![A-Za-z]))?(?P<sign3>[-−](?!\d))?(?P<close>\))?"
)


# OCR splits an amount at its punctuation ("$1 .00", "¥9, 617,980") or loses a group separator
# ("£5 622.68"); after a currency sign the stray spaces are closed again, elsewhere "1 .5" may
# be two things and is left alone. A sign right after a price is the price's in a row such as
# "50,00 € 2 100,00 €" (price, quantity, amount), so there "2 100,00" is not taken for a lost
# group separator; after a quantity ("3 $2 100.00") or a label it still is.
_CURRENCY_RUN = re.compile(rf"(?P<price>[.,]\d\d\s?)?{_CUR}\s?\d[\d.,' ]*\d")
_OCR_GAP = re.compile(r"(?<=\d) (?=[.,]\d)|(?<=\d[.,]) (?=\d{3}(?!\d))|(?<=\d) (?=\d{3}[.,]\d)")
_OCR_PUNCTUATION_GAP = re.compile(r"(?<=\d) (?=[.,]\d)|(?<=\d[.,]) (?=\d{3}(?!\d))")


def _close_ocr_gaps(text: str) -> str:
    def close(match: re.Match[str]) -> str:
        gaps = _OCR_PUNCTUATION_GAP if match.group("price") else _OCR_GAP
        return gaps.sub("", match.group(0))

    return _CURRENCY_RUN.sub(close, text)


# A thousands group printed with a plain space ("15 866,37": French, Nordic, Polish invoices,
# and how a PDF text layer renders a thin space) is read as one number only when it cannot be
# two. The run must look like one amount: every group after the first has exactly three digits
# and the document's own decimal separator with two decimals ends it (a year has four digits,
# so "2024 12,50" cannot start a group). Then it needs evidence that its first group is not a
# table row's quantity, as in "2 866,37 1 732,74", "2 866,37 € 1 732,74 €" (quantity, price,
# amount) or "50,00 € 2 100,00 €" (price, quantity, amount):
# - a currency sign or code right before it that no number precedes ("Total € 2 866,37"), or
# - no other number in the text, percentages aside ("Total 1 234,56", "15 866,37 €",
#   "TVA 20 % 3 173,27"): a quantity always shares its row with a price or an amount.
# A currency mark after the run is no evidence: the row's price carries one too. The spaces
# become narrow no-break spaces, which _NUM groups with, so offsets do not move. This runs after
# _close_ocr_gaps, which already joins OCR gaps that follow a currency sign.
_SPACE_GROUPS = {
    dec: re.compile(
        rf"(?<![\d.,'’\u00a0\u202f])(?P<pre>(?<![A-Za-z]){_CUR}\s?)?"
        rf"(?P<run>\d{{1,3}}(?: \d{{3}})+{re.escape(dec)}\d{{2}})(?![\d.,/:])"
    )
    for dec in ".,"
}
_PERCENT = re.compile(r"\d+(?:[.,]\d+)?\s?%")


def _has_number(text: str) -> bool:
    return any(c.isdigit() for c in _PERCENT.sub("", text))


def _join_space_groups(text: str, number_format: NumberFormat) -> str:
    if " " not in text:
        return text
    out = text
    for match in _SPACE_GROUPS[number_format.decimal].finditer(text):
        start, end = match.span("run")
        before, after = text[: match.start()], text[end:]
        if match.group("pre"):
            one = not before.rstrip()[-1:].isdigit()
        else:
            one = not _has_number(before) and not _has_number(after)
        if one:
            out = out[:start] + match.group("run").replace(" ", "\u202f") + out[end:]
    return out


@attrs.frozen(kw_only=True)
class Amount:
    """One amount found in a text.

    Attributes:
        value: the amount.
        currency: the currency sign or code printed with it, as printed ("" for none).
        start, end: where it was found in the text (OCR gaps in the amount closed).
        decimals: whether it had a decimal part (``12,00`` rather than ``12``).
        percent: whether it was followed by ``%``.
    """

    value: Decimal
    currency: str
    start: int
    end: int
    decimals: bool
    percent: bool = False


def _votes(number: str) -> str | None:
    """The decimal separator ``number`` implies on its own, or None if it cannot tell."""
    digits = re.sub(r"[\s'’\u00a0\u202f]", "", number)
    seps = [c for c in digits if c in ".,"]
    if not seps:
        return None
    if len(set(seps)) == 2:
        return seps[-1]  # 1.234,56 or 1,234.56: the last separator is the decimal one
    tail = digits.rsplit(seps[-1], 1)[1]
    if len(seps) > 1:
        return "," if seps[0] == "." else "."  # 1.234.567: grouping, so the other is decimal
    if len(tail) != 3:
        return seps[-1]  # 12,5 / 12.50: a decimal part
    return None  # 1,500: grouping or three decimals, the document decides


def detect_format(texts: Iterable[str]) -> NumberFormat:
    """The number format most of the amounts in ``texts`` imply (``1,234.56`` on a tie)."""
    counts = {".": 0, ",": 0}
    for text in texts:
        for match in _MONEY.finditer(text):
            vote = _votes(match.group("num"))
            if vote is not None and not _is_date_like(text, match):
                counts[vote] += 1
    return COMMA_DECIMAL if counts[","] > counts["."] else DOT_DECIMAL


def _is_date_like(text: str, match: re.Match[str]) -> bool:
    # 05.03.2013 is caught by the number pattern's look-arounds; 12.2019 or 10.15 Uhr is not.
    after = text[match.end() : match.end() + 4]
    return bool(time_suffix().match(after))


def parse_amount(text: str, number_format: NumberFormat = DOT_DECIMAL) -> Decimal | None:
    """``text`` (one amount, currency and sign allowed) as a Decimal, or None.

    Args:
        text: e.g. ``"€4,800.00"``, ``"1.234,56 EUR"``, ``"(12.00)"``, ``"-5"``.
        number_format: how the document writes numbers (see :func:`detect_format`).
    """
    stripped = text.strip()
    amounts = find_money(stripped, number_format)
    if len(amounts) != 1:
        # "1 234,56": plain spaces group thousands only when the text is one amount.
        amounts = find_money(re.sub(r"(?<=\d) (?=\d{3}\b)", "", stripped), number_format)
    if len(amounts) != 1:
        return None
    return amounts[0].value


def parse_percent(text: str, number_format: NumberFormat = DOT_DECIMAL) -> Decimal | None:
    """A percentage such as ``19 %``, ``7,5%`` or ``(6 %)`` as a Decimal (19, 7.5, 6), or
    None. A rate has no sign: brackets around it set it apart ("Tax included (6 %)"), they do
    not make it negative as they do an amount."""
    for amount in find_money(text, number_format):
        if amount.percent:
            return abs(amount.value)
    return None


def _number(number: str, number_format: NumberFormat) -> tuple[Decimal, bool] | None:
    digits = re.sub(r"[\s'’\u00a0\u202f]", "", number)
    seps = [c for c in digits if c in ".,"]
    whole, frac = digits, ""
    if len(set(seps)) == 2:
        # Both separators: the last one is the decimal one whatever the document says.
        whole, _, frac = digits.rpartition(seps[-1])
    elif len(seps) == 1:
        head, _, tail = digits.partition(seps[0])
        # The document's decimal separator, or a 1-2 digit tail that cannot be a group.
        if seps[0] == number_format.decimal or len(tail) != 3:
            whole, frac = head, tail
        else:
            whole = head + tail
    whole = re.sub(r"[.,]", "", whole)
    try:
        value = Decimal(f"{whole or '0'}.{frac}" if frac else whole)
    except InvalidOperation:
        return None
    return value, bool(frac)


# "31 416,22": a text layer prints a thin-space thousands grouping as a plain space, which
# find_money reads as two numbers unless nothing else on the line could be a number; a run of
# three-digit groups that ends in two decimals is one amount wherever it stands.
_SPACE_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?=[.,]\d{2}(?!\d))")


def join_grouped_thousands(text: str) -> str:
    """``text`` with each space-grouped amount ("31 416,22") joined by narrow no-break spaces,
    so :func:`find_money` reads it as one amount (same length: offsets are unchanged)."""
    return _SPACE_GROUPED.sub(lambda m: m.group(0).replace(" ", "\u202f"), text)


def find_money(text: str, number_format: NumberFormat = DOT_DECIMAL) -> list[Amount]:
    """Every number of ``text`` read as an amount with ``number_format``, in order.

    Offsets refer to ``text`` with the OCR gaps inside currency amounts closed.
    """
    text = _join_space_groups(_close_ocr_gaps(text), number_format)
    out: list[Amount] = []
    for match in _MONEY.finditer(text):
        parsed = _number(match.group("num"), number_format)
        if parsed is None:
            continue
        value, decimals = parsed
        negative = bool(
            match.group("sign")
            or match.group("sign2")
            or match.group("sign3")
            or (match.group("open") and match.group("close"))
        )
        post = (match.group("post") or "").strip()
        percent = post == "%"
        currency = match.group("pre") or ("" if percent else post)
        out.append(
            Amount(
                value=-value if negative else value,
                currency=currency,
                start=match.start(),
                end=match.end(),
                decimals=decimals,
                percent=percent,
            )
        )
    return out
