"""Finding and normalising values in text: dates, amounts, currencies, e-mails, phones.

Pure functions; the local extractor and the schema filler build on them. The month names and
phone labels come from ``lexicons/values.toml``, read on the first date or phone looked for.
"""

from __future__ import annotations

import datetime
import functools
import re
import tomllib
from decimal import Decimal, InvalidOperation
from importlib import resources

import attrs

from renderkit.parsing.extract.identifiers import find_vat_ids, tax_id_currency

__all__ = [
    "CURRENCY_ALTERNATIVES",
    "CURRENCY_SYMBOLS",
    "find_amounts",
    "find_currency",
    "find_dates",
    "find_emails",
    "find_phones",
    "normalise_amount",
    "online_address",
    "parse_date",
    "time_suffix",
]

_ORD = r"(?:st|nd|rd|th)?"


@attrs.frozen(kw_only=True)
class _Words:
    months: dict[str, int]
    dates: tuple[re.Pattern[str], ...]
    phone_label: re.Pattern[str]
    time_suffix: re.Pattern[str]


@functools.cache
def _words() -> _Words:
    """Month names, the date patterns built on them and the phone labels (``values.toml``)."""
    path = resources.files("renderkit.parsing.lexicons") / "values.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    months = {
        name: number
        for key in ("months", "local_months")
        for number, names in enumerate(data[key], start=1)
        for name in names
    }
    month = rf"(?P<mon>{'|'.join(data['month_pattern'])})\.?"
    local_names = sorted(
        (n for names in data["local_months"] for n in names), key=len, reverse=True
    )
    local = rf"(?P<mon>{'|'.join(re.escape(n) for n in local_names)})\.?(?![^\W\d_])"
    day_of = "|".join(data["day_of"])
    dates = (
        # 2017-10-29, 2017/10/29
        re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)"),
        # 29/10/2017, 29-10-17, 29.10.2017 (day or month first: decided later)
        re.compile(
            r"(?<![\w/.-])(?P<a>\d{1,2})\s?(?P<sep>[-/.])\s?(?P<b>\d{1,2})\s?(?P=sep)\s?"
            r"(?P<y>\d{4}|\d{2})(?![\d/])"
        ),
        # 29 Oct 2017, 29-OCT-17, 29th of October, 2017
        re.compile(
            rf"(?<![\d])(?P<d>\d{{1,2}}){_ORD}[\s\-/.]*(?:{day_of})?{month}"
            r"[\s\-/.,]*(?P<y>(?:19|20)?\d\d)(?!\d)",
            re.I,
        ),
        # October 29, 2017 / Oct. 29th 2017
        re.compile(
            rf"(?<![a-z]){month}\s*(?P<d>\d{{1,2}}){_ORD}\s*,?\s*(?P<y>(?:19|20)\d\d)(?!\d)",
            re.I,
        ),
        # 4. Januar 2021, 1er mars 2019, 5 de diciembre de 2023 (four-digit years only)
        re.compile(
            rf"(?<![\d])(?P<d>\d{{1,2}})(?:er|[.º°])?[\s\-/.]*(?:de\s+)?{local}"
            r"[\s\-/.,]*(?:de\s+)?(?P<y>(?:19|20)\d\d)(?!\d)",
            re.I,
        ),
    )
    phone_label = re.compile(rf"\b({'|'.join(data['phone_labels'])})\b", re.I)
    time_suffix = re.compile(rf"\s?({'|'.join(data['time_suffix'])})", re.I)
    return _Words(months=months, dates=dates, phone_label=phone_label, time_suffix=time_suffix)


def time_suffix() -> re.Pattern[str]:
    """What follows a time printed like a decimal number (``10.15 Uhr``), from its start."""
    return _words().time_suffix


def _year(text: str) -> int:
    year = int(text)
    return year + 2000 if year < 100 and len(text) <= 2 else year


def _make(y: int, m: int, d: int) -> datetime.date | None:
    try:
        value = datetime.date(y, m, d)
    except ValueError:
        return None
    return value if 1900 <= value.year <= 2100 else None


