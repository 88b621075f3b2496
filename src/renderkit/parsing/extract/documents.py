"""One extractor per document type, chosen once from the classified type.

Only the chosen type's rules run. A type's extractor may ask for another's rules where they
help it: an invoice takes the receipt rules for what its layout reading did not find, a contract
the receipt rules for the seller-like fields a schema may ask for. Types with no rules of their
own (letters, statements, forms...) get every general rule. The values every document has
(currency, dates, e-mails, phones) are added last, whatever the type.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Protocol

import attrs

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.constraints import (
    amount_refusal,
    issuer_refusal,
    number_refusal,
    total_refusal,
)
from renderkit.parsing.extract.contract import contract_fields
from renderkit.parsing.extract.found import Found
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.numbers import detect_format, find_money
from renderkit.parsing.extract.receipt import receipt_fields
from renderkit.parsing.extract.values import find_currency, find_dates, find_emails, find_phones
from renderkit.parsing.rank.switches import RULES_ONLY, Rankers

__all__ = ["EXTRACTORS", "Extracted", "extract_fields", "with_rival"]


@attrs.frozen(kw_only=True)
class Extracted:
    """What a document type's extractor found.

    Attributes:
        fields: per field name, the value, its rule confidence and the lines it was read from.
        warnings: failed checks (arithmetic, checksums).
    """

    fields: dict[str, Found]
    warnings: tuple[str, ...] = ()


class TypeExtractor(Protocol):
    """A document type's extractor: the document, whether ambiguous dates are day first, and
    which fields the learned rankers choose."""

    def __call__(self, document: Document, day_first: bool, *, rankers: Rankers) -> Extracted:
        """The type's fields."""
        ...


def with_rival(chosen: Found, rival: Found) -> Found:
    """``chosen`` with ``rival`` and its alternatives added to its own, each value once."""
    out = list(chosen.alternatives)
    for candidate in (rival, *rival.alternatives):
        if candidate.value != chosen.value and all(c.value != candidate.value for c in out):
            out.append(candidate)
    return attrs.evolve(chosen, alternatives=tuple(out))


def extract_receipt(
    document: Document, day_first: bool, *, rankers: Rankers = RULES_ONLY
) -> Extracted:
    """A till receipt: merchant, address, date, total, amounts and items from the receipt rules
    (``rankers.spans``: the fields among company and address chosen by the span rankers, see
    :func:`~renderkit.parsing.extract.receipt.receipt_fields`)."""
    found = receipt_fields(list(document.lines), day_first=day_first, spans=rankers.spans)
    _refuse_names(found)
    return Extracted(fields=found)


def extract_invoice(
    document: Document,
    day_first: bool,
    *,
    rankers: Rankers = RULES_ONLY,
) -> Extracted:
    """An invoice or purchase order: the layout reading, the receipt rules filling its gaps
    (``rankers``: the total, issue date and issuer chosen by the learned rankers, see
    :func:`invoice_fields`)."""
    invoice = invoice_fields(
        document, ranker=rankers.total, date_ranker=rankers.date, issuer_ranker=rankers.issuer
    )
    # Till receipts printed "TAX INVOICE" take the receipt path (classify), so here the layout
    # reading wins; the receipt rules only fill what it did not find, and where both read the
    # same value, the more confident reading (and its lines) stays.
    found = receipt_fields(list(document.lines), day_first=day_first)
    found.pop("line_items", None)
    receipt_names = dict(found)
    # A ranked total's confidence is its ranker's calibrated probability: the receipt rules
    # reading the same amount (a figure never calibrated on invoices) do not raise it.
    ranked = {"total"} if rankers.total else set()
    for name, item in invoice.fields.items():
        rival = found.get(name)
        if (
            name in ranked
            or rival is None
            or rival.value != item.value
            or item.confidence >= rival.confidence
        ):
            found[name] = item
    company, receipt_company = found.get("company"), receipt_names.get("company")
    if company is not None and receipt_company is not None and company is not receipt_company:
        # The receipt rules' name, where the layout reading chose another, is one more rival.
        found["company"] = with_rival(company, receipt_company)
    _refuse_names(found)
    total = found.get("total")
    if total is not None and total is not invoice.fields.get("total"):
        # The receipt rules' total passed no layout check: a count of hours is refused, below
        # the lines' floor or after a quantity label ("Total hours: 139,50").
        value = _decimal(total.value)
        line = " ".join(x.text for x in total.lines)
        if value is not None and (
            total_refusal(value, invoice.total_floor) is not None or _counted(line, value)
        ):
            del found["total"]
    number = found.get("number")
    if number is not None and number is not invoice.fields.get("number"):
        # The receipt rules' number passed no layout check: a year or a page number is
        # refused, and so is a number the layout read under another number's label.
        line = " ".join(x.text for x in number.lines)
        printed = str(number.value)
        if number_refusal(printed, line, inline=True) is not None or (
            printed in invoice.other_numbers
        ):
            del found["number"]
    return Extracted(fields=found, warnings=invoice.warnings)


