"""Sellers of every legal form the lexicon countries use (checked against cleanco's terms by
country), on a letter whose buyer is a company too: the seller is the issuer, with the
confidence of a name that ends in its form."""

from __future__ import annotations

import pytest

from renderkit.parsing._models import ParseRequest, ParseResult
from renderkit.parsing.extract.parties import legal_form_at_end, without_form
from renderkit.parsing.pipeline import parse

from ._documents import text_pdf


def _letter(seller: str) -> bytes:
    return text_pdf(
        [
            [
                seller,
                "Lindenweg 12, 10115 Berlin",
                "",
                "Globex Handel AG",
                "z. Hd. Frau Berger",
                "Hauptstr. 5",
                "80331 München",
                "",
                "RECHNUNG",
                "Rechnungsnr.: R-2024-117",
                "Datum: 03.04.2024",
                "Pos Beschreibung Menge Preis Betrag",
                "1 Beratung 2 100,00 200,00",
                "Nettobetrag 200,00 EUR",
                "MwSt 19% 38,00 EUR",
                "Gesamtbetrag 238,00 EUR",
                "",
                f"{seller} · Lindenweg 12 · 10115 Berlin · USt-IdNr. DE136695976",
            ]
        ]
    )


async def _issuer(seller: str) -> tuple[str, float]:
    result = await parse(ParseRequest.from_bytes(_letter(seller), "application/pdf"))
    assert isinstance(result, ParseResult)
    return result.data["company"], result.field_confidence["company"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    "form",
    [
        # Before: the buyer was taken for the issuer.
        "PartG mbB", "e.U.", "mbH",
        # Before: right, but no more sure of it than of a line without a form.
        "GbR", "GesbR", "gGmbH", "Sagl", "BVBA", "SPRL", "VZW", "ASBL", "SGPS", "PLLC",
        # Before: right, but a dotted form lost its dot in the footer, which split the name in
        # two candidates.
        "Pvt. Ltd.", "Pty. Ltd.", "Ltd.", "Inc.",
        # A form in small letters is no small word of the name.
        "e.K.",
    ],
)  # fmt: skip
async def test_a_seller_of_any_common_legal_form_is_the_issuer_and_sure(form: str) -> None:
    value, confidence = await _issuer(f"Voramek Tisch {form}")
    assert value == f"Voramek Tisch {form}"
    assert confidence >= 0.8


def test_a_name_without_its_form_is_what_the_small_words_are_counted_on() -> None:
    assert without_form("Voramek Tisch e.K.") == "Voramek Tisch"
    assert without_form("Au bon moulin SARL") == "Au bon moulin"
    assert without_form("Acme GmbH & Co. KG") == "Acme"
    assert without_form("Au bon moulin") == "Au bon moulin"
    assert legal_form_at_end("Voramek Tisch PartG mbB")
    assert not legal_form_at_end("Voramek Tisch")
