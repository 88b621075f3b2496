"""The other numbers an invoice prints beside its own: customer, delivery note, contract, the
seller's tax or company registration, the page.

Real invoices print them in the same block as the invoice number, often before it and in a
similar shape ("Kundennummer 10234", "Lieferschein LS-2024-0012", "Steuernummer
12/345/67890", "Page 1 / 2"), under wordings the lexicons know and wordings they do not. The
option ``--other-numbers`` (``Variations(other_numbers=True)``) draws them from a
generator of their own, so sets made without it are unchanged; none is a field of the truth:
each is a decoy for the invoice number (and the tax or registration number for the VAT id).
"""

from __future__ import annotations

import random

__all__ = ["KINDS", "WORDS", "choose_other_numbers", "other_numbers"]

#: The other numbers an invoice may print.
KINDS = ("customer", "delivery_note", "contract", "registration", "page")

#: Per language and kind: the labels printed before the number.
WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"customer": ("Customer No", "Account no", "Client ref"),
           "delivery_note": ("Delivery note", "Despatch note no"),
           "contract": ("Contract no", "Agreement ref"),
           "registration": ("Company reg. no", "Registered no"), "page": ("Page",)},
    "de": {"customer": ("Kundennummer", "Kunden-Nr.", "Debitor"),
           "delivery_note": ("Lieferschein-Nr.", "Lieferschein"),
           "contract": ("Vertragsnummer", "Vertrag"),
           "registration": ("Steuernummer", "St.-Nr.", "HRB"), "page": ("Seite",)},
    "fr": {"customer": ("N° client", "Code client"),
           "delivery_note": ("Bon de livraison", "BL n°"), "contract": ("N° de contrat",),
           "registration": ("SIRET", "RCS"), "page": ("Page",)},
    "es": {"customer": ("Nº cliente", "Código cliente"),
           "delivery_note": ("Albarán", "Nº albarán"), "contract": ("Nº contrato",),
           "registration": ("Registro Mercantil",), "page": ("Página",)},
    "it": {"customer": ("Codice cliente",),
           "delivery_note": ("DDT n.", "Documento di trasporto"), "contract": ("Contratto n.",),
           "registration": ("REA", "Codice fiscale"), "page": ("Pagina",)},
    "nl": {"customer": ("Klantnummer",), "delivery_note": ("Pakbon", "Leveringsbon"),
           "contract": ("Contractnummer",), "registration": ("KvK", "KvK-nummer"),
           "page": ("Pagina",)},
    "pt": {"customer": ("Nº cliente",), "delivery_note": ("Guia de remessa",),
           "contract": ("Contrato n.º",), "registration": ("Registo comercial",),
           "page": ("Página",)},
    "ms": {"customer": ("No pelanggan", "No akaun"), "delivery_note": ("Nota penghantaran",),
           "contract": ("No kontrak",), "registration": ("No syarikat",),
           "page": ("Muka surat",)},
}  # fmt: skip


def choose_other_numbers(rng: random.Random) -> tuple[str, ...]:
    """The other numbers one invoice prints (``Layout.other_numbers``), none on one in four."""
    if rng.random() < 0.25:
        return ()
    return tuple(sorted(rng.sample(KINDS, rng.randint(1, 3)), key=KINDS.index))


def other_numbers(
    kinds: tuple[str, ...], language: str, country: str, year: int, rng: random.Random
) -> dict[str, str]:
    """Each of ``kinds`` printed: ``number_<kind>_label`` and ``number_<kind>`` extras."""
    n = rng.randint
    shapes = {
        "customer": (f"{n(10000, 99999)}", f"K{n(1000, 99999)}", f"C-{n(100, 9999):04d}",
                     f"{year % 100:02d}{n(1000, 9999)}"),
        "delivery_note": (f"LS-{year}-{n(100, 9999):04d}", f"DN{n(10000, 99999)}",
                          f"{year}/{n(100, 999)}"),
        "contract": (f"V-{year - n(1, 5)}-{n(10, 999):03d}", f"CT{n(100000, 999999)}"),
        "registration": _registration(country, rng),
        "page": (f"1 / {n(1, 3)}", f"1 of {n(1, 3)}"),
    }  # fmt: skip
    out: dict[str, str] = {}
    for kind in kinds:
        out[f"number_{kind}_label"] = rng.choice(WORDS[language][kind])
        out[f"number_{kind}"] = rng.choice(shapes[kind])
    return out


def _registration(country: str, rng: random.Random) -> tuple[str, ...]:
    n = rng.randint
    if country == "DE":
        return (f"{n(10, 99)}/{n(100, 999)}/{n(10000, 99999)}", f"HRB {n(1000, 99999)}")
    if country == "FR":
        return (f"{n(100, 999)} {n(100, 999)} {n(100, 999)} {n(10000, 99999)}",)
    return (f"{n(1000000, 9999999):08d}", f"{n(100, 999)}/{n(1000, 9999)}")
