"""Bank and tax identifiers, validated: IBAN (mod-97, length per country) and EU VAT ids.

The per-country tables live in ``lexicons/ids.toml``; a value that fails its check is not an
identifier, whatever label it is printed under. VAT ids are checked by format for every EU
country and by their check digits too (:func:`vat_checksum_ok`, python-stdnum's rules for the
EU, the UK and Switzerland); those decide between candidates. Where no VAT id exists, the tax
number that stands for one is read by its shape and check (an Indian GSTIN, a Canadian GST/HST
number, an Australian business number after its label).
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable
from importlib import resources
from typing import Any

from stdnum import iban as stdnum_iban
from stdnum.au import abn as stdnum_abn
from stdnum.ca import bn as stdnum_bn
from stdnum.ch import uid as stdnum_uid
from stdnum.eu import vat as stdnum_eu_vat
from stdnum.gb import vat as stdnum_gb_vat
from stdnum.in_ import gstin as stdnum_gstin

__all__ = [
    "completed_iban",
    "find_ibans",
    "find_vat_ids",
    "forms_after_company",
    "iban_checksum_ok",
    "legal_form_spellings",
    "legal_forms",
    "repaired_iban",
    "tax_id_currency",
    "valid_iban",
    "valid_vat_id",
    "vat_checksum_ok",
]


@functools.cache
def _ids() -> dict[str, Any]:
    text = (resources.files("renderkit.parsing.lexicons") / "ids.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def legal_forms() -> tuple[str, ...]:
    """Company legal-form suffixes (``GmbH``, ``SARL``, ``Ltd``...)."""
    return tuple(_ids()["legal_forms"]["suffixes"])


def forms_after_company() -> tuple[str, ...]:
    """The legal forms a name prints after "Co.", "Company" or "Corp." ("Co., Ltd.")."""
    return tuple(_ids()["legal_forms"]["after_company"])


def legal_form_spellings() -> dict[str, str]:
    """Legal forms spelled out, lower case, each with its abbreviation (``corporation``:
    ``corp``)."""
    return dict(_ids()["legal_forms"]["spelled_out"])


def valid_iban(value: str) -> bool:
    """Whether ``value`` (spaces allowed) is an IBAN: its country's length and mod-97 = 1."""
    iban = re.sub(r"\s", "", value).upper()
    length = _ids()["iban_length"].get(iban[:2])
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", iban):
        return False
    if length is None:
        # A country outside the table: python-stdnum's copy of the IBAN registry knows its
        # length and account format, or that it has no IBAN at all ("RT55884ORIGINALI", an
        # invoice number run into the next words, passes mod 97 as one text in 97 does).
        return bool(stdnum_iban.is_valid(iban))
    if len(iban) != length:
        return False
    return iban_checksum_ok(iban)


def iban_checksum_ok(iban: str) -> bool:
    """ISO 13616's check of a compact, upper-case IBAN: with its first four characters moved
    to the end and letters counted as 10-35, its remainder mod 97 is 1."""
    digits = "".join(str(int(c, 36)) for c in iban[4:] + iban[:4])
    return int(digits) % 97 == 1


# Characters OCR takes for each other, both ways.
_LOOKALIKES = {"0": "O", "O": "0", "1": "I", "I": "1", "5": "S", "S": "5", "8": "B", "B": "8"}


def repaired_iban(value: str) -> str | None:
    """The one IBAN that ``value`` (compact and upper case, failing its checksum) becomes by
    turning one character after the country code into its OCR look-alike ("I" for "1", "O"
    for "0"...), cut to its country's length; None where no such change passes its checksum
    and its country's account format, or more than one does. Mod 97 catches nearly every
    wrong character, so one passing change is what was printed: a French account number's
    "I" read as "1"."""
    length = _ids()["iban_length"].get(value[:2])
    if length is None or len(value) < length:
        return None
    value = value[:length]
    # python-stdnum also knows each country's account format (letters only where it allows
    # them), which the checksum alone does not: "FR92532I88..." passes mod 97 too.
    passing = {
        changed
        for index in range(2, length)
        if (alike := _LOOKALIKES.get(value[index])) is not None
        and stdnum_iban.is_valid(changed := value[:index] + alike + value[index + 1 :])
    }
    return passing.pop() if len(passing) == 1 else None


