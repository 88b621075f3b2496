"""OASIS UBL 2.1 ``Invoice`` and ``CreditNote`` (PEPPOL BIS, XRechnung UBL, EN 16931)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from renderkit.parsing.einvoice._common import iban, iso_date, unit_price
from renderkit.parsing.einvoice._model import EInvoice, EInvoiceLine, amount, quantity
from renderkit.parsing.einvoice._xml import (
    children,
    first,
    in_currency,
    local_name,
    namespace,
    postal_address,
    text,
)

__all__ = ["is_ubl", "read_ubl"]

_NAMESPACE = "urn:oasis:names:specification:ubl:schema:xsd:"


def is_ubl(root: ET.Element) -> bool:
    """Whether ``root`` is a UBL Invoice or CreditNote."""
    return local_name(root) in ("Invoice", "CreditNote") and namespace(root).startswith(_NAMESPACE)


def read_ubl(root: ET.Element) -> EInvoice:
    """The invoice fields of a UBL document (absent ones are None)."""
    credit = local_name(root) == "CreditNote"
    seller = first(root, "AccountingSupplierParty/Party")
    currency = text(root, "DocumentCurrencyCode")
    totals = first(root, "LegalMonetaryTotal")
    return EInvoice(
        syntax="ubl",
        issuer=_name(seller),
        invoice_number=text(root, "ID"),
        date=iso_date(text(root, "IssueDate")),
        # An Invoice states BT-9 as DueDate; a CreditNote (and UBL 2.0) on the payment means.
        due_date=iso_date(text(root, "DueDate", "PaymentMeans/PaymentDueDate")),
        total=amount(text(totals, "TaxInclusiveAmount")),
        subtotal=amount(text(totals, "TaxExclusiveAmount")),
        tax=amount(_tax(root, currency)),
        currency=currency,
        vat_id=_vat_id(seller),
        iban=iban(text(root, "PaymentMeans/PayeeFinancialAccount/ID")),
        customer=_name(first(root, "AccountingCustomerParty/Party")),
        address=_address(first(seller, "PostalAddress")),
        line_items=tuple(
            _line(line, credit)
            for line in children(root, "CreditNoteLine" if credit else "InvoiceLine")
        ),
    )


def _name(party: ET.Element | None) -> str | None:
    # BT-27 (the legal name) is what CII calls the seller's Name; the trading name is a fallback.
    return text(party, "PartyLegalEntity/RegistrationName", "PartyName/Name")


def _vat_id(party: ET.Element | None) -> str | None:
    for scheme in children(party, "PartyTaxScheme"):
        if (text(scheme, "TaxScheme/ID") or "").upper() == "VAT":
            return text(scheme, "CompanyID")
    return None


def _tax(root: ET.Element, currency: str | None) -> str | None:
    # Up to two TaxTotals: one in the document currency (BT-110), one in the tax currency.
    amounts = [
        a for a in (first(t, "TaxAmount") for t in children(root, "TaxTotal")) if a is not None
    ]
    return in_currency(amounts, currency)


def _address(element: ET.Element | None) -> str | None:
    return postal_address(
        element,
        lines=("StreetName", "AdditionalStreetName", "AddressLine/Line"),
        postcode="PostalZone",
        city="CityName",
        country="Country/IdentificationCode",
    )


def _line(line: ET.Element, credit: bool) -> EInvoiceLine:
    price = first(line, "Price")
    return EInvoiceLine(
        description=text(line, "Item/Name", "Item/Description"),
        quantity=quantity(text(line, "CreditedQuantity" if credit else "InvoicedQuantity")),
        unit_price=unit_price(text(price, "PriceAmount"), text(price, "BaseQuantity")),
        amount=amount(text(line, "LineExtensionAmount")),
    )
