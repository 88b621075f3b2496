"""Invoices priced with their tax included: the total first, the tax it holds below it.

Invoices to consumers, shops' invoices and many small businesses' price their goods with the
tax in ("Preise inkl. MwSt.", "prix TTC"): the item lines are gross, their sum is the total,
and the totals block prints the total first, then the tax it contains ("enthaltene MwSt.
19 %", "dont TVA 20 %", "incl. VAT 20 %") and, last, the net amount ("Nettobetrag", "Total
HT"). The order is the reverse of a net-priced invoice's, the tax row follows the total as a
payment or a balance would, and the lines' sum equals the total, not the net.

Two styles: ``after`` (short labels: total, included tax, net) and ``sentence`` (the tax row
worded as a sentence: "This total includes VAT at 20 %"). The tax is computed from the total
as such invoices do (``total * rate / (100 + rate)``, rounded), the net is their difference.
The option ``--tax-included`` (``Variations(tax_included=True)``) draws a style for three in
five of the invoices with one tax rate, no discount, no shipping line and no line taxes, from a
generator of its own (sets made without it are unchanged).
"""

from __future__ import annotations

import random
from decimal import Decimal

from renderkit.parsing.synth import values

__all__ = ["STYLES", "choose_included", "included_tax", "included_words"]

#: How the totals block words an included tax.
STYLES = ("after", "sentence")

# Per language: the total's suffixes, the included tax's short labels and sentences (``{tax}``
# the tax's name, ``{rate}`` its rate), and the net amount's labels.
_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"total": ("(incl. {tax})", "including {tax}", "(gross)"),
           "short": ("incl. {tax} {rate} %", "{tax} included ({rate} %)",
                     "of which {tax} {rate} %"),
           "sentence": ("This total includes {tax} at {rate} %",
                        "Included in the total: {tax} {rate} %"),
           "net": ("Net amount", "Amount excl. {tax}", "Net")},
    "de": {"total": ("(brutto)", "inkl. {tax}", "(inkl. {tax})"),
           "short": ("enthaltene {tax} {rate} %", "darin enthalten {rate} % {tax}",
                     "inkl. {rate} % {tax}"),
           "sentence": ("Im Gesamtbetrag sind {rate} % {tax} enthalten",
                        "Der Betrag enthält {tax} {rate} %"),
           "net": ("Nettobetrag", "Netto", "Summe netto")},
    "fr": {"total": ("TTC", "(TTC)", "toutes taxes comprises"),
           "short": ("dont {tax} {rate} %", "{tax} incluse {rate} %"),
           "sentence": ("Ce montant inclut une {tax} de {rate} %",
                        "Montant TTC dont {tax} à {rate} %"),
           "net": ("Total HT", "Montant HT", "Hors taxes")},
    "es": {"total": ("({tax} incl.)", "con {tax}"),
           "short": ("{tax} incluido {rate} %", "de los cuales {tax} {rate} %"),
           "sentence": ("El total incluye {tax} al {rate} %",),
           "net": ("Base imponible", "Importe neto")},
    "it": {"total": ("({tax} inclusa)", "ivato"),
           "short": ("di cui {tax} {rate} %", "{tax} inclusa {rate} %"),
           "sentence": ("Il totale comprende {tax} al {rate} %",),
           "net": ("Imponibile", "Totale netto")},
    "nl": {"total": ("(incl. {tax})", "inclusief {tax}"),
           "short": ("waarvan {tax} {rate} %", "incl. {tax} {rate} %"),
           "sentence": ("Dit totaal is inclusief {rate} % {tax}",),
           "net": ("Netto bedrag", "Totaal excl. {tax}")},
    "pt": {"total": ("({tax} incl.)", "com {tax}"),
           "short": ("{tax} incluído {rate} %", "dos quais {tax} {rate} %"),
           "sentence": ("O total inclui {tax} à taxa de {rate} %",),
           "net": ("Valor líquido", "Base tributável")},
    "ms": {"total": ("(termasuk {tax})",),
           "short": ("termasuk {tax} {rate} %",),
           "sentence": ("Jumlah ini termasuk {tax} pada kadar {rate} %",),
           "net": ("Jumlah bersih", "Amaun sebelum {tax}")},
}  # fmt: skip


# Per language: the item table's amount column, gross (a net wording such as "Total HT"
# would contradict the lines).
_LINE = {"en": "Amount", "de": "Betrag", "fr": "Montant TTC", "es": "Importe", "it": "Importo",
         "nl": "Bedrag", "pt": "Valor", "ms": "Amaun"}  # fmt: skip


def choose_included(rng: random.Random) -> str:
    """The style of one eligible invoice (``Layout.tax_included``), none on two in five."""
    if rng.random() < 0.4:
        return ""
    return rng.choice(STYLES)


def included_tax(total: Decimal, rate: Decimal) -> Decimal:
    """The tax a gross ``total`` holds at ``rate`` percent, rounded to cents."""
    return values.money(total * rate / (100 + rate))


def included_words(
    style: str, language: str, tax: str, rate: Decimal, total: str, rng: random.Random
) -> dict[str, str]:
    """The totals block's three labels: ``total_included`` (``total``, the document's total
    label, with a suffix saying the tax is in), ``tax_included`` and ``net``; and the item
    table's gross ``line_amount`` header."""
    words = _WORDS[language]
    kind = "short" if style == "after" else "sentence"
    fill = {"tax": tax, "rate": f"{rate}"}
    return {
        "total_included": f"{total} {rng.choice(words['total']).format(**fill)}",
        "tax_included": rng.choice(words[kind]).format(**fill),
        "net": rng.choice(words["net"]).format(**fill),
        "line_amount": _LINE[language],
    }
