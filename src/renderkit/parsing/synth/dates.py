"""Dates an invoice prints besides its own: what an issue-date reader must not take.

Real invoices print more dates than the issue and due dates: the date of the order they bill,
a service period (two dates), a delivery date, the date of an earlier invoice they refer to,
and a print stamp with a time and a page number in the footer. Each is a general kind of
document date, worded here in the factory's languages; ``--other-dates``
(``Variations(other_dates=True)``) prints a few of them on an invoice so that a ranker learns
to tell the issue date apart. The draws use a generator of their own, so sets made without
the option are unchanged.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable

__all__ = ["KINDS", "choose_other_dates", "other_dates"]

#: The kinds of other dates: order reference, service period, delivery, referenced earlier
#: invoice, print stamp, a payment received (a small table under a date column).
KINDS = ("order", "period", "delivery", "reference", "printed", "payment")

# "of" after an order number ("Order no PO-12345 of 03/02/2024").
_OF = {"en": "of", "de": "vom", "fr": "du", "es": "del", "it": "del", "nl": "van", "pt": "de",
       "ms": "bertarikh"}  # fmt: skip
_PERIOD = {"en": ("Service period", "to"), "de": ("Leistungszeitraum", "bis"),
           "fr": ("Période de prestation", "au"), "es": ("Periodo de servicio", "al"),
           "it": ("Periodo di riferimento", "al"), "nl": ("Periode", "tot"),
           "pt": ("Período de referência", "a"),
           "ms": ("Tempoh perkhidmatan", "hingga")}  # fmt: skip
_DELIVERY = {"en": "Delivery date", "de": "Lieferdatum", "fr": "Date de livraison",
             "es": "Fecha de entrega", "it": "Data di consegna", "nl": "Leverdatum",
             "pt": "Data de entrega", "ms": "Tarikh penghantaran"}  # fmt: skip
_REFERENCE = {"en": "Original invoice date", "de": "Datum der Ursprungsrechnung",
              "fr": "Date de la facture d'origine", "es": "Fecha de la factura original",
              "it": "Data fattura originale", "nl": "Datum oorspronkelijke factuur",
              "pt": "Data da fatura original", "ms": "Tarikh invois asal"}  # fmt: skip
_PRINTED = {"en": ("Printed", "Page"), "de": ("Gedruckt am", "Seite"),
            "fr": ("Imprimé le", "Page"), "es": ("Impreso el", "Página"),
            "it": ("Stampato il", "Pagina"), "nl": ("Afgedrukt op", "Pagina"),
            "pt": ("Impresso em", "Página"), "ms": ("Dicetak pada", "Halaman")}  # fmt: skip
# The generic words a print stamp or a payments table uses: date, time, method.
_GENERIC = {"en": ("Date", "Time", "Bank transfer"), "de": ("Datum", "Zeit", "Überweisung"),
            "fr": ("Date", "Heure", "Virement"), "es": ("Fecha", "Hora", "Transferencia"),
            "it": ("Data", "Ora", "Bonifico"), "nl": ("Datum", "Tijd", "Overboeking"),
            "pt": ("Data", "Hora", "Transferência"),
            "ms": ("Tarikh", "Masa", "Pindahan bank")}  # fmt: skip


def choose_other_dates(rng: random.Random) -> tuple[str, ...]:
    """One to three kinds of :data:`KINDS`, in printing order (a tenth of invoices: none)."""
    if rng.random() < 0.1:
        return ()
    return tuple(rng.sample(KINDS, rng.randint(1, 3)))


def other_dates(
    kinds: tuple[str, ...],
    issued: dt.date,
    language: str,
    show: Callable[[dt.date], str],
    rng: random.Random,
) -> dict[str, str]:
    """The printed strings of ``kinds`` (extras: ``date_<kind>_label`` and ``date_<kind>``).

    Args:
        kinds: the kinds to print.
        issued: the invoice's issue date; the other dates fall around it.
        language: the document's language.
        show: prints a date as the document does.
        rng: the generator the dates are drawn from.
    """
    out: dict[str, str] = {}
    for kind in kinds:
        if kind == "order":
            day = issued - dt.timedelta(days=rng.randint(2, 60))
            # "PO-12345 of 03/02/2024" or "PO-12345 (03/02/2024)".
            of = f"{_OF[language]} {show(day)}"
            out["date_order"] = of if rng.random() < 0.6 else f"({show(day)})"
        elif kind == "period":
            end = issued.replace(day=1) - dt.timedelta(days=1)
            if rng.random() < 0.4:
                # A period that ends on the issue date, or one in the future.
                end = issued if rng.random() < 0.5 else issued + dt.timedelta(days=30)
            start = end.replace(day=1)
            label, to = _PERIOD[language]
            out["date_period_label"] = label
            out["date_period"] = f"{show(start)} {to} {show(end)}"
        elif kind == "delivery":
            day = issued - dt.timedelta(days=rng.randint(1, 14))
            out["date_delivery_label"] = _DELIVERY[language]
            out["date_delivery"] = show(day)
        elif kind == "reference":
            day = issued - dt.timedelta(days=rng.randint(20, 120))
            out["date_reference_label"] = _REFERENCE[language]
            out["date_reference"] = show(day)
        elif kind == "printed":
            day = issued + dt.timedelta(days=rng.randint(-3, 20))
            word, page = _PRINTED[language]
            date_word, time_word, _ = _GENERIC[language]
            clock = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
            out["date_printed"] = (
                f"{word} {show(day)} {clock} {page} 1"
                if rng.random() < 0.5
                # Labelled, every part takes its colon: "Datum: ... Zeit: ... Seite: 1".
                else f"{date_word}: {show(day)} {time_word}: {clock} {page}: 1"
            )
        elif kind == "payment":
            # A payments table: its date column is headed by the bare date word.
            day = issued + dt.timedelta(days=rng.randint(1, 40))
            date_word, _, method = _GENERIC[language]
            out["date_payment_label"] = date_word
            out["date_payment_method"] = method
            out["date_payment"] = show(day)
    return out