def _counted(line: str, value: Decimal) -> bool:
    """Whether ``value`` is printed in ``line`` as a count: an amount the constraints refuse
    (constraints.amount_refusal), a quantity label right before it."""
    number_format = detect_format([line])
    return any(
        a.value == value and amount_refusal(line, a) is not None
        for a in find_money(line, number_format)
    )


def _decimal(value: object) -> Decimal | None:
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def _refuse_names(found: dict[str, Found]) -> None:
    """Replace a company that is a title, a stamp or a table header (constraints.issuer_refusal)
    by its best rival that is none of them, or drop it."""
    company = found.get("company")
    if company is None or issuer_refusal(str(company.value)) is None:
        return
    rivals = [r for r in company.alternatives if issuer_refusal(str(r.value)) is None]
    if rivals:
        found["company"] = attrs.evolve(rivals[0], alternatives=tuple(rivals[1:]))
    else:
        del found["company"]


def extract_contract(
    document: Document, day_first: bool, *, rankers: Rankers = RULES_ONLY
) -> Extracted:
    """A contract: parties, effective date, jurisdiction, term; its date is the effective date
    (``rankers``: the term and the parties chosen by the learned rankers, see
    :func:`contract_fields`)."""
    found = receipt_fields(list(document.lines), day_first=day_first)
    contract = contract_fields(
        document.text,
        ranker=rankers.term,
        party_ranker=rankers.party,
        end_date=rankers.term_end_date,
    )
    found.update(contract)
    if "effective_date" in contract:
        found["date"] = contract["effective_date"]
    else:
        # A contract's dates are clauses' dates: none of them is "the" date unless effective.
        found.pop("date", None)
    return Extracted(fields=found)


def extract_general(
    document: Document, day_first: bool, *, rankers: Rankers = RULES_ONLY
) -> Extracted:
    """A type without rules of its own: every general rule, the receipt rules winning ties
    (``rankers.spans`` as for :func:`extract_receipt`)."""
    found = contract_fields(document.text, opening_party=False)
    found.update(receipt_fields(list(document.lines), day_first=day_first, spans=rankers.spans))
    return Extracted(fields=found)


#: The extractor of each document type with rules of its own; others get :func:`extract_general`.
EXTRACTORS: Mapping[str, TypeExtractor] = {
    "receipt": extract_receipt,
    "invoice": extract_invoice,
    "purchase_order": extract_invoice,
    "contract": extract_contract,
}


def extract_fields(
    kind: str,
    document: Document,
    *,
    day_first: bool,
    rankers: Rankers = RULES_ONLY,
) -> Extracted:
    """The fields of a document of type ``kind``: its extractor's, then the document-wide values.

    ``rankers`` says which fields the learned rankers choose (the rules alone by default).
    """
    extracted = EXTRACTORS.get(kind, extract_general)(document, day_first, rankers=rankers)
    found = dict(extracted.fields)
    text = document.text
    currency = find_currency(text)
    # Only an invoice's layout reading finds a currency; it beats the first symbol in the text.
    if currency and "currency" not in found:
        found["currency"] = Found(value=currency, confidence=0.8)
    dates = find_dates(text, day_first=day_first)
    if dates:
        found["dates"] = Found(
            value=list(dict.fromkeys(d.isoformat() for d, _, _ in dates))[:20], confidence=0.9
        )
    emails = find_emails(text)
    if emails:
        found["emails"] = Found(value=emails[:10], confidence=0.9)
    phones = find_phones(text)
    if phones:
        found["phones"] = Found(value=phones[:10], confidence=0.8)
    return attrs.evolve(extracted, fields=found)