def _iban_head(text: str) -> str | None:
    """The start of an IBAN that ``text`` opens with, compact: its country, check digits and
    the groups after them, up to the first word that is no group ("DE23 8477 2836 5056
    Gegründet 1981" gives "DE23847728365056")."""
    words = text.lstrip(":：. ").split()
    if not words or not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]*", words[0]):
        return None
    head = [words[0]]
    if len(words[0]) == 4:
        # A grouped IBAN: groups of at most four, the last of them maybe shorter.
        for word in words[1:]:
            if not re.fullmatch(r"[A-Z0-9]{1,4}", word):
                break
            head.append(word)
            if len(word) < 4:
                break
    return "".join(head)


def completed_iban(text: str, below: Iterable[str]) -> str | None:
    """The IBAN that ``text`` (a label's value: "DE23 8477 2836 5056", too short for its
    country) starts and one of the texts ``below`` it finishes, where its narrow column
    wrapped it ("8795 66"), compact; None unless exactly one completion is an IBAN (its
    country's length and checksum, as :func:`valid_iban`: a chance join passes about once in
    a hundred tries, and only the few texts below are tried).

    A completion is a run of groups of letters and digits in a text below, from its start
    or after a space ("office@acme.de 8795 66": OCR read the wrapped part into the next
    column's line), ending where the IBAN's length is reached."""
    head = _iban_head(text)
    length = _ids()["iban_length"].get(head[:2]) if head else None
    if head is None or length is None or not 0 < length - len(head) <= 16:
        return None
    need = length - len(head)
    found: set[str] = set()
    for line in below:
        words = line.split()
        for start, word in enumerate(words):
            if not re.fullmatch(r"[A-Z0-9]+", word):
                continue
            tail = ""
            for more in words[start:]:
                if not re.fullmatch(r"[A-Z0-9]+", more) or len(tail) >= need:
                    break
                tail += more
            if len(tail) == need and valid_iban(head + tail):
                found.add(head + tail)
    return found.pop() if len(found) == 1 else None


_IBAN = re.compile(r"(?<![A-Z0-9])([A-Z]{2}\d{2}(?:[ \u00a0]?[A-Z0-9]){10,30})", re.I)


def find_ibans(text: str, *, known_countries: bool = False) -> list[tuple[str, int]]:
    """Valid IBANs in ``text`` (without spaces) with their offsets, in order.

    ``known_countries``: only IBANs of a country whose IBAN length is known, checked against
    it (a prefix of unknown length passes the checksum alone one time in 97).
    """
    out: list[tuple[str, int]] = []
    for match in _IBAN.finditer(text):
        raw = re.sub(r"\s", "", match.group(1)).upper()
        length = _ids()["iban_length"].get(raw[:2])
        if known_countries and length is None:
            continue
        # The pattern may run into the next word ("DE08 ... 90 BIC"): try the country's length.
        for size in [length] if length else range(len(raw), 14, -1):
            if size <= len(raw) and valid_iban(raw[:size]):
                out.append((raw[:size], match.start()))
                break
    return out


@functools.cache
def _vat_patterns() -> dict[str, re.Pattern[str]]:
    return {c: re.compile(p) for c, p in _ids()["vat_format"].items()}


def valid_vat_id(value: str) -> bool:
    """Whether ``value`` has the VAT id format of its country prefix (``DE123456789``)."""
    vat = re.sub(r"[\s.\-]", "", value).upper()
    pattern = _vat_patterns().get(vat[:2])
    return bool(pattern and pattern.fullmatch(vat[2:]))


# A country code, then the number: run on, after a space, or after a hyphen ("HU-12892312").
_VAT_START = re.compile(r"(?<![A-Z0-9])([A-Z]{2})(?=[ \u00a0-]?[A-Z0-9])")


