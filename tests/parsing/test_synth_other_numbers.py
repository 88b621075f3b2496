"""Invoices that print other numbers beside their own: a factory option that leaves every
seed's other sets as they were, and whose numbers are decoys, never fields of the truth."""

from __future__ import annotations

import html
import re

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.other_numbers import KINDS, WORDS
from renderkit.parsing.synth.render import invoice_html

from ._synth_options import drawn_invoices


def test_other_numbers_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices(
        "other_numbers", seed=40, count=40, drawn=lambda d: bool(d.layout.other_numbers)
    )
    for plain, numbered in pairs:
        assert not plain.layout.other_numbers
        assert plain.truth()["expected"] == numbered.truth()["expected"]
    assert 20 <= len(pairs) <= 38


def test_other_numbers_print_under_local_labels_among_the_documents_own() -> None:
    docs = make_documents("invoice", 60, 41, Variations(other_numbers=True))
    seen: set[str] = set()
    first = 0
    for doc in (d for d in docs if d.layout.other_numbers):
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", invoice_html(doc))).split())
        for kind in doc.layout.other_numbers:
            label, value = doc.extras[f"number_{kind}_label"], doc.extras[f"number_{kind}"]
            assert label in WORDS[doc.layout.locale.language][kind]
            assert f"{label}: {value}" in text
            assert value != doc.number
            seen.add(kind)
        numbers = [doc.extras[f"number_{k}"] for k in doc.layout.other_numbers]
        first += min(text.index(n) for n in numbers) < text.index(doc.number)
    assert seen == set(KINDS)
    # Some stand before the invoice's own number, as on real pages.
    assert first >= 3
