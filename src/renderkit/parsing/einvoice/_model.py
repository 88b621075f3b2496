"""What an e-invoice says, in the field names the parser reports for invoices."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

import attrs

__all__ = ["EInvoice", "EInvoiceLine", "amount", "quantity"]


def amount(text: str | None) -> str | None:
    """An XML amount (``1163.4``, ``-12.50``) in the library's normal form (``"1163.40"``)."""
    number = _decimal(text)
    return None if number is None else f"{number:.2f}"


def quantity(text: str | None) -> float | int | None:
    """A quantity or unit price: exact, an int when whole (``"2.0000"`` -> 2, ``"1.5"`` -> 1.5)."""
    number = _decimal(text)
    if number is None:
        return None
    return int(number) if number == number.to_integral_value() else float(number)


def _decimal(text: str | None) -> Decimal | None:
    if text is None or not text.strip():
        return None
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


@attrs.frozen(kw_only=True)
class EInvoiceLine:
    """One invoice line as the XML states it.

    Attributes:
        description: the item name (BT-153), else its description.
        quantity: the invoiced quantity (BT-129).
        unit_price: the net price of one unit (BT-146 divided by the base quantity BT-149).
        amount: the line's net amount (BT-131), normal form.
    """

    description: str | None = None
    quantity: float | int | None = None
    unit_price: float | int | None = None
    amount: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The line as the parser reports line items (amounts as numbers; None left out)."""
        out: dict[str, Any] = {
            "description": self.description,
            "quantity": self.quantity,
            "unit_price": self.unit_price,
            "amount": float(self.amount) if self.amount is not None else None,
        }
        return {k: v for k, v in out.items() if v is not None}


@attrs.frozen(kw_only=True)
class EInvoice:
    """The fields of an e-invoice (EN 16931 business terms in brackets).

    Amounts are in the library's normal form (2-place decimal strings), dates ISO.

    Attributes:
        syntax: ``cii`` (UN/CEFACT Cross Industry Invoice: Factur-X, ZUGFeRD, XRechnung) or
            ``ubl`` (UBL 2.1 Invoice or CreditNote).
        issuer: the seller's name (BT-27).
        invoice_number: the invoice id (BT-1).
        date: the issue date (BT-2).
        due_date: the payment due date (BT-9).
        total: the total with tax (BT-112).
        subtotal: the total without tax (BT-109).
        tax: the total tax in the invoice currency (BT-110).
        currency: the invoice currency, ISO 4217 (BT-5).
        vat_id: the seller's VAT identifier (BT-31).
        iban: the payee's IBAN, without spaces (BT-84).
        customer: the buyer's name (BT-44).
        address: the seller's postal address on one line (BG-5).
        line_items: the invoice lines (BG-25).
    """

    syntax: str
    issuer: str | None = None
    invoice_number: str | None = None
    date: str | None = None
    due_date: str | None = None
    total: str | None = None
    subtotal: str | None = None
    tax: str | None = None
    currency: str | None = None
    vat_id: str | None = None
    iban: str | None = None
    customer: str | None = None
    address: str | None = None
    line_items: tuple[EInvoiceLine, ...] = ()
