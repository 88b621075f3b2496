"""Invoice letterheads that trip an issuer reader: what the issuer ranker must learn.

The factory's plain letterhead prints the seller's legal name in bold at the top, which any
rule reads. Real letterheads are often less kind, in a few general ways: the logo and the
header carry a trade name (the legal name without its legal form, or a short brand) while the
legal name with its form stands only in the footer's legal line; a slogan in big type stands
above the name; the buyer's address block is printed at the top, before the seller's. The
option ``--hard-issuers`` (``Variations(hard_issuers=True)``) draws one or two of them
per invoice; the truth's issuer stays the legal name. The draws use a generator of their own,
so sets made without the option are unchanged. Slogans are assembled from generic words in the
factory's languages: nothing is taken from any real document.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

__all__ = ["STYLES", "choose_issuer_style", "letterhead", "slogan", "trade_name"]

#: ``trade``: a trade name in the header, the legal name in the footer (and the seller block);
#: ``slogan``: a slogan in big type above the name; ``buyer_top``: the buyer's block printed
#: above the letterhead.
STYLES = ("trade", "slogan", "buyer_top")

# Two halves of a slogan per language: a quality and what it is about.
_SLOGANS = {
    "en": (("Quality", "Reliable", "Fast", "Friendly", "Trusted", "Precise"),
           ("service since {y}", "solutions for your business", "work, on time",
            "partners in every project", "craft and care")),
    "de": (("Qualität", "Zuverlässiger", "Schneller", "Freundlicher", "Ihr"),
           ("Service seit {y}", "Partner für Ihr Projekt", "Handwerk mit Herz",
            "Lösungen aus einer Hand")),
    "fr": (("Qualité", "Service", "Savoir-faire", "Votre partenaire"),
           ("depuis {y}", "au service de vos projets", "et confiance", "de proximité")),
    "es": (("Calidad", "Servicio", "Confianza", "Su socio"),
           ("desde {y}", "para su empresa", "en cada proyecto", "a su medida")),
    "it": (("Qualità", "Servizio", "Affidabilità", "Il vostro partner"),
           ("dal {y}", "per la vostra azienda", "in ogni progetto", "su misura")),
    "nl": (("Kwaliteit", "Service", "Vakmanschap", "Uw partner"),
           ("sinds {y}", "voor uw bedrijf", "in elk project", "op maat")),
    "pt": (("Qualidade", "Serviço", "Confiança", "O seu parceiro"),
           ("desde {y}", "para a sua empresa", "em cada projeto", "à medida")),
    "ms": (("Kualiti", "Perkhidmatan", "Dipercayai"),
           ("sejak {y}", "untuk perniagaan anda", "terbaik di bandar")),
}  # fmt: skip


def choose_issuer_style(rng: random.Random) -> tuple[str, ...]:
    """One or two of :data:`STYLES`, or none (a fifth of the documents keep the plain one)."""
    if rng.random() < 0.2:
        return ()
    first = rng.choice(STYLES)
    if rng.random() < 0.3:
        second = rng.choice([s for s in STYLES if s != first])
        return tuple(s for s in STYLES if s in (first, second))
    return (first,)


def trade_name(legal: str, forms: Sequence[str], rng: random.Random) -> str:
    """The name a letterhead shows instead of ``legal``: without its legal form (the longest
    of ``forms`` it ends with), sometimes only its first word, sometimes in capitals."""
    ends = [f for f in forms if legal.casefold().endswith(" " + f.casefold())]
    core = legal[: -len(max(ends, key=len)) - 1] if ends else legal
    words = core.split()
    if len(words) > 1 and rng.random() < 0.35:
        words = words[:1]
    name = " ".join(words).rstrip(" &")
    return name.upper() if rng.random() < 0.3 else name


def letterhead(
    styles: Sequence[str],
    legal: str,
    forms: Sequence[str],
    language: str,
    year: int,
    rng: random.Random,
) -> dict[str, str]:
    """The extras a letterhead of ``styles`` prints: ``trade_name``, ``slogan``,
    ``buyer_top`` (present when the buyer's block goes first)."""
    out: dict[str, str] = {}
    if "trade" in styles:
        out["trade_name"] = trade_name(legal, forms, rng)
    if "slogan" in styles:
        out["slogan"] = slogan(language, year, rng)
    if "buyer_top" in styles:
        out["buyer_top"] = "yes"
    return out


def slogan(language: str, year: int, rng: random.Random) -> str:
    """A generic slogan in ``language``."""
    quality, about = _SLOGANS.get(language, _SLOGANS["en"])
    return f"{rng.choice(quality)} {rng.choice(about).format(y=year)}"