def find_dates(text: str, *, day_first: bool = True) -> list[tuple[datetime.date, int, int]]:
    """Every date in ``text`` as ``(date, start, end)``, in order of position.

    Numeric dates with both parts at most 12 are read day first unless ``day_first`` is False.
    """
    found: dict[int, tuple[datetime.date, int, int]] = {}
    for index, pattern in enumerate(_words().dates):
        for match in pattern.finditer(text):
            if any(s <= match.start() < e for _, s, e in found.values()):
                continue
            groups = match.groupdict()
            value: datetime.date | None
            if index == 0:
                value = _make(int(groups["y"]), int(groups["m"]), int(groups["d"]))
            elif index == 1:
                a, b, y = int(groups["a"]), int(groups["b"]), _year(groups["y"])
                if a > 12 or (day_first and b <= 12):
                    value = _make(y, b, a)
                else:
                    value = _make(y, a, b) or _make(y, b, a)
            else:
                month = _words().months.get(groups["mon"].lower().rstrip("."))
                value = _make(_year(groups["y"]), month, int(groups["d"])) if month else None
            if value is not None:
                found[match.start()] = (value, match.start(), match.end())
    return [found[k] for k in sorted(found)]


def parse_date(text: str, *, day_first: bool = True) -> str | None:
    """The first date in ``text`` as ISO ``YYYY-MM-DD``, or None."""
    dates = find_dates(text, day_first=day_first)
    return dates[0][0].isoformat() if dates else None


# An amount: optional sign and currency, digits with optional thousands separators and a
# decimal part of 2 digits (receipts), or an integer next to a currency.
_AMOUNT = re.compile(
    r"(?<![\w.,/:-])(?P<neg>-)?\s?(?P<cur>RM|USD|EUR|GBP|MYR|SGD|\$|€|£|¥|₹)?\s?"
    r"(?P<num>\d{1,3}(?:[,.\s]\d{3})+(?:[.,]\d{1,2})?|\d+[.,]\d{1,2}|\d+)(?![\d/:])(?!\.\d)"
    r"(?P<pct>\s?%)?",
    re.I,
)


def normalise_amount(text: str) -> str | None:
    """A printed amount (``RM 1,234.50``, ``1.234,50``, ``12,30``) as a 2-place decimal string."""
    t = re.sub(r"[^\d.,-]", "", text)
    if not re.search(r"\d", t):
        return None
    neg = t.startswith("-")
    t = t.lstrip("-")
    if re.fullmatch(r"\d{1,3}(\.\d{3})+(,\d{1,2})?", t) or re.fullmatch(r"\d+,\d{1,2}", t):
        t = t.replace(".", "").replace(",", ".")
    else:
        t = t.replace(",", "")
    try:
        value = Decimal(t)
    except InvalidOperation:
        return None
    return f"{-value if neg else value:.2f}"


def find_amounts(text: str, *, decimals_only: bool = True) -> list[tuple[str, int, int]]:
    """Amounts in ``text`` as ``(decimal string, start, end)``; percentages are skipped.

    With ``decimals_only``, bare integers are ignored unless a currency precedes them.
    """
    out: list[tuple[str, int, int]] = []
    for match in _AMOUNT.finditer(text):
        if match.group("pct"):
            continue
        num = match.group("num")
        has_decimals = bool(re.search(r"[.,]\d{1,2}$", num))
        if decimals_only and not has_decimals and not match.group("cur"):
            continue
        value = normalise_amount(("-" if match.group("neg") else "") + num.replace(" ", ""))
        if value is not None:
            out.append((value, match.start("num"), match.end()))
    return out


