"""Invoices whose item table prints each line's tax: its rate, its amount, its gross.

Real invoices often carry the tax line by line ("VAT % | VAT | Gross" columns: German
"MwSt. % | MwSt. | Brutto", French "TVA % | TVA | Montant TTC", Indian tax invoices' GST
columns), so a page holds a column of rates that look like amounts ("19.00"), a column of
small taxes, and a column of gross amounts whose sum is the invoice total, not the items'
net sum. Each line's tax is rounded on its own, so their sum may differ from the summary's
tax by a cent, as on real pages. The option ``--line-taxes``
(``Variations(line_taxes=True)``) draws it for invoices with one tax rate and no discount or
charge, from a generator of its own, so sets made without it are unchanged.
"""

from __future__ import annotations

import random
from decimal import Decimal

from renderkit.parsing.synth import values

__all__ = ["COLUMNS", "WORDS", "choose_line_taxes", "line_tax"]

#: The columns a line's tax may print, in table order.
COLUMNS = ("line_rate", "line_tax", "line_gross")

#: Per language: the column headers (rate, tax, gross), the tax's local word first.
WORDS: dict[str, tuple[str, str, str]] = {
    "en": ("VAT %", "VAT", "Gross"), "de": ("MwSt. %", "MwSt.", "Brutto"),
    "fr": ("TVA %", "TVA", "Montant TTC"), "es": ("IVA %", "IVA", "Importe bruto"),
    "it": ("IVA %", "IVA", "Lordo"), "nl": ("BTW %", "BTW", "Bruto"),
    "pt": ("IVA %", "IVA", "Valor bruto"), "ms": ("Kadar %", "Cukai", "Jumlah kasar"),
}  # fmt: skip

_CHOICES: tuple[tuple[str, ...], ...] = (
    ("line_rate",),
    ("line_rate", "line_tax"),
    ("line_tax", "line_gross"),
    ("line_rate", "line_tax", "line_gross"),
)


def choose_line_taxes(rng: random.Random) -> tuple[str, ...]:
    """The line-tax columns one invoice prints (``Layout.line_taxes``), none on two in five."""
    return rng.choice(_CHOICES) if rng.random() < 0.6 else ()


def line_tax(amount: Decimal, rate: Decimal) -> Decimal:
    """One line's tax at ``rate`` percent, rounded on its own."""
    return values.money(amount * rate / 100)
