"""Values as documents print them: amounts in several number formats, dates in many forms,
and identifiers with real checksums (IBAN mod 97, VAT ids by each country's rule)."""

from __future__ import annotations

import datetime as dt
import functools
import random
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

import attrs
from babel.dates import get_month_names
from stdnum.au import abn as stdnum_abn
from stdnum.ca import bn as stdnum_bn
from stdnum.ch import uid as stdnum_uid
from stdnum.eu import vat as stdnum_eu_vat
from stdnum.gb import vat as stdnum_gb_vat
from stdnum.in_ import gstin as stdnum_gstin

__all__ = [
    "DATE_FORMATS",
    "NUMBER_FORMATS",
    "CurrencyStyle",
    "NumberFormat",
    "format_amount",
    "format_date",
    "iban",
    "money",
    "print_vat_id",
    "vat_id",
    "vat_is_valid",
]

CENT = Decimal("0.01")


def money(value: Decimal | int | str) -> Decimal:
    """``value`` rounded half up to cents, as invoices round."""
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


@attrs.frozen(kw_only=True)
class NumberFormat:
    """How a number is grouped and where its decimals start (``1.234,56``)."""

    name: str
    group: str
    decimal: str
    # Indian grouping: thousands first, then hundreds ("1,23,45,678.90").
    lakh: bool = False


#: The number formats documents print, by name (the name is the format of 1234.56).
NUMBER_FORMATS: dict[str, NumberFormat] = {
    f.name: f
    for f in (
        NumberFormat(name="1,234.56", group=",", decimal="."),
        NumberFormat(name="1.234,56", group=".", decimal=","),
        NumberFormat(name="1 234,56", group="\u202f", decimal=","),
        NumberFormat(name="1234.56", group="", decimal="."),
        NumberFormat(name="1234,56", group="", decimal=","),
        NumberFormat(name="1'234.56", group="'", decimal="."),
        NumberFormat(name="1,23,456.78", group=",", decimal=".", lakh=True),
    )
}


@attrs.frozen(kw_only=True)
class CurrencyStyle:
    """How a currency is printed beside an amount.

    Attributes:
        code: the ISO 4217 code (the label's currency).
        mark: what is printed: a symbol (``€``), the code (``EUR``) or a local sign (``RM``).
        before: the mark precedes the amount.
        space: a space separates the mark from the amount.
    """

    code: str
    mark: str
    before: bool
    space: bool


def format_amount(
    value: Decimal, number: NumberFormat, currency: CurrencyStyle | None = None
) -> str:
    """``value`` printed with ``number``'s separators and, when given, its currency mark."""
    sign = "-" if value < 0 else ""
    whole, cents = f"{abs(value):.2f}".split(".")
    groups: list[str] = []
    size = 3
    while len(whole) > size:
        groups.insert(0, whole[-size:])
        whole = whole[:-size]
        size = 2 if number.lakh else 3
    groups.insert(0, whole)
    text = f"{sign}{number.group.join(groups)}{number.decimal}{cents}"
    if currency is None:
        return text
    gap = " " if currency.space else ""
    return f"{currency.mark}{gap}{text}" if currency.before else f"{text}{gap}{currency.mark}"


#: Date forms by name, each shown for 3 April 2024.
DATE_FORMATS: dict[str, str] = {
    "iso": "2024-04-03",
    "dmy-slash": "03/04/2024",
    "dmy-dot": "03.04.2024",
    "dmy-dot-short": "03.04.24",
    "dmy-dash": "03-04-2024",
    "d-month-y": "3 April 2024 (month named in the document's language)",
    "d.-month-y": "3. April 2024 (German style)",
    "d-mon-y": "03 Apr 2024 (abbreviated month in the document's language)",
    "month-d-y": "April 3, 2024 (English only)",
    "mdy-slash": "04/03/2024 (US documents only)",
}


@functools.cache
def _months(language: str, width: Literal["abbreviated", "wide"]) -> tuple[str, ...]:
    names = get_month_names(width, context="format", locale=language)
    return tuple(str(names[m]) for m in range(1, 13))


