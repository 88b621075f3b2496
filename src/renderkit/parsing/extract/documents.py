"""One extractor per document type, chosen once from the classified type.

Only the chosen type's rules run. A type's extractor may ask for another's rules where they
help it: an invoice takes the receipt rules for what its layout reading did not find, a contract
the receipt rules for the seller-like fields a schema may ask for. Types with no rules of their
own (letters, statements, forms...) get every general rule. The values every document has
(currency, dates, e-mails, phones) are added last, whatever the type.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

import attrs

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.constraints import issuer_refusal, number_refusal
from renderkit.parsing.extract.contract import contract_fields
from renderkit.parsing.extract.found import Found
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.receipt import receipt_fields
from renderkit.parsing.extract.values import find_currency, find_dates, find_emails, find_phones

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


#: A document type's extractor: the document and whether ambiguous dates are day first.
TypeExtractor = Callable[[Document, bool], Extracted]


def with_rival(chosen: Found, rival: Found) -> Found:
    """``chosen`` with ``rival`` and its alternatives added to its own, each value once."""
    out = list(chosen.alternatives)
    for candidate in (rival, *rival.alternatives):
        if candidate.value != chosen.value and all(c.value != candidate.value for c in out):
            out.append(candidate)
    return attrs.evolve(chosen, alternatives=tuple(out))


def extract_receipt(
    document: Document, day_first: bool, *, spans: Collection[str] = ()
) -> Extracted:
    """A till receipt: merchant, address, date, total, amounts and items from the receipt rules
    (``spans``: the fields among company and address chosen by the span rankers, see
    :func:`~renderkit.parsing.extract.receipt.receipt_fields`)."""
    found = receipt_fields(list(document.lines), day_first=day_first, spans=spans)
    _refuse_names(found)
    return Extracted(fields=found)


def extract_invoice(
    document: Document,
    day_first: bool,
    *,
    ranker: bool = False,
    date_ranker: bool = False,
    issuer_ranker: bool = False,
) -> Extracted:
    """An invoice or purchase order: the layout reading, the receipt rules filling its gaps
    (``ranker``: the total chosen by the learned ranker, ``date_ranker``: the issue date by
    the date ranker, ``issuer_ranker``: the issuer by the issuer ranker, see
    :func:`invoice_fields`)."""
    invoice = invoice_fields(
        document, ranker=ranker, date_ranker=date_ranker, issuer_ranker=issuer_ranker
    )
    # Till receipts printed "TAX INVOICE" take the receipt path (classify), so here the layout
    # reading wins; the receipt rules only fill what it did not find, and where both read the
    # same value, the more confident reading (and its lines) stays.
    found = receipt_fields(list(document.lines), day_first=day_first)
    found.pop("line_items", None)
    receipt_names = dict(found)
    for name, item in invoice.fields.items():
        rival = found.get(name)
        if rival is None or rival.value != item.value or item.confidence >= rival.confidence:
            found[name] = item
    company, receipt_company = found.get("company"), receipt_names.get("company")
    if company is not None and receipt_company is not None and company is not receipt_company:
        # The receipt rules' name, where the layout reading chose another, is one more rival.
        found["company"] = with_rival(company, receipt_company)
    _refuse_names(found)
    number = found.get("number")
    if number is not None and number is not invoice.fields.get("number"):
        # The receipt rules' number passed no layout check: a year or a page number is refused.
        line = " ".join(x.text for x in number.lines)
        if number_refusal(str(number.value), line, inline=True) is not None:
            del found["number"]
    return Extracted(fields=found, warnings=invoice.warnings)


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
    document: Document, day_first: bool, *, term_ranker: bool = False, party_ranker: bool = False
) -> Extracted:
    """A contract: parties, effective date, jurisdiction, term; its date is the effective date
    (``term_ranker``, ``party_ranker``: the term, the parties chosen by the learned rankers,
    see :func:`contract_fields`)."""
    found = receipt_fields(list(document.lines), day_first=day_first)
    contract = contract_fields(document.text, ranker=term_ranker, party_ranker=party_ranker)
    found.update(contract)
    if "effective_date" in contract:
        found["date"] = contract["effective_date"]
    else:
        # A contract's dates are clauses' dates: none of them is "the" date unless effective.
        found.pop("date", None)
    return Extracted(fields=found)


def extract_general(
    document: Document, day_first: bool, *, spans: Collection[str] = ()
) -> Extracted:
    """A type without rules of its own: every general rule, the receipt rules winning ties
    (``spans`` as for :func:`extract_receipt`)."""
    found = contract_fields(document.text)
    found.update(receipt_fields(list(document.lines), day_first=day_first, spans=spans))
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
    ranker: bool = False,
    date_ranker: bool = False,
    term_ranker: bool = False,
    party_ranker: bool = False,
    issuer_ranker: bool = False,
    spans: Collection[str] = (),
) -> Extracted:
    """The fields of a document of type ``kind``: its extractor's, then the document-wide values.

    ``ranker`` lets the learned ranker choose an invoice's total, ``date_ranker`` its issue
    date, ``issuer_ranker`` its issuer (:func:`extract_invoice`); ``term_ranker`` and
    ``party_ranker`` a contract's term and parties (:func:`extract_contract`); ``spans`` names
    the fields (``company``, ``address``)
    the span rankers choose on a receipt (:func:`extract_receipt`, and the receipt rules of
    types without rules of their own).
    """
    extractor = EXTRACTORS.get(kind, extract_general)
    if (ranker or date_ranker or issuer_ranker) and extractor is extract_invoice:
        extracted = extract_invoice(
            document,
            day_first,
            ranker=ranker,
            date_ranker=date_ranker,
            issuer_ranker=issuer_ranker,
        )
    elif extractor is extract_contract:
        extracted = extract_contract(
            document, day_first, term_ranker=term_ranker, party_ranker=party_ranker
        )
    elif spans and extractor is extract_receipt:
        extracted = extract_receipt(document, day_first, spans=spans)
    elif spans and extractor is extract_general:
        extracted = extract_general(document, day_first, spans=spans)
    else:
        extracted = extractor(document, day_first)
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
