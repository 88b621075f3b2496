"""The harder choices of an invoice's totals block, so that position on the page and the word
"total" stop being enough to find the invoice total.

Each choice is seeded per document (:func:`choose_summary`), from a generator of its own so
that the other choices of a seed stay as they were:

- ``summary``: the totals as label/value rows (``stacked``) or as one table whose labels head
  the columns and whose values sit below them, the total rightmost (``columns``);
- ``after_total``: amounts printed *below* the total: a previous balance, a deposit, a payment
  received, an amount paid, a rounding adjustment, then the balance due (under an amount-due
  label of the lexicon, which is not the invoice total);
- ``false_totals``: "total" labels on things that are not the invoice total: total hours (an
  amount-like ``37.50``), total quantity, a total per page (the page's line sum), a "Total"
  column header in the item table;
- ``total_twice``: the total also printed in a box near the top;
- ``shipping``: a shipping line among the summary rows (taxed with the goods);
- ``carried``: a carried-forward subtotal after the first half of the items, in the middle of
  the page; on a PDF the rest of the items go on a second page.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

__all__ = ["AFTER_TOTAL", "FALSE_TOTALS", "WORDS", "after_amounts", "choose_summary"]

#: What may be printed below the total, in printing order (the balance due comes last).
AFTER_TOTAL = ("previous_balance", "deposit", "payment", "amount_paid", "rounding")
#: The "total" labels that are not the invoice total.
FALSE_TOTALS = ("hours", "quantity", "per_page", "column")

_KEYS = (
    "hours", "quantity", "per_page", "column", "carried", "previous_balance", "deposit",
    "payment", "amount_paid", "rounding", "shipping",
)  # fmt: skip
_TABLE: dict[str, tuple[str, ...]] = {
    "en": ("Total hours", "Total qty", "Total per page", "Total", "Carried forward",
           "Previous balance", "Deposit", "Payment received", "Amount paid", "Rounding",
           "Shipping"),
    "de": ("Stunden gesamt", "Menge gesamt", "Summe Seite", "Gesamt", "Übertrag",
           "Vorheriger Saldo", "Anzahlung", "Zahlung erhalten", "Bereits bezahlt", "Rundung",
           "Versand"),
    "fr": ("Total heures", "Total quantité", "Total par page", "Total", "Report",
           "Solde précédent", "Acompte", "Paiement reçu", "Déjà réglé", "Arrondi", "Livraison"),
    "es": ("Total horas", "Total unidades", "Total por página", "Total", "Suma y sigue",
           "Saldo anterior", "Anticipo", "Pago recibido", "Importe abonado", "Redondeo",
           "Envío"),
    "it": ("Totale ore", "Totale quantità", "Totale per pagina", "Totale", "Riporto",
           "Saldo precedente", "Acconto", "Pagamento ricevuto", "Importo versato",
           "Arrotondamento", "Spedizione"),
    "nl": ("Totaal uren", "Totaal aantal", "Totaal per pagina", "Totaal", "Transport",
           "Vorig saldo", "Aanbetaling", "Ontvangen betaling", "Reeds betaald", "Afronding",
           "Verzending"),
    "pt": ("Total horas", "Total quantidade", "Total por página", "Total", "A transportar",
           "Saldo anterior", "Sinal", "Pagamento recebido", "Valor pago", "Arredondamento",
           "Envio"),
    "ms": ("Jumlah jam", "Jumlah kuantiti", "Jumlah setiap halaman", "Jumlah",
           "Dibawa ke hadapan", "Baki terdahulu", "Deposit", "Bayaran diterima",
           "Amaun dibayar", "Pelarasan", "Penghantaran"),
}  # fmt: skip
#: Per language: the words of the harder totals block, by key (``hours``, ``carried``...).
WORDS: dict[str, dict[str, str]] = {
    language: dict(zip(_KEYS, words, strict=True)) for language, words in _TABLE.items()
}


def choose_summary(rng: random.Random) -> dict[str, Any]:
    """The harder totals-block choices of one invoice (the :class:`.Layout` fields)."""
    return {
        "summary": rng.choice(("stacked", "stacked", "columns")),
        "after_total": tuple(k for k in AFTER_TOTAL if rng.random() < 0.14),
        "false_totals": tuple(k for k in FALSE_TOTALS if rng.random() < 0.2),
        "total_twice": rng.random() < 0.25,
        "shipping": rng.random() < 0.25,
        "carried": rng.random() < 0.2,
    }


def after_amounts(
    kinds: tuple[str, ...], total: Decimal, rng: random.Random
) -> tuple[tuple[str, Decimal], ...]:
    """The signed amounts printed below ``total`` and, last, the balance due they leave."""
    if not kinds:
        return ()
    out: list[tuple[str, Decimal]] = []
    for kind in kinds:
        if kind == "rounding":
            value = Decimal(rng.choice((-4, -3, -2, -1, 1, 2, 3, 4))) / 100
        elif kind == "previous_balance":
            value = (total * Decimal(rng.randint(5, 80)) / 100).quantize(Decimal("0.01"))
        else:
            # Money already paid lowers the balance; it never reaches the total.
            value = -(total * Decimal(rng.randint(5, 20)) / 100).quantize(Decimal("0.01"))
        out.append((kind, value))
    balance = total + sum((v for _, v in out), Decimal(0))
    return (*out, ("balance_due", balance))