def format_date(day: dt.date, form: str, language: str) -> str:
    """``day`` printed in the form ``form`` (a key of :data:`DATE_FORMATS`)."""
    d, m, y = day.day, day.month, day.year
    if form == "iso":
        return day.isoformat()
    if form == "dmy-slash":
        return f"{d:02d}/{m:02d}/{y}"
    if form == "dmy-dot":
        return f"{d:02d}.{m:02d}.{y}"
    if form == "dmy-dot-short":
        return f"{d:02d}.{m:02d}.{y % 100:02d}"
    if form == "dmy-dash":
        return f"{d:02d}-{m:02d}-{y}"
    if form == "d-month-y":
        return f"{d} {_months(language, 'wide')[m - 1]} {y}"
    if form == "d.-month-y":
        return f"{d}. {_months(language, 'wide')[m - 1]} {y}"
    if form == "d-mon-y":
        return f"{d:02d} {_months(language, 'abbreviated')[m - 1].rstrip('.')} {y}"
    if form == "month-d-y":
        return f"{_months('en', 'wide')[m - 1]} {d}, {y}"
    if form == "mdy-slash":
        return f"{m:02d}/{d:02d}/{y}"
    msg = f"unknown date form {form!r}"
    raise ValueError(msg)


# ---------------------------------------------------------------- identifiers

_IBAN_BODY: dict[str, str] = {
    # Country -> the BBAN's shape: "n" a digit, "a" an upper-case letter (ISO 13616 registry).
    "DE": "n" * 18,
    "FR": "n" * 10 + "a" + "n" * 10 + "nn",
    "ES": "n" * 20,
    "IT": "a" + "n" * 10 + "n" * 12,
    "NL": "aaaa" + "n" * 10,
    "PT": "n" * 21,
    "GB": "aaaa" + "n" * 14,
    "BE": "n" * 12,
    "AT": "n" * 16,
    "CH": "n" * 17,
}


def _mod97(text: str) -> int:
    digits = "".join(str(int(c, 36)) for c in text)
    return int(digits) % 97


def iban(country: str, rng: random.Random) -> str:
    """An invented IBAN of ``country`` with a valid check (no spaces)."""
    body = "".join(
        rng.choice("0123456789") if k == "n" else rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for k in _IBAN_BODY[country]
    )
    check = 98 - _mod97(body + country + "00")
    return f"{country}{check:02d}{body}"


def _digits(rng: random.Random, n: int) -> str:
    return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n - 1))


def _de_check(body: str) -> str:
    # ISO 7064 MOD 11,10, the Bundeszentralamt für Steuern's rule for USt-IdNr.
    product = 10
    for c in body:
        s = (int(c) + product) % 10 or 10
        product = (2 * s) % 11
    return str((11 - product) % 10)


def _luhn_check(body: str) -> str:
    total = 0
    for i, c in enumerate(reversed(body)):
        n = int(c)
        if i % 2 == 0:
            n = n * 2 - 9 if n * 2 > 9 else n * 2
        total += n
    return str((10 - total % 10) % 10)


def _mod11_check(body: str, weights: tuple[int, ...]) -> int:
    return sum(int(c) * w for c, w in zip(body, weights, strict=True)) % 11


def vat_id(country: str, rng: random.Random) -> str:
    """An invented VAT id of ``country`` whose check passes, without spaces: the EU's (DE FR
    ES IT NL PT GB BE AT), and the tax numbers that stand for one elsewhere (a Swiss UID with
    its VAT suffix, an Indian GSTIN, an Australian ABN, a Canadian GST/HST number)."""
    while True:
        value = _vat_attempt(country, rng)
        if value is not None:
            return value


def _vat_attempt(country: str, rng: random.Random) -> str | None:
    if country == "DE":
        body = _digits(rng, 8)
        return f"DE{body}{_de_check(body)}"
    if country == "FR":
        siren = _digits(rng, 8)
        siren += _luhn_check(siren)  # a SIREN is itself Luhn-valid
        key = (12 + 3 * (int(siren) % 97)) % 97
        return f"FR{key:02d}{siren}"
    if country == "IT":
        body = _digits(rng, 7) + f"{rng.randint(1, 100):03d}"
        return f"IT{body}{_luhn_check(body)}"
    if country == "NL":
        body = _digits(rng, 8)
        rest = sum(int(c) * w for c, w in zip(body, range(9, 1, -1), strict=True)) % 11
        return None if rest == 10 else f"NL{body}{rest}B{rng.randint(1, 99):02d}"
    if country == "PT":
        body = str(rng.choice((1, 2, 5))) + "".join(rng.choice("0123456789") for _ in range(7))
        rest = _mod11_check(body, (9, 8, 7, 6, 5, 4, 3, 2))
        check = 0 if rest < 2 else 11 - rest
        return f"PT{body}{check}"
    if country == "ES":
        # A company's CIF: a letter, seven digits and a control digit (Luhn-like).
        body = "".join(rng.choice("0123456789") for _ in range(7))
        odd = sum(sum(divmod(int(c) * 2, 10)) for c in body[0::2])
        even = sum(int(c) for c in body[1::2])
        return f"ES{rng.choice('ABG')}{body}{(10 - (odd + even) % 10) % 10}"
    if country == "GB":
        body = _digits(rng, 7)
        total = sum(int(c) * w for c, w in zip(body, range(8, 1, -1), strict=True))
        check = -total % 97
        return f"GB{body}{check:02d}"
    if country == "BE":
        body = "0" + _digits(rng, 7)
        return f"BE{body}{97 - int(body) % 97:02d}"
    if country == "AT":
        body = "".join(rng.choice("0123456789") for _ in range(7))
        total = 0
        for i, c in enumerate(body):
            n = int(c) * (2 if i % 2 else 1)
            total += n // 10 + n % 10
        return f"ATU{body}{(96 - total) % 10}"
    if country == "CH":
        body = _digits(rng, 8)
        uid = _uid_check(body)
        return None if uid is None else f"CHE{body}{uid}{rng.choice(('MWST', 'TVA'))}"
    if country == "IN":
        return _gstin(rng)
    if country == "AU":
        body = _digits(rng, 9)
        # Issued check digits run from 11 to 99: a body whose digits "10" pass has "99" too.
        return next((f"{c}{body}" for c in range(11, 100) if _abn_ok(f"{c}{body}")), None)
    if country == "CA":
        body = _digits(rng, 8)
        return f"{body}{_luhn_check(body)}RT0001"
    msg = f"no VAT id rule for {country!r}"
    raise ValueError(msg)


