"""The document's own consistency, as hard constraints on the candidates of a field.

Rules propose candidates; these checks refuse the ones the rest of the document contradicts,
whatever label they were read under. Each is one general question, answered from the
candidate and its surroundings only (nothing here knows a vendor or a layout):

- :func:`amount_refusal`: a number printed as a year, a date part, a phone number, a postcode,
  a page number or a quantity (of a line, or after a quantity label) is not an amount unless
  it looks like money (decimals or a currency mark);
- :func:`number_refusal`: a year, a page or line number, or a phone number is not the invoice
  number unless its label says so on the same line;
- :func:`issuer_refusal`: a document title, a stamp or watermark word ("COPY", "PAID"), a
  table's column header or an e-mail or web address is not the issuer (the buyer's block is
  refused where the blocks are known, :func:`~renderkit.parsing.extract.parties.issuer`);
- :func:`period_dates`: a date that opens or closes a period is not an issue date;
- :func:`issue_date_refusal`: a date under a label naming an earlier document ("Original
  invoice date") is not the issue date;
- :func:`total_refusal`: an amount below a checked line item's amount, less any discount
  printed (:func:`total_floor`), is not the total;
- :func:`amounts_agree` and :func:`lines_agree`: subtotal - discount + tax = total and the line
  items sum to the subtotal, within rounding;
- :func:`by_checksum`: of several identifiers, those whose check digits are right come first.

Each returns the reason for a refusal (for a warning) or None, so that callers skip the
candidate and may say why.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import re
from collections.abc import Callable, Collection, Sequence
from decimal import Decimal
from typing import TypeVar

from renderkit.parsing.extract.identifiers import valid_iban, vat_checksum_ok
from renderkit.parsing.extract.numbers import Amount
from renderkit.parsing.extract.receipt_patterns import receipt_patterns
from renderkit.parsing.extract.values import find_dates, online_address
from renderkit.parsing.lexicons import COLUMN_CONCEPTS, load_lexicon, load_terms, tokens
from renderkit.parsing.lexicons.regions import region_words

__all__ = [
    "CLOCK_TIME",
    "ROUNDING",
    "amount_refusal",
    "amounts_agree",
    "by_checksum",
    "issue_date_refusal",
    "issuer_refusal",
    "lines_agree",
    "number_refusal",
    "period_dates",
    "print_stamp",
    "total_floor",
    "total_refusal",
]

#: How far printed amounts may disagree and still agree: one cent each way.
ROUNDING = Decimal("0.01")
# Years a bare four-digit number is taken for.
_YEARS = range(1900, 2101)
# A phone number: a leading + or 0 and at least seven digits in groups.
_PHONE = re.compile(r"(?<![\w])(?:\+|\(?0)[\d ()/.\-]{6,}\d")
# A postcode printed before a town: four or five digits then a capitalised word.
_POSTCODE = re.compile(r"(?<![\d,.])(\d{4,5})\s+[A-ZÄÖÜÉÈ][a-zäöüéèß]{2,}")
# "Page 1 of 2", "Seite 1/3", "p. 2", "Seite: 1": the number of a page.
_PAGE = re.compile(
    r"(?i)\b(?:page|seite|pagina|página|pag|blatt|blad|feuille|hoja|halaman|muka\s+surat|p\.)"
    r"\s*[:.]?\s*(\d{1,3})\b"
)
_PAGE_OF = re.compile(r"(?<![\d/.])(\d{1,3})\s*(?:/|of|von|de|di|van|sur)\s*\d{1,3}(?![\d/.])")
_PHONE_DIGITS = 7
# A house number: a short number then a comma and a word, as an address line opens ("No 25,
# Jalan Besar", "12, rue de la Paix").
_HOUSE = re.compile(r"(?<![\w.,/-])(\d{1,4}[A-Za-z]?),\s*[^\W\d_]{2,}")
# A line or page number has at most this many digits.
_SMALL = 2

T = TypeVar("T")


def _within(start: int, end: int, spans: Collection[tuple[int, int]]) -> bool:
    return any(s <= start and end <= e for s, e in spans)


def _date_spans(text: str) -> list[tuple[int, int]]:
    return [(start, end) for _, start, end in find_dates(text)]


def _phone_spans(text: str, dates: Collection[tuple[int, int]]) -> list[tuple[int, int]]:
    # Seven digits or more, and no date inside: "03.2024 31" is the end of a date and a number.
    return [
        m.span()
        for m in _PHONE.finditer(text)
        if sum(c.isdigit() for c in m.group(0)) >= _PHONE_DIGITS
        and not any(s < m.end() and m.start() < e for s, e in dates)
    ]


def amount_refusal(
    text: str, amount: Amount, *, quantities: Collection[Decimal] = ()
) -> str | None:
    """Why ``amount`` (found in ``text``) cannot be a total, subtotal or tax, or None.

    Money is printed with decimals or a currency mark; that is strong evidence and nothing is
    refused then. A bare integer is refused when it is a year (1900-2100), part of a date, of
    a phone number or a postcode, a quantity of the line items, or right after a quantity
    label ("Total quantity: 89"): the invoice's year or its item count read beside a "Total"
    label is the failure this prevents.

    Args:
        text: the text the amount was read from (its offsets refer to it).
        amount: the candidate.
        quantities: the quantities of the document's line items.
    """
    if amount.currency:
        return None
    counted = _count_label(text[: amount.start])
    if amount.decimals:
        # Hours and weights are printed with decimals too: "Total hours: 47.00" is a count.
        return f"{amount.value} is a count" if counted else None
    value = amount.value
    if value == value.to_integral_value() and int(value) in _YEARS:
        return f"{value} is a year"
    dates = _date_spans(text)
    if _within(amount.start, amount.end, dates):
        return f"{value} is part of a date"
    if _within(amount.start, amount.end, _phone_spans(text, dates)):
        return f"{value} is part of a phone number"
    if any(m.start(1) == amount.start for m in _POSTCODE.finditer(text)):
        return f"{value} is a postcode"
    if any(m.start(1) == amount.start for p in (_PAGE, _PAGE_OF) for m in p.finditer(text)):
        return f"{value} is a page number"
    if value in quantities:
        return f"{value} is a quantity of the line items"
    if counted:
        return f"{value} is a count of items"
    return None


def _count_label(text: str) -> bool:
    """Whether ``text`` ends with a quantity label that labels what follows ("Total quantity:",
    "Summe Menge", "Total hours:": read beside a total label, a count, not money), not the
    unit of a number before it ("Total (2 hours):" prices two hours)."""
    words = [t for t, _, _ in tokens(text)]
    lexicon = load_lexicon()
    return any(
        c == "quantity"
        and i + n == len(words)
        and not (i > 0 and any(ch.isdigit() for ch in words[i - 1]))
        for i in range(len(words))
        for c, n in lexicon.match(words, i)
    )


def number_refusal(value: str, text: str, *, inline: bool) -> str | None:
    """Why ``value`` (read in ``text``) cannot be the invoice number, or None.

    A year, a page number ("Page 1 of 2") or a phone number is refused; so is a bare one- or
    two-digit number (a line or page number) unless its label precedes it on the same segment
    (``inline``): "Invoice No: 12" is strong evidence, a "No" column's 1 is not. A house
    number ("No 25, Jalan Besar": a short number, a comma, a word) is refused even inline: an
    address line can open with a number mark; so is, not inline, a number opening a line with a
    street word ("101 Main Street"). A VAT id whose check digits are right, or an IBAN, is
    refused wherever it stands.
    """
    compact = value.strip()
    if any(m.group(1) == compact for m in _HOUSE.finditer(text)):
        return f"{compact} is a house number"
    if vat_checksum_ok(compact) is True or valid_iban(compact):
        # Under a label that names a number of any kind ("VAT registration number:").
        return f"{compact} is a tax number or a bank account"
    at = text.find(compact)
    if not inline and at >= 0 and _street_line(text[at:]):
        # Read beside or below its label from the next column: the buyer's street line
        # ("Invoice no.:" over its wrapped value, "101 Main Street" beside it).
        return f"{compact} is a house number"
    if len(compact) == 4 and compact.isdigit() and int(compact) in _YEARS and not inline:
        return f"{compact} is a year"
    for pattern in (_PAGE, _PAGE_OF):
        if any(m.group(1) == compact for m in pattern.finditer(text)):
            return f"{compact} is a page number"
    phones = [text[s:e] for s, e in _phone_spans(text, _date_spans(text))]
    if not inline and compact.isdigit() and any(compact in p for p in phones):
        return f"{compact} is a phone number"
    if compact.isdigit() and len(compact) <= _SMALL and not inline:
        return f"{compact} is a line or page number"
    return None


# Between the two dates of a period: a dash or one short word ("bis", "to", "au", "al", "tot").
_PERIOD_GAP = re.compile(r"\s*(?:[-–—]|[^\W\d_]{1,7})?\s*")


def period_dates(text: str, *, day_first: bool = True) -> set[datetime.date]:
    """The dates of ``text`` that open or close a period ("17. Dezember 2018 bis 6. Januar
    2019", "01.10.2018 - 31.10.2018"): two dates apart by a dash or one short word.

    Such a date is when something starts or ends (a service, a holiday), not when the
    document was issued, even under a label that can introduce an issue date ("Vom").
    """
    dates = find_dates(text, day_first=day_first)
    out: set[datetime.date] = set()
    for (first, _, end), (second, start, _) in itertools.pairwise(dates):
        if _PERIOD_GAP.fullmatch(text[end:start]):
            out |= {first, second}
    return out


def period_opened(text: str, dates: Sequence[tuple[datetime.date, int, int]]) -> bool:
    """Whether ``text`` ends in a period's start and the word that leads to its end
    ("Service period: 01.04.2024 to"): the end wrapped onto the next line. ``dates``: the
    dates :func:`~renderkit.parsing.extract.values.find_dates` read in ``text``."""
    if not dates:
        return False
    tail = text[dates[-1][2] :]
    return bool(tail.strip()) and _PERIOD_GAP.fullmatch(tail) is not None


def issue_date_refusal(label: str) -> str | None:
    """Why a date read under ``label`` cannot be the document's issue date, or None.

    A date label whose words name an earlier document ("Original invoice date", "Datum der
    Ursprungsrechnung", "Date de la facture d'origine", "Tarikh invois asal") dates the invoice
    that a credit note or a corrected invoice refers to, not this one, though it opens with an
    issue-date label. The words are matched by how they begin (``lexicons`` ``earlier_stems``),
    so compounds and inflections count.
    """
    stems = load_terms().earlier_stems
    if any(word.startswith(stems) for word, _, _ in tokens(label)):
        return f"{label!r} names an earlier document"
    return None


#: A clock time ("23:52", "23:52:48"), as a print stamp and a row of dates print it.
CLOCK_TIME = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)")


def print_stamp(row: str) -> bool:
    """Whether ``row`` is a print stamp: a clock time and a page number on one line ("Date:
    13.07.2024 Time: 23:52:48 Page 1"). Its date is when the page was printed, not when the
    invoice was issued, though a date label opens it."""
    return bool(CLOCK_TIME.search(row)) and bool(_PAGE.search(row))


def total_floor(checked_lines: Collection[Decimal], discount: Decimal) -> Decimal | None:
    """The least the invoice's total can be, or None where nothing bounds it.

    The total is the items' sum with tax added and a discount taken off, so it is never below
    the largest line amount less the discount. Only lines whose quantity x unit price = amount
    held count (``checked_lines``): a misread line must not refuse the right total.
    ``discount``: the largest discount the document prints (0 for none).
    """
    top = max((a for a in checked_lines if a > 0), default=None)
    return None if top is None else top - abs(discount)


def total_refusal(value: Decimal, floor: Decimal | None) -> str | None:
    """Why ``value`` cannot be the invoice's total, or None.

    An amount below the total's ``floor`` (:func:`total_floor`: a count of hours or items
    printed with decimals, a line's price) is some other figure.
    """
    if floor is not None and abs(value) < floor:
        return f"{value} is below the least the total can be, {floor}"
    return None


def _all_concept(words: Sequence[str], accept: Callable[[str], bool]) -> bool:
    """Whether ``words`` are wholly covered by lexicon labels whose concept ``accept`` takes."""
    lexicon = load_lexicon()
    index = 0
    while index < len(words):
        matches = [(c, n) for c, n in lexicon.match(list(words), index) if accept(c)]
        if not matches:
            return False
        index += matches[0][1]
    return bool(words)


def issuer_refusal(text: str) -> str | None:
    """Why ``text`` cannot be the issuer's name, or None.

    A document title ("Invoice", "Rechnung", "Facture"), a stamp or watermark word ("COPY",
    "KOPIE", "PAID", "ORIGINAL") or a line-item table header ("Description Qty Amount"), or
    any mix of them, names no one: big type at the top of the page is why they are proposed.
    Nor does an e-mail or web address (a letterhead's contact line, first on a photo whose
    name OCR lost), nor a contact label alone ("Fax: ..."), nor a place: a region alone or after
    a comma ("Kajang, Selangor"), an address's last line, or a street line opening with its
    house number ("No 12, Jalan Mawar", "12 High Street"), first at the top where the name is
    only in the logo's pixels. Nor does a label and its value ("Order date: 15 May"): a name
    holds no colon before a space.
    """
    if online_address(text):
        return f"{text!r} is an e-mail or web address"
    if _ends_in_region(text):
        return f"{text!r} is a place (it ends with a region)"
    if _street_line(text):
        return f"{text!r} is a street address"
    if _contact_label(text):
        return f"{text!r} is a contact line's label"
    if re.search(r"[^\W\d_][:：]\s+\S", text):
        # "Datum der Ursprungsrechnung: 15": a label no lexicon holds, and its value.
        return f"{text!r} is a label and its value"
    words = [t for t, _, _ in tokens(text) if not t.isdigit()]
    if not words:
        return None
    stamps = load_terms().stamp_words
    if all(w in stamps for w in words):
        return f"{text!r} is a stamp or watermark"
    rest = [w for w in words if w not in stamps]
    if _all_concept(rest, lambda c: c == "document_title"):
        return f"{text!r} is a document title"
    if _all_concept(rest, lambda c: c in COLUMN_CONCEPTS):
        return f"{text!r} is a table header"
    return None


def _ends_in_region(text: str) -> bool:
    """Whether ``text`` is a region (a state, a province) alone or a place list ending in one
    ("Kajang, Selangor"); a name that only holds a region's word ("Selangor Trading") is not."""
    parts = text.split(",")
    last = parts[-1].strip(" .").upper()
    return last in _regions() and (len(parts) > 1 or text.strip(" .").upper() == last)


def _contact_label(text: str) -> bool:
    """Whether ``text`` is a contact label alone, with a value of no letters or none ("Fax:
    ...", "TEL 03-1234"): what is left of a contact line whose value was cut off."""
    label = receipt_patterns().contact.match(text.strip())
    return label is not None and not re.search(r"[^\W\d_]", text.strip()[label.end() :])


# A house number opening a line, after a number word or not: "No 12,", "12", "12A".
_HOUSE_NUMBER = re.compile(r"^\s*(?:no\.?\s*)?\d+[a-z]?\b", re.I)


def _street_line(text: str) -> bool:
    """Whether ``text`` opens with a house number and holds a street word ("No 12, Jalan
    Mawar 3", "12 High Street")."""
    number = _HOUSE_NUMBER.match(text)
    if number is None:
        return False
    words = {w.strip(".,") for w in text[number.end() :].upper().split()}
    return bool(words & _street_words())


@functools.cache
def _street_words() -> frozenset[str]:
    return frozenset(w.upper().strip(".") for w in region_words().street_words if " " not in w)


@functools.cache
def _regions() -> frozenset[str]:
    return frozenset(r.upper() for r in region_words().regions)


def amounts_agree(
    subtotal: Decimal, tax: Decimal, total: Decimal, discount: Decimal = Decimal(0)
) -> bool:
    """Whether subtotal - discount + tax = total, within :data:`ROUNDING`."""
    return abs(subtotal - abs(discount) + tax - total) <= ROUNDING


def lines_agree(amounts: Sequence[Decimal], subtotal: Decimal) -> bool:
    """Whether the line items' amounts sum to ``subtotal``, within a cent per line (each line
    may be rounded on its own)."""
    return abs(sum(amounts, Decimal(0)) - subtotal) <= ROUNDING * max(1, len(amounts))


def by_checksum(candidates: Sequence[T], check: Callable[[T], bool | None]) -> list[T]:
    """``candidates`` with those whose checksum holds first, then those without one, then
    those failing it; the order within each group is kept."""
    rank = {True: 0, None: 1, False: 2}
    return sorted(candidates, key=lambda c: rank[check(c)])
