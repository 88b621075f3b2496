"""What an invoice must state before it can be written as an e-invoice (EN 16931).

Checked only when a request asks for an e-invoice, and reported all at once, each error
naming the field to fill (``data.seller.vat_id``, ``data.line_items[2].tax_category``). The
rules here are the ones that depend on the request's data; the XML written from valid data
is then checked against the XSD and the Schematron by :mod:`renderkit.pdf.einvoice`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import attrs
from babel.numbers import get_currency_precision

from renderkit.core.errors import FieldError
from renderkit.pdf._einvoice_profiles import EInvoiceProfile
from renderkit.pdf._templates import ZERO_RATED, invoice_totals, iso_date

__all__ = ["SUPPORTED_CATEGORIES", "einvoice_problems"]

#: The VAT categories an e-invoice can carry here. K (intra-community) also needs delivery
#: dates and a deliver-to country, O (not subject to VAT) forbids every other category and
#: the seller's VAT id, L and M are regional taxes: none of them is written yet.
SUPPORTED_CATEGORIES = ("S", "Z", "E", "AE", "G")

# Categories whose e-invoice must say why no VAT is charged (BR-E-10, BR-AE-10, BR-G-10).
_NEEDS_REASON = ("E", "AE", "G")


def einvoice_problems(data: Any, profile: EInvoiceProfile) -> list[FieldError]:
    """Every field ``data`` (an :class:`~renderkit.pdf.InvoiceData`) lacks for ``profile``."""
    errors: list[FieldError] = []

    def need(field: str, message: str) -> None:
        errors.append(FieldError(field=f"data.{field}", message=message, missing=True))

    def bad(field: str, message: str) -> None:
        errors.append(FieldError(field=f"data.{field}", message=message))

    for field in _unwritable_text(attrs.asdict(data)):
        bad(field, "contains control characters, which XML 1.0 cannot hold")
    digits = get_currency_precision(data.currency)
    if digits > 2:
        bad("currency", "e-invoices state amounts with at most 2 decimals (BR-DEC)")
    elif digits < 2 and profile.level == "extended":
        # The page rounds tax to whole yen; EXTENDED's BR-FXEXT-S-09 allows 0.01 per line
        # against the exact tax, which only EN 16931's own tolerance (one unit) admits.
        bad("currency", f"{data.currency} has no cents: use the en16931 profile")
    for name, rule in (
        ("invoice_number", "BT-1"),
        ("company_name", "BT-27"),
        ("client_name", "BT-44"),
    ):
        if not (getattr(data, name) or "").strip():
            need(name, f"is required for an e-invoice ({rule})")
    for name in ("invoice_date", "due_date"):
        value = getattr(data, name)
        if value is not None and iso_date(value) is None:
            bad(name, "must be a date YYYY-MM-DD in an e-invoice")
    if data.invoice_date is None:
        need("invoice_date", "is required for an e-invoice (BT-2)")
    seller, buyer = data.seller, data.buyer
    if seller is None or not seller.country:
        need("seller.country", "is required for an e-invoice (BT-40)")
    if buyer is None or not buyer.country:
        need("buyer.country", "is required for an e-invoice (BT-55)")
    if not data.line_items:
        need("line_items", "an e-invoice needs at least one line (BR-16)")
    categories: set[str] = set()
    for index, item in enumerate(data.line_items):
        field = f"line_items[{index}]"
        if not (item.description or "").strip():
            need(f"{field}.description", "is required for an e-invoice (BT-153)")
        if item.unit_price < 0:
            bad(f"{field}.unit_price", "must not be negative in an e-invoice (BR-27)")
        category = _category(item, data.tax_rate)
        if category is None:
            need(
                f"{field}.tax_category",
                "is required for an e-invoice when no tax rate above 0 applies (BR-CO-04)",
            )
            continue
        categories.add(category)
        if category not in SUPPORTED_CATEGORIES:
            bad(f"{field}.tax_category", f"{category} is not supported for e-invoices yet")
        elif category == "S" and not _rate(item, data.tax_rate):
            bad(f"{field}.tax_rate", "standard rated (S) lines need a rate above 0 (BR-S-05)")
        elif category != "S" and item.tax_rate:
            bad(f"{field}.tax_rate", f"{category} lines carry no VAT: the rate must be 0")
        elif category in _NEEDS_REASON and not item.tax_exemption_reason:
            need(
                f"{field}.tax_exemption_reason",
                f"{category} lines must say why no VAT is charged (BR-{category}-10)",
            )
    if categories and not (seller and (seller.vat_id or seller.tax_registration)):
        need("seller.vat_id", "is required (or seller.tax_registration) for an e-invoice")
    if categories & {"Z", "AE", "G"} and not (seller and seller.vat_id):
        need("seller.vat_id", "is required with zero-rated, reverse-charge or export lines")
    if "AE" in categories and not (buyer and buyer.vat_id):
        need("buyer.vat_id", "is required with reverse-charge (AE) lines (BR-AE-02)")
    if data.due_date is None and errors == [] and _amount_due(data) > 0:
        need("due_date", "is required when an amount is due (BR-CO-25)")
    if profile.xrechnung:
        errors.extend(_xrechnung_problems(data))
    # One error per field: the first reason is the one to act on.
    first: dict[str, FieldError] = {}
    for error in errors:
        first.setdefault(error.field, error)
    return list(first.values())


def _xrechnung_problems(data: Any) -> list[FieldError]:
    errors: list[FieldError] = []

    def need(field: str, message: str) -> None:
        errors.append(FieldError(field=f"data.{field}", message=message, missing=True))

    seller, buyer = data.seller, data.buyer
    if not (data.buyer_reference or "").strip():
        need("buyer_reference", "is required for XRechnung (the Leitweg-ID, BR-DE-15)")
    for party, name in ((seller, "seller"), (buyer, "buyer")):
        for field, rule in (("city", "BR-DE-3/8"), ("postcode", "BR-DE-4/9")):
            if party is None or not getattr(party, field):
                need(f"{name}.{field}", f"is required for XRechnung ({rule})")
    if seller is None or not seller.contact_name:
        need("seller.contact_name", "is required for XRechnung (BR-DE-5)")
    if seller is None or not seller.phone:
        need("seller.phone", "is required for XRechnung (BR-DE-6)")
    if not ((seller and seller.email) or data.company_email):
        need("seller.email", "is required for XRechnung (BR-DE-7; or company_email)")
    if not ((buyer and (buyer.electronic_address or buyer.email)) or data.client_email):
        need("buyer.electronic_address", "is required for XRechnung (BT-49)")
    payment = data.payment
    if payment is None or not payment.iban:
        need("payment.iban", "is required for XRechnung (payment instructions, BR-DE-1/23)")
    return errors


# The characters XML 1.0 cannot carry at all (not even escaped): C0 controls but tab, LF, CR.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _unwritable_text(value: object, path: str = "") -> Iterator[str]:
    if isinstance(value, str):
        if _NOT_XML.search(value):
            yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _unwritable_text(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unwritable_text(item, f"{path}[{index}]")


def _rate(item: Any, invoice_rate: float | None) -> float:
    if item.tax_rate is not None:
        return float(item.tax_rate)
    if item.tax_category in ZERO_RATED:
        return 0.0
    return float(invoice_rate or 0)


def _category(item: Any, invoice_rate: float | None) -> str | None:
    if item.tax_category:
        return str(item.tax_category)
    return "S" if _rate(item, invoice_rate) > 0 else None


def _amount_due(data: Any) -> Decimal:
    totals = invoice_totals(
        data.line_items, currency=data.currency, tax_rate=data.tax_rate, discount=data.discount
    )
    return totals.total
