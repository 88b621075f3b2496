"""Value forms shared by both invoice syntaxes: dates, IBANs, addresses."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

__all__ = ["iban", "iso_date", "one_line", "unit_price"]

_IBAN_SHAPE = re.compile(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}")


def iso_date(value: str | None, date_format: str | None = None) -> str | None:
    """An XML date as ISO ``YYYY-MM-DD``: CII ``format="102"`` (``20240315``) or ISO already.

    Other CII formats (``610`` a month, ``616`` a week) name no day and give None.
    """
    if value is None:
        return None
    digits = value.strip()
    if date_format not in (None, "102"):
        return None
    match = re.fullmatch(r"(\d{4})-?(\d{2})-?(\d{2})(?:[T ].*)?", digits)
    if match is None:
        return None
    try:
        return datetime.date(*(int(g) for g in match.groups())).isoformat()
    except ValueError:
        return None


def iban(value: str | None) -> str | None:
    """``value`` without spaces, upper case, if it has the shape of an IBAN; else None.

    The shape check keeps other account numbers (UBL allows any) out of the ``iban`` field.
    """
    if value is None:
        return None
    compact = re.sub(r"\s+", "", value).upper()
    return compact if _IBAN_SHAPE.fullmatch(compact) else None


def one_line(parts: Iterable[str | None]) -> str | None:
    """The non-empty parts joined by ", " (None when all are empty)."""
    kept = [p for p in parts if p]
    return ", ".join(kept) if kept else None


def unit_price(price: str | None, base_quantity: str | None) -> float | int | None:
    """The price of one unit: ``price`` is for ``base_quantity`` units (1 when absent).

    Exact for a base quantity of 1; otherwise rounded to 6 places (``12.00`` per 100 -> 0.12).
    """
    try:
        value = Decimal(price.strip()) if price else None
        base = Decimal(base_quantity.strip()) if base_quantity else Decimal(1)
    except InvalidOperation:
        return None
    if value is None or not value.is_finite() or not base.is_finite() or base <= 0:
        return None
    if base != 1:
        value = (value / base).quantize(Decimal("0.000001")).normalize()
    return int(value) if value == value.to_integral_value() else float(value)