def find_vat_ids(text: str) -> list[tuple[str, int]]:
    """VAT ids of a valid format in ``text`` (without spaces) with their offsets, in order."""
    upper = text.upper()
    out: list[tuple[str, int]] = []
    for match in _VAT_START.finditer(upper):
        # Printed ids may be grouped ("DE 123 456 789"): try the longest run of groups first.
        # The id ends at the line's end: the next line's words are not part of it.
        window = upper[match.end() : match.end() + 20].split("\n")[0]
        pieces = re.split(r"[ .,;:)\u00a0]", window.strip())
        for count in range(len(pieces), 0, -1):
            candidate = match.group(1) + "".join(pieces[:count])
            if valid_vat_id(candidate) and not valid_iban(candidate):
                out.append((re.sub(r"[\s.\-]", "", candidate), match.start()))
                break
    for pattern, valid, _, _ in _NATIONAL_TAX_IDS:
        for match in pattern.finditer(upper):
            value = re.sub(r"\s", "", match.group("id"))
            if valid(value):
                out.append((value, match.start()))
    return sorted(out, key=lambda found: found[1])


# Tax numbers that stand for a VAT id outside the EU, each by its own shape and check, with
# the money of its country: an Indian GSTIN (state, PAN, entity, "Z", check character), a
# Canadian business number with its GST/HST program account ("123456789 RT0001"), and an
# Australian business number only after its label, as eleven digits alone could be a phone
# or an account that passes mod 89. The shape is that of the compact number returned.
_GSTIN = r"\d{2}[A-Z]{5}\d{4}[A-Z][0-9A-Z]Z[0-9A-Z]"
_NATIONAL_TAX_IDS = (
    (
        re.compile(rf"(?<![A-Z0-9])(?P<id>{_GSTIN})(?![A-Z0-9])"),
        stdnum_gstin.is_valid,
        re.compile(_GSTIN),
        "INR",
    ),
    (
        re.compile(r"(?<!\d)(?P<id>\d{9} ?RT ?\d{4})(?!\d)"),
        stdnum_bn.is_valid,
        re.compile(r"\d{9}RT\d{4}"),
        "CAD",
    ),
    (
        re.compile(r"(?<![A-Z])A\.?B\.?N\.?[\s:#]*(?P<id>\d{2} ?\d{3} ?\d{3} ?\d{3})(?!\d)"),
        stdnum_abn.is_valid,
        re.compile(r"\d{11}"),
        "AUD",
    ),
)


def vat_checksum_ok(value: str) -> bool | None:
    """Whether the check digits of a VAT id of a valid format are right (python-stdnum's rules
    for every EU country, Northern Ireland, the UK and Switzerland), or None where its country
    has no such rule here (its format is all that can be checked)."""
    vat = re.sub(r"[\s.\-]", "", value).upper()
    if not valid_vat_id(vat):
        return None
    if vat[:2] == "GB":
        return bool(stdnum_gb_vat.is_valid(vat))
    if vat[:2] == "CH":
        # The UID's own check digit; the "MWST", "TVA" or "IVA" after it carries none.
        return bool(stdnum_uid.is_valid(vat[:12]))
    if vat[:2] == "EL" or vat[:2].lower() in stdnum_eu_vat.MEMBER_STATES:
        return bool(stdnum_eu_vat.is_valid(vat))
    return None


# The money of a tax number's country: the euro area's VAT prefixes, the rest by their own.
_EURO_PREFIXES = frozenset(
    ("AT", "BE", "CY", "DE", "EE", "EL", "ES", "FI", "FR", "HR", "IE", "IT", "LT", "LU", "LV",
     "MT", "NL", "PT", "SI", "SK")
)  # fmt: skip
_PREFIX_CURRENCIES = {"GB": "GBP", "XI": "GBP", "CH": "CHF", "DK": "DKK", "SE": "SEK",
                      "PL": "PLN", "CZ": "CZK", "HU": "HUF", "RO": "RON", "BG": "BGN"}  # fmt: skip


def tax_id_currency(value: str) -> str | None:
    """The currency of the country that issued ``value``, a tax number :func:`find_vat_ids`
    returned (ISO 4217), or None where it does not tell."""
    if value[:2] in _EURO_PREFIXES:
        return "EUR"
    if value[:2] in _PREFIX_CURRENCIES:
        return _PREFIX_CURRENCIES[value[:2]]
    return next((c for _, _, shape, c in _NATIONAL_TAX_IDS if shape.fullmatch(value)), None)
