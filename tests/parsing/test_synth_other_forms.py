"""Sellers and buyers of less common legal forms ("Voramek GbR", "Kestrel Tisch e.U."): a
factory option that leaves every seed's other documents as they were, whose names end in a
form of their country that the parser's lexicon knows, printed as the truth says."""

from __future__ import annotations

import html
import re

from renderkit.parsing.extract.parties import legal_form_at_end
from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.documents import SynthDocument
from renderkit.parsing.synth.names import legal_forms, other_forms
from renderkit.parsing.synth.render import invoice_html

from ._synth_options import drawn_invoices


def _other(name: str, country: str) -> bool:
    return any(name.endswith(f" {form}") for form in other_forms(country)) and not any(
        name.endswith(f" {form}") for form in legal_forms(country)
    )


def _drawn(doc: SynthDocument) -> bool:
    country = doc.layout.locale.country
    return _other(doc.issuer.name, country) or (
        doc.buyer is not None and _other(doc.buyer.name, country)
    )


def test_other_forms_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices("other_forms", seed=95, count=60, drawn=_drawn)
    for plain, formed in pairs:
        assert (plain.issuer.name, plain.buyer) != (formed.issuer.name, formed.buyer)
        assert plain.number == formed.number and plain.total == formed.total
    assert 20 <= len(pairs) <= 55


def test_an_other_form_is_one_the_lexicon_knows_and_is_printed_as_its_truth() -> None:
    docs = make_documents("invoice", 120, 96, Variations(other_forms=True))
    sellers = [d for d in docs if _other(d.issuer.name, d.layout.locale.country)]
    for doc in sellers:
        name = doc.issuer.name
        assert legal_form_at_end(name), name
        assert doc.truth()["expected"]["issuer"] == name
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", invoice_html(doc))).split())
        assert name in text
    assert len(sellers) >= 30


def test_the_other_forms_are_none_of_the_usual_ones() -> None:
    for country in ("DE", "AT", "CH", "FR", "BE", "ES", "IT", "NL", "PT", "GB", "US", "IN", "AU",
                    "CA"):  # fmt: skip
        usual = legal_forms(country)
        assert other_forms(country)
        assert not [f for f in other_forms(country) for u in usual if f" {f}".endswith(f" {u}")]
