"""Which of the factory's optional variations a set draws: one frozen record, passed whole from
``scripts/synth_docs.py`` to each document.

Each field is one command-line option (``--other-dates`` for ``other_dates``); its help text is
the field's ``help`` metadata, so the script builds its options from this class and a new
variation is added here once. Every variation draws from a generator of its own, so a set made
without it is the same, document for document, as before the variation existed.
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["PLAIN", "Variations", "help_of"]


def _option(help_text: str) -> Any:
    return attrs.field(default=False, metadata={"help": help_text})


@attrs.frozen(kw_only=True)
class Variations:
    """The optional variations of one synthetic set; none by default."""

    photos: bool = _option("photo-like variants")
    other_dates: bool = _option(
        "invoices also print order, period, delivery, reference and print-stamp dates; "
        "contracts are also dated below their signatures, by an acceptance or a 'Dated:' line, "
        "or not at all"
    )
    hard_issuers: bool = _option(
        "invoices print trade names, slogans or the buyer's block atop the letterhead"
    )
    every_locale: bool = _option(
        "receipts not from Malaysia come from any locale (four-figure post codes...)"
    )
    drafting: bool = _option(
        "contracts also follow real agreements' drafting conventions: parties listed after "
        "defined terms, trade names, registered offices, residences, employee undertakings "
        "signed below, 'Date:' fields, dates in the last paragraph, survival-worded and "
        "until-terminated terms"
    )
    letters: bool = _option(
        "invoices are mostly laid out as business letters: the seller's one-line return "
        "address over the buyer's window address, and the seller's details in columns at the "
        "page's foot"
    )
    tax_rates: bool = _option(
        "invoices sell at two or three tax rates where their locale has them: a tax row "
        "per rate, half of them with a row of their sum"
    )
    logo_names: bool = _option(
        "invoices often print the seller's name only inside the logo image: a text layer "
        "holds it only in the seller's block, return address or footer"
    )
    far_locales: bool = _option(
        "invoices mostly come from Switzerland, India, Australia or Canada: apostrophe "
        "and lakh groupings, local currency signs, tax names and tax numbers (UID, GSTIN, ABN, "
        "GST/HST), and taxes split in two (CGST and SGST, GST and PST)"
    )
    line_taxes: bool = _option(
        "invoices with one tax rate often print each line's tax in the item table: a "
        "rate column, a tax column, a gross column"
    )
    other_numbers: bool = _option(
        "invoices print other numbers beside their own, before it too: customer, "
        "delivery note, contract, tax or company registration, page"
    )
    spaced_type: bool = _option(
        "invoices set their title, their labels or every line in letter-spaced type, "
        "or type their title with a space between its letters"
    )
    pdf_writers: bool = _option(
        "half the invoice PDFs are rewritten as other generators write theirs: pages "
        "turned and turned back by /Rotate, landscape text sideways on a portrait page, a "
        "stray /Rotate, fonts without their ToUnicode maps"
    )
    tax_included: bool = _option(
        "invoices with one tax rate are often priced with the tax in: gross lines, the total "
        "first, then the tax it holds and the net amount, in short labels or a sentence"
    )
    payment_slips: bool = _option(
        "invoices often end with a payment slip: a Swiss QR-bill, a remittance stub below a "
        "cut line, or a bank-transfer block with a code to scan; each repeats the payee, the "
        "payer's block, a reference and the amount due in words of its own"
    )

    particle_names: bool = _option(
        "half the sellers' names hold small words in lower case, as trade names do ('Au bon "
        "moulin SARL', 'Haus am See GmbH', 'Bakkerij van Dam B.V.'); not in Malaysia, where "
        "names are printed in capitals"
    )
    other_forms: bool = _option(
        "half the sellers' and buyers' names end in a less common legal form of their country "
        "(GbR, e.U., BVBA, S.r.l.s., Pvt Ltd, PLLC...); not in Malaysia"
    )
    bank_names: bool = _option(
        "invoices that print an IBAN mostly name the bank beside it, after a label or alone "
        "on its line, and at times the account's holder (the seller again)"
    )


#: No variation: the factory's plain documents.
PLAIN = Variations()


def help_of(field: attrs.Attribute[bool]) -> str:
    """A variation's command-line help."""
    text: str = field.metadata["help"]
    return text
