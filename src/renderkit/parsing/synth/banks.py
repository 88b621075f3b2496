"""The seller's bank named beside its account, and at times the account's holder.

Real invoices name the bank that keeps the seller's account where they print its IBAN ("Bank:
Sparkasse Voramek", "Bankverbindung Volksbank Kestrel eG", a bank's name alone over the IBAN in
a letter's footer column), and some name the account's holder too ("Kontoinhaber: Voramek
GmbH"). A bank's name is a company's name, often with a legal form, printed among the seller's
own details and beside its identifiers: a decoy for the issuer, while the holder's line is the
seller once more. The option ``--bank-names`` (``Variations(bank_names=True)``) names the bank
on four invoices in five that print an IBAN, from a generator of its own (sets made without it
are unchanged): ``labelled`` after a bank label, ``alone`` on a line of its own, ``holder``
labelled and followed by the holder's line. Every bank is invented: a bank word of the
language around invented words, as savings banks, cooperative banks and credit unions are
named after their towns.
"""

from __future__ import annotations

import random
import re

from renderkit.parsing.synth import names

__all__ = ["STYLES", "bank_texts", "choose_bank"]

#: How the bank is named: after a label, alone on its line, or labelled with the holder's line.
STYLES = ("labelled", "alone", "holder")

#: Per language: bank names, "{P}" an invented town, "{S}" an invented word.
_NAMES: dict[str, tuple[str, ...]] = {
    "de": ("Sparkasse {P}", "Volksbank {P} eG", "Raiffeisenbank {P} eG", "{S}bank AG",
           "Kreissparkasse {P}", "Stadtsparkasse {P}", "{S} Privatbank KGaA"),
    "en": ("{S} Bank plc", "Bank of {P}", "{P} Savings Bank", "First {P} Bank",
           "{P} Building Society", "{S} Bank Ltd", "{P} Credit Union"),
    "fr": ("Banque {S}", "Crédit {S}", "Caisse d'Épargne de {P}", "Banque Populaire de {P}",
           "Crédit Mutuel de {P}", "{S} Banque SA"),
    "es": ("Banco {S}", "Banco de {P}", "Caja Rural de {P}", "Caixa {P}", "{S} Banco S.A."),
    "it": ("Banca {S}", "Banca Popolare di {P}", "Cassa di Risparmio di {P}", "Credito {S}",
           "Banca di Credito Cooperativo di {P}"),
    "nl": ("{S} Bank N.V.", "Spaarbank {P}", "Bank {S}", "{S} Bankiers N.V."),
    "pt": ("Banco {S}", "Caixa de Crédito Agrícola de {P}", "Banco {P} S.A.", "Caixa {S}"),
    "ms": ("BANK {S} BERHAD", "{S} BANK BHD", "BANK {S} ISLAM"),
}  # fmt: skip

#: Per language: the labels before the bank's name and before the account holder's.
_BANK_LABELS: dict[str, tuple[str, ...]] = {
    "de": ("Bank", "Bankverbindung", "Kreditinstitut"),
    "en": ("Bank", "Bank name", "Bankers"),
    "fr": ("Banque", "Domiciliation"),
    "es": ("Banco", "Entidad"),
    "it": ("Banca", "Istituto"),
    "nl": ("Bank",),
    "pt": ("Banco",),
    "ms": ("Bank", "Nama bank"),
}
_HOLDER_LABELS: dict[str, tuple[str, ...]] = {
    "de": ("Kontoinhaber",),
    "en": ("Account name", "Beneficiary"),
    "fr": ("Titulaire",),
    "es": ("Titular",),
    "it": ("Intestatario", "Beneficiario"),
    "nl": ("Ten name van", "Rekeninghouder"),
    "pt": ("Titular",),
    "ms": ("Nama akaun",),
}


def choose_bank(rng: random.Random) -> str:
    """How one invoice names its bank (``Layout.bank``): "" on one in five."""
    if rng.random() < 0.2:
        return ""
    return rng.choice(STYLES)


def bank_texts(style: str, language: str, holder: str, rng: random.Random) -> dict[str, str]:
    """The printed strings of ``style`` (see :data:`STYLES`) in ``language``: ``bank_name``
    and, unless the name stands alone, ``bank_label``; for ``holder`` also ``holder_label``
    and ``holder`` (the seller's name, as given)."""
    shape = rng.choice(_NAMES[language])

    def fill(slot: re.Match[str]) -> str:
        word = names.stem(rng, (2, 3))
        return word.upper() if language == "ms" else word

    texts = {"bank_name": re.sub(r"{([PS])}", fill, shape)}
    if style != "alone":
        texts["bank_label"] = rng.choice(_BANK_LABELS[language])
    if style == "holder":
        texts["holder_label"] = rng.choice(_HOLDER_LABELS[language])
        texts["holder"] = holder
    return texts
