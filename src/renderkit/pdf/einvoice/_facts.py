"""The invoice as both e-invoice syntaxes state it: the request's data resolved once (the
seller's e-mail falling back to ``company_email``, dates parsed, codes defaulted) and priced
by the template's own :func:`~renderkit.pdf._templates.invoice_totals`."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import attrs

from renderkit.pdf._models import InvoiceData, Party
from renderkit.pdf._payment import compact
from renderkit.pdf._templates import InvoiceTotals, invoice_totals, iso_date, paragraphs

__all__ = ["EXEMPT_CATEGORIES", "InvoiceFacts", "PartyFacts", "invoice_facts"]

#: The VAT categories whose breakdown states an exemption reason (BR-E-10, BR-AE-10...);
#: S and Z must state none (BR-S-10, BR-Z-10), so a reason given on such lines is not written.
EXEMPT_CATEGORIES = frozenset({"E", "AE", "K", "G", "O"})

#: UN/ECE Recommendation 20 "one" (a unit, piece): the unit of a line that names none.
DEFAULT_UNIT = "C62"


@attrs.frozen(kw_only=True)
class PartyFacts:
    """The seller or the buyer as written in the XML."""

    name: str
    country: str
    street: str | None = None
    city: str | None = None
    postcode: str | None = None
    vat_id: str | None = None
    tax_registration: str | None = None
    contact_name: str | None = None
    phone: str | None = None
    email: str | None = None
    electronic_address: str | None = None


@attrs.frozen(kw_only=True)
class InvoiceFacts:
    """Everything the XML writers need, in final form."""

    number: str
    issue_date: dt.date
    due_date: dt.date | None
    seller: PartyFacts
    buyer: PartyFacts
    buyer_reference: str | None
    notes: tuple[str, ...]
    totals: InvoiceTotals
    unit_codes: tuple[str, ...]
    means_code: str | None
    iban: str | None
    bic: str | None
    account_holder: str | None
    payment_reference: str | None

    @staticmethod
    def category(code: str | None, rate: Decimal | None) -> str:
        """A line's or a group's VAT category: as given, else S (the rules require one
        when the rate is 0)."""
        return code or "S"


def _party(party: Party | None, name: str | None, email: str | None) -> PartyFacts:
    p = party or Party()
    own_email = p.email or email
    return PartyFacts(
        name=(name or "").strip(),
        country=p.country or "",
        street=p.street,
        city=p.city,
        postcode=p.postcode,
        vat_id=p.vat_id,
        tax_registration=p.tax_registration,
        contact_name=p.contact_name,
        phone=p.phone,
        email=own_email,
        electronic_address=p.electronic_address or own_email,
    )


def invoice_facts(data: InvoiceData) -> InvoiceFacts:
    """The facts of ``data``, which passed the request's e-invoice rules."""
    totals = invoice_totals(
        data.line_items, currency=data.currency, tax_rate=data.tax_rate, discount=data.discount
    )
    issue = iso_date(data.invoice_date)
    assert issue is not None  # the e-invoice rules require an ISO invoice date
    payment = data.payment
    iban = compact(payment.iban) if payment and payment.iban else None
    means = (payment.means_code or ("58" if iban else "1")) if payment else None
    return InvoiceFacts(
        number=(data.invoice_number or "").strip(),
        issue_date=issue,
        due_date=iso_date(data.due_date),
        seller=_party(data.seller, data.company_name, data.company_email),
        buyer=_party(data.buyer, data.client_name, data.client_email),
        buyer_reference=data.buyer_reference,
        notes=tuple("\n".join(lines) for lines in paragraphs(data.notes)),
        totals=totals,
        unit_codes=tuple(item.unit_code or DEFAULT_UNIT for item in data.line_items),
        means_code=means,
        iban=iban,
        bic=compact(payment.bic) if payment and payment.bic else None,
        account_holder=payment.account_holder if payment else None,
        payment_reference=payment.reference if payment else None,
    )
