"""Bank details on invoices: IBAN and BIC checks and their printed form.

An IBAN is checked the way banks check it (ISO 13616): two letters, two check digits and up
to 30 letters or digits, whose mod-97 remainder, with the first four characters moved to the
end and letters counted as 10-35, is 1. That catches every single mistyped character and
almost every swap of neighbours, which is what a payment block printed on an invoice needs.
"""

from __future__ import annotations

import re

from renderkit.parsing.extract.identifiers import iban_checksum_ok

__all__ = ["bic_problem", "compact", "format_iban", "iban_problem"]

_IBAN = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}")
_BIC = re.compile(r"[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?")
_SEPARATORS = re.compile(r"[\s\-]+")


def compact(value: str) -> str:
    """Upper case without spaces or hyphens (``de89 3704-0044`` -> ``DE8937040044``)."""
    return _SEPARATORS.sub("", value).upper()


def iban_problem(value: str) -> str | None:
    """Why ``value`` is not an IBAN, or None when it is one (spaces are allowed)."""
    iban = compact(value)
    if not _IBAN.fullmatch(iban):
        return (
            "is not an IBAN: expected a country code, two check digits and 11-30 letters"
            " or digits (e.g. DE89 3704 0044 0532 0130 00)"
        )
    if not iban_checksum_ok(iban):
        return "is not a valid IBAN: its check digits do not match (a mistyped character?)"
    return None


def bic_problem(value: str) -> str | None:
    """Why ``value`` is not a BIC (SWIFT code), or None when it has a BIC's shape."""
    if _BIC.fullmatch(compact(value)):
        return None
    return (
        "is not a BIC: expected 8 or 11 characters, a 4-letter bank code, a 2-letter country"
        " code and a location (e.g. COBADEFFXXX)"
    )


def format_iban(value: str) -> str:
    """The IBAN in groups of four, as printed on paper (``DE89 3704 0044 0532 0130 00``)."""
    iban = compact(value)
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))
