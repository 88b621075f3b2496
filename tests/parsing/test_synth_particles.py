"""Sellers' names with small words in lower case ("Au bon moulin SARL"): a factory option
that leaves every seed's other documents as they were, whose names end in their country's
legal form and print as the truth says."""

from __future__ import annotations

import html
import re

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.names import legal_forms
from renderkit.parsing.synth.render import invoice_html

from ._synth_options import drawn_invoices

_COUNTRIES = (
    "DE",
    "AT",
    "FR",
    "BE",
    "ES",
    "IT",
    "NL",
    "PT",
    "GB",
    "US",
    "MY",
    "CH",
    "IN",
    "AU",
    "CA",
)
_FORMS = {word for country in _COUNTRIES for form in legal_forms(country) for word in form.split()}


def _lower_words(name: str) -> list[str]:
    """The words of ``name`` in lower case that are no part of a legal form ("plc")."""
    return [w for w in name.split() if w.isalpha() and w.islower() and w not in _FORMS]


def test_particle_names_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices(
        "particle_names", seed=93, count=60, drawn=lambda d: bool(_lower_words(d.issuer.name))
    )
    for plain, particled in pairs:
        assert plain.issuer.name != particled.issuer.name
        assert plain.number == particled.number and plain.total == particled.total
    assert 15 <= len(pairs) <= 45


def test_a_particle_name_ends_in_its_countrys_form_and_is_printed_as_its_truth() -> None:
    docs = make_documents("invoice", 120, 94, Variations(particle_names=True))
    seen = 0
    for doc in (d for d in docs if _lower_words(d.issuer.name)):
        seen += 1
        name = doc.issuer.name
        assert any(name.endswith(f" {form}") for form in legal_forms(doc.layout.locale.country))
        assert doc.truth()["expected"]["issuer"] == name
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", invoice_html(doc))).split())
        assert name in text
    assert seen >= 30
