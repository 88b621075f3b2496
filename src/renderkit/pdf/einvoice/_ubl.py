"""The invoice as an OASIS UBL 2.1 ``Invoice`` (EN 16931 syntax binding; XRechnung UBL).

No maintained UBL builder exists in the registries, so the elements are built with lxml in
the order the UBL 2.1 schema's sequences prescribe; the result is checked against that XSD
and the CEN EN 16931 UBL Schematron. lxml escapes every text and attribute value: user data
cannot add markup.
"""

from __future__ import annotations

from decimal import Decimal

from lxml import etree

from renderkit.pdf._einvoice_profiles import EInvoiceProfile
from renderkit.pdf.einvoice._facts import EXEMPT_CATEGORIES, InvoiceFacts, PartyFacts

__all__ = ["ubl_xml"]

_INVOICE = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
_CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
_CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
_NSMAP = {None: _INVOICE, "cac": _CAC, "cbc": _CBC}


def _cac(parent: etree._Element, name: str) -> etree._Element:
    return etree.SubElement(parent, f"{{{_CAC}}}{name}")


def _cbc(parent: etree._Element, name: str, value: object, **attributes: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{_CBC}}}{name}", attributes)
    element.text = str(value)
    return element


def ubl_xml(facts: InvoiceFacts, profile: EInvoiceProfile) -> bytes:
    """The UBL 2.1 Invoice of ``facts`` for ``profile`` (UTF-8, with declaration)."""
    totals = facts.totals
    currency = totals.currency

    def amount(parent: etree._Element, name: str, value: Decimal) -> None:
        _cbc(parent, name, f"{value:.{totals.precision}f}", currencyID=currency)

    root = etree.Element(f"{{{_INVOICE}}}Invoice", nsmap=_NSMAP)
    _cbc(root, "CustomizationID", profile.guideline)
    _cbc(root, "ID", facts.number)
    _cbc(root, "IssueDate", facts.issue_date.isoformat())
    if facts.due_date is not None:
        _cbc(root, "DueDate", facts.due_date.isoformat())
    _cbc(root, "InvoiceTypeCode", "380")
    for note in facts.notes:
        _cbc(root, "Note", note)
    _cbc(root, "DocumentCurrencyCode", currency)
    if facts.buyer_reference:
        _cbc(root, "BuyerReference", facts.buyer_reference)
    _party(_cac(_cac(root, "AccountingSupplierParty"), "Party"), facts.seller, seller=True)
    _party(_cac(_cac(root, "AccountingCustomerParty"), "Party"), facts.buyer, seller=False)
    if facts.means_code:
        means = _cac(root, "PaymentMeans")
        _cbc(means, "PaymentMeansCode", facts.means_code)
        if facts.payment_reference:
            _cbc(means, "PaymentID", facts.payment_reference)
        if facts.iban:
            account = _cac(means, "PayeeFinancialAccount")
            _cbc(account, "ID", facts.iban)
            if facts.account_holder:
                _cbc(account, "Name", facts.account_holder)
            if facts.bic:
                _cbc(_cac(account, "FinancialInstitutionBranch"), "ID", facts.bic)
    for group in totals.taxes:
        if group.discount:
            allowance = _cac(root, "AllowanceCharge")
            _cbc(allowance, "ChargeIndicator", "false")
            _cbc(allowance, "AllowanceChargeReason", "Discount")
            amount(allowance, "Amount", group.discount)
            _category(
                allowance, "TaxCategory", facts.category(group.category, group.rate), group.rate
            )
    tax_total = _cac(root, "TaxTotal")
    amount(tax_total, "TaxAmount", totals.tax)
    for group in totals.taxes:
        subtotal = _cac(tax_total, "TaxSubtotal")
        amount(subtotal, "TaxableAmount", group.basis)
        amount(subtotal, "TaxAmount", group.tax)
        code = facts.category(group.category, group.rate)
        reason = group.exemption_reason if code in EXEMPT_CATEGORIES else None
        _category(subtotal, "TaxCategory", code, group.rate, reason)
    monetary = _cac(root, "LegalMonetaryTotal")
    amount(monetary, "LineExtensionAmount", totals.subtotal)
    amount(monetary, "TaxExclusiveAmount", totals.subtotal - totals.discount)
    amount(monetary, "TaxInclusiveAmount", totals.total)
    if totals.discount:
        amount(monetary, "AllowanceTotalAmount", totals.discount)
    amount(monetary, "PayableAmount", totals.total)
    for index, line in enumerate(totals.lines):
        element = _cac(root, "InvoiceLine")
        _cbc(element, "ID", index + 1)
        _cbc(element, "InvoicedQuantity", _number(line.quantity), unitCode=facts.unit_codes[index])
        amount(element, "LineExtensionAmount", line.total)
        item = _cac(element, "Item")
        _cbc(item, "Name", line.description or "")
        _category(
            item,
            "ClassifiedTaxCategory",
            facts.category(line.tax_category, line.tax_rate),
            line.tax_rate,
        )
        _cbc(_cac(element, "Price"), "PriceAmount", _number(line.unit_price), currencyID=currency)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))


def _number(value: Decimal) -> str:
    # Plain notation (never 1E+2), without needless trailing zeros.
    return format(value.normalize(), "f")


def _category(
    parent: etree._Element,
    name: str,
    code: str,
    rate: Decimal | None,
    reason: str | None = None,
) -> None:
    category = _cac(parent, name)
    _cbc(category, "ID", code)
    _cbc(category, "Percent", _number(rate or Decimal(0)))
    if reason:
        _cbc(category, "TaxExemptionReason", reason)
    _cbc(_cac(category, "TaxScheme"), "ID", "VAT")


def _party(party: etree._Element, facts: PartyFacts, *, seller: bool) -> None:
    if facts.electronic_address:
        _cbc(party, "EndpointID", facts.electronic_address, schemeID="EM")
    address = _cac(party, "PostalAddress")
    if facts.street:
        _cbc(address, "StreetName", facts.street)
    if facts.city:
        _cbc(address, "CityName", facts.city)
    if facts.postcode:
        _cbc(address, "PostalZone", facts.postcode)
    _cbc(_cac(address, "Country"), "IdentificationCode", facts.country)
    if facts.vat_id:
        scheme = _cac(party, "PartyTaxScheme")
        _cbc(scheme, "CompanyID", facts.vat_id)
        _cbc(_cac(scheme, "TaxScheme"), "ID", "VAT")
    if seller and facts.tax_registration:
        scheme = _cac(party, "PartyTaxScheme")
        _cbc(scheme, "CompanyID", facts.tax_registration)
        _cbc(_cac(scheme, "TaxScheme"), "ID", "FC")
    _cbc(_cac(party, "PartyLegalEntity"), "RegistrationName", facts.name)
    if facts.contact_name or facts.phone or facts.email:
        contact = _cac(party, "Contact")
        if facts.contact_name:
            _cbc(contact, "Name", facts.contact_name)
        if facts.phone:
            _cbc(contact, "Telephone", facts.phone)
        if facts.email:
            _cbc(contact, "ElectronicMail", facts.email)
