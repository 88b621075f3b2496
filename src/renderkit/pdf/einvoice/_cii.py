"""The invoice as UN/CEFACT Cross Industry Invoice (Factur-X, ZUGFeRD 2.x, XRechnung CII),
built with drafthorse from the template's own calculation."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from drafthorse.models.accounting import ApplicableTradeTax, CategoryTradeTax
from drafthorse.models.document import Document
from drafthorse.models.note import IncludedNote
from drafthorse.models.party import TaxRegistration
from drafthorse.models.payment import PaymentMeans, PaymentTerms
from drafthorse.models.trade import TradeAllowanceCharge
from drafthorse.models.tradelines import LineItem

from renderkit.pdf._einvoice_profiles import EInvoiceProfile
from renderkit.pdf._templates import InvoiceTotals
from renderkit.pdf.einvoice._facts import EXEMPT_CATEGORIES, InvoiceFacts, PartyFacts

__all__ = ["cii_xml"]

# drafthorse checks the document against the Factur-X XSD of this name while serialising.
_SCHEMAS = {"en16931": "FACTUR-X_EN16931", "extended": "FACTUR-X_EXTENDED"}


def cii_xml(facts: InvoiceFacts, profile: EInvoiceProfile) -> bytes:
    """The CII XML of the invoice ``facts`` for ``profile`` (UTF-8, with declaration).

    Raises:
        drafthorse's errors: the document does not fit the profile's XSD (a bug here: the
            request's rules are meant to refuse such data first).
    """
    totals = facts.totals
    doc = Document()
    doc.context.guideline_parameter.id = profile.guideline
    doc.header.id = facts.number
    doc.header.type_code = "380"
    doc.header.issue_date_time = facts.issue_date
    for text in facts.notes:
        note = IncludedNote()
        note.content = text
        doc.header.notes.add(note)

    agreement = doc.trade.agreement
    if facts.buyer_reference:
        agreement.buyer_reference = facts.buyer_reference
    _party(agreement.seller, facts.seller, seller=True)
    _party(agreement.buyer, facts.buyer, seller=False)

    for index, line in enumerate(totals.lines):
        doc.trade.items.add(_line(index, line, facts))

    settlement = doc.trade.settlement
    settlement.currency_code = totals.currency
    if facts.payment_reference:
        settlement.payment_reference = facts.payment_reference
    if facts.means_code:
        means = PaymentMeans()
        means.type_code = facts.means_code
        if facts.iban:
            means.payee_account.iban = facts.iban
            if facts.account_holder:
                means.payee_account.account_name = facts.account_holder
        if facts.bic:
            means.payee_institution.bic = facts.bic
        settlement.payment_means.add(means)
    for group in totals.taxes:
        tax = ApplicableTradeTax()
        tax.calculated_amount = group.tax
        tax.type_code = "VAT"
        code = facts.category(group.category, group.rate)
        if group.exemption_reason and code in EXEMPT_CATEGORIES:
            tax.exemption_reason = group.exemption_reason
        tax.basis_amount = group.basis
        tax.category_code = code
        tax.rate_applicable_percent = group.rate or Decimal(0)
        settlement.trade_tax.add(tax)
        if group.discount:
            allowance = TradeAllowanceCharge()
            allowance.indicator = False
            allowance.actual_amount = group.discount
            allowance.reason = "Discount"
            category = CategoryTradeTax()
            category.type_code = "VAT"
            category.category_code = code
            category.rate_applicable_percent = group.rate or Decimal(0)
            allowance.trade_tax.add(category)
            settlement.allowance_charge.add(allowance)
    if facts.due_date is not None:
        terms = PaymentTerms()
        terms.due = facts.due_date
        settlement.terms.add(terms)
    _summation(settlement.monetary_summation, totals)
    xml: bytes = doc.serialize(schema=_SCHEMAS[profile.level])
    return xml


def _party(party: Any, facts: PartyFacts, *, seller: bool) -> None:
    party.name = facts.name
    if facts.contact_name or facts.phone or facts.email:
        if facts.contact_name:
            party.contact.person_name = facts.contact_name
        if facts.phone:
            party.contact.telephone.number = facts.phone
        if facts.email:
            party.contact.email.address = facts.email
    if facts.street:
        party.address.line_one = facts.street
    if facts.postcode:
        party.address.postcode = facts.postcode
    if facts.city:
        party.address.city_name = facts.city
    party.address.country_id = facts.country
    if facts.electronic_address:
        party.electronic_address.uri_ID = ("EM", facts.electronic_address)
    if facts.vat_id:
        party.tax_registrations.add(TaxRegistration(id=("VA", facts.vat_id)))
    if seller and facts.tax_registration:
        party.tax_registrations.add(TaxRegistration(id=("FC", facts.tax_registration)))


def _line(index: int, line: Any, facts: InvoiceFacts) -> LineItem:
    item = LineItem()
    item.document.line_id = str(index + 1)
    item.product.name = line.description
    item.agreement.net.amount = line.unit_price
    item.delivery.billed_quantity = (line.quantity, facts.unit_codes[index])
    item.settlement.trade_tax.type_code = "VAT"
    item.settlement.trade_tax.category_code = facts.category(line.tax_category, line.tax_rate)
    item.settlement.trade_tax.rate_applicable_percent = line.tax_rate or Decimal(0)
    item.settlement.monetary_summation.total_amount = line.total
    return item


def _summation(summation: Any, totals: InvoiceTotals) -> None:
    summation.line_total = totals.subtotal
    if totals.discount:
        summation.allowance_total = totals.discount
    summation.tax_basis_total = totals.subtotal - totals.discount
    summation.tax_total = (totals.tax, totals.currency)
    summation.grand_total = totals.total
    summation.due_amount = totals.total