_ABN_WEIGHTS = (10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)


def _uid_check(body: str) -> int | None:
    # The Swiss UID's mod 11 over its first eight digits; a remainder of 1 has no check digit.
    check = 11 - _mod11_check(body, (5, 4, 3, 2, 7, 6, 5, 4))
    return None if check == 10 else check % 11


def _abn_ok(value: str) -> bool:
    # The ATO's rule: less 1 on the first digit, the weighted sum is a multiple of 89.
    digits = [int(c) - (1 if i == 0 else 0) for i, c in enumerate(value)]
    return sum(d * w for d, w in zip(digits, _ABN_WEIGHTS, strict=True)) % 89 == 0


_GSTIN_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _gstin_check(body: str) -> str:
    # GSTN's rule: base-36 digits weighted 1, 2, 1, 2...; each product's quotient and
    # remainder by 36 summed; the check character brings the sum to a multiple of 36.
    total = 0
    for i, c in enumerate(body):
        product = _GSTIN_CHARS.index(c) * (2 if i % 2 else 1)
        total += product // 36 + product % 36
    return _GSTIN_CHARS[-total % 36]


def _gstin(rng: random.Random) -> str:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    pan = (
        "".join(rng.choice(letters) for _ in range(3))
        + rng.choice("CFP")
        + rng.choice(letters)
        + f"{rng.randint(1, 9999):04d}"
        + rng.choice(letters)
    )
    body = f"{rng.randint(1, 37):02d}{pan}{rng.randint(1, 9)}Z"
    return body + _gstin_check(body)


def print_vat_id(value: str, rng: random.Random) -> str:
    """``value`` (from :func:`vat_id`) as invoices print it: a Swiss UID and an ABN grouped
    ("CHE-123.456.789 MWST", "51 824 753 556"), a Canadian number with its program
    account apart ("123456789 RT0001"), the rest as they are."""
    if value.startswith("CHE"):
        digits = value[3:12]
        return f"CHE-{digits[:3]}.{digits[3:6]}.{digits[6:]} {value[12:]}"
    if re.fullmatch(r"\d{11}", value):
        return f"{value[:2]} {value[2:5]} {value[5:8]} {value[8:]}"
    if re.fullmatch(r"\d{9}RT\d{4}", value):
        return f"{value[:9]} {value[9:]}" if rng.random() < 0.7 else value
    return value


def vat_is_valid(value: str) -> bool:
    """Whether ``value`` passes its country's check, by python-stdnum's rules rather than the
    factory's own above: what a set's ids are tested against."""
    if value.startswith("CHE"):
        return bool(stdnum_uid.is_valid(value[:12]))
    if value.startswith("GB"):
        return bool(stdnum_gb_vat.is_valid(value))
    if value[:2].isalpha() and value[:2].lower() in stdnum_eu_vat.MEMBER_STATES:
        return bool(stdnum_eu_vat.is_valid(value))
    if re.fullmatch(r"\d{9}RT\d{4}", value):
        return bool(stdnum_bn.is_valid(value))
    if re.fullmatch(r"\d{11}", value):
        return bool(stdnum_abn.is_valid(value))
    return bool(stdnum_gstin.is_valid(value))