#: Printed symbol or code -> ISO 4217.
CURRENCY_SYMBOLS = {
    "RM": "MYR",
    "MYR": "MYR",
    "$": "USD",
    "US$": "USD",
    "USD": "USD",
    "€": "EUR",
    "EUR": "EUR",
    "£": "GBP",
    "GBP": "GBP",
    "S$": "SGD",
    "SGD": "SGD",
    "¥": "JPY",
    "JPY": "JPY",
    "₹": "INR",
    "INR": "INR",
    "Rs.": "INR",
    "Rs": "INR",
    "CHF": "CHF",
    "Fr.": "CHF",
    "A$": "AUD",
    "AU$": "AUD",
    "C$": "CAD",
    "CA$": "CAD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "CAD": "CAD",
    "AUD": "AUD",
    "R$": "BRL",
    # Other ISO 4217 codes invoices print, leaving out those that are English words or
    # names a page prints in capitals otherwise (PEN, TRY, COP, ARS, RUB, PHP; BHD, the
    # Malaysian "Berhad").
    **{
        code: code
        for code in (
            "NZD", "HKD", "CNY", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "ZAR", "RON", "BGN",
            "ISK", "UAH", "ILS", "AED", "SAR", "QAR", "KWD", "OMR", "EGP", "MAD", "TND",
            "NGN", "KES", "BRL", "MXN", "CLP", "KRW", "TWD", "THB", "VND", "IDR", "PKR", "BDT",
            "LKR", "KZT",
        )
    },
}  # fmt: skip
#: Every printed sign or code as alternatives of a pattern, longest first ("A$" before "$").
CURRENCY_ALTERNATIVES = "|".join(
    re.escape(c) for c in sorted(CURRENCY_SYMBOLS, key=len, reverse=True)
)
# Every printed sign or code, not inside a word.
_CURRENCY_MARKS = re.compile(rf"(?<![A-Za-z])({CURRENCY_ALTERNATIVES})(?![A-Za-z])")


# The sales taxes only Canada levies: the harmonized sales tax (TVH in French) and Quebec's.
_CANADIAN_TAXES = re.compile(r"\b(?:HST|TVH|QST|TVQ)\b")


def _dollar(text: str) -> str:
    """The dollar a bare "$" is: that of the country of the page's tax number (an ABN, a
    GST/HST program account, which Canadian invoices must print) or of a tax only Canada
    levies (the number wrapped apart from its "RT0001"), else the US dollar."""
    for value, _ in find_vat_ids(text):
        if (currency := tax_id_currency(value)) in ("AUD", "CAD"):
            return str(currency)
    return "CAD" if _CANADIAN_TAXES.search(text) else "USD"


def currency_counts(text: str) -> dict[str, int]:
    """How often each currency is printed in ``text`` (ISO 4217 codes, signs resolved)."""
    counts: dict[str, int] = {}
    dollar: str | None = None
    for match in _CURRENCY_MARKS.finditer(text):
        code = CURRENCY_SYMBOLS[match.group(1)]
        if match.group(1) == "$":
            dollar = dollar or _dollar(text)
            code = dollar
        counts[code] = counts.get(code, 0) + 1
    return counts


def find_currency(text: str) -> str | None:
    """The most frequent currency symbol or code in ``text`` as an ISO 4217 code."""
    counts = currency_counts(text)
    return max(counts, key=lambda c: counts[c]) if counts else None


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"(?<![\w])(\+?\(?\d[\d ()./-]{6,18}\d)(?![\w])")


def find_emails(text: str) -> list[str]:
    """E-mail addresses in ``text``, in order, without duplicates."""
    return list(dict.fromkeys(m.group(0).strip(".") for m in _EMAIL.finditer(text)))


# An e-mail or web address: a contact line's, never a name nor a postal address.
_ONLINE = re.compile(r"(?i)\S@\S|\bwww\.|https?://")


def online_address(text: str) -> bool:
    """Whether ``text`` holds an e-mail or a web address."""
    return bool(_ONLINE.search(text))


def find_phones(text: str) -> list[str]:
    """Phone numbers printed after a TEL/PHONE/FAX/H/P label, in order, without duplicates."""
    out: list[str] = []
    for line in text.splitlines():
        if not _words().phone_label.search(line):
            continue
        for match in _PHONE.finditer(line):
            digits = re.sub(r"\D", "", match.group(1))
            if 7 <= len(digits) <= 15 and not find_dates(match.group(1)):
                out.append(match.group(1).strip())
    return list(dict.fromkeys(out))
