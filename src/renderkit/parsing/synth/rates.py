"""Invoices with goods at several tax rates: one tax row per rate, not always a row of their sum.

Real invoices often sell at two or three rates (Germany's 19 and 7 %, France's 20, 10 and
5.5 %, Italy's 22, 10 and 4 %) and print a tax row per rate ("VAT 7 % | 7.69", "VAT 19 % |
12.25"); some print a row of their sum ("Total VAT | 19.94", a "total" word that is not the
invoice total), some only the rows. The truth's ``tax`` is always the sum. The option
``--tax-rates`` (``Variations(tax_rates=True)``) draws it for invoices whose locale
has two rates or more, from a generator of its own, so sets made without it are unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal

from renderkit.parsing.synth import values

__all__ = ["SUM_WORDS", "choose_rates", "rate_taxes"]

#: The row of the taxes' sum: the word before the tax's label, per language.
SUM_WORDS = {"en": "Total", "de": "Summe", "fr": "Total", "es": "Total", "it": "Totale",
             "nl": "Totaal", "pt": "Total", "ms": "Jumlah"}  # fmt: skip


def choose_rates(rng: random.Random, available: int) -> tuple[int, bool]:
    """How many rates an invoice sells at (two, or three where the locale has three), and
    whether it prints their sum (``Layout.rates``, ``Layout.rate_sum``); one where only one
    exists."""
    if available < 2:
        return 1, False
    count = 3 if available >= 3 and rng.random() < 0.25 else 2
    return count, rng.random() < 0.5


def rate_taxes(
    amounts: Sequence[Decimal], rates: Sequence[Decimal], rng: random.Random
) -> tuple[tuple[Decimal, Decimal, Decimal], ...]:
    """``(rate, base, tax)`` per rate, highest first: each item's amount goes to one rate,
    every rate getting one at least (``len(amounts) >= len(rates)``)."""
    order = list(range(len(amounts)))
    rng.shuffle(order)
    bases = {rate: Decimal(0) for rate in rates}
    for position, index in enumerate(order):
        rate = rates[position] if position < len(rates) else rng.choice(list(rates))
        bases[rate] += amounts[index]
    return tuple(
        (rate, bases[rate], values.money(bases[rate] * rate / 100))
        for rate in sorted(rates, reverse=True)
    )
