"""Receipts from every locale: a factory option that leaves every seed's sets as they were."""

from __future__ import annotations

import re

from renderkit.parsing.synth import Variations
from renderkit.parsing.synth.build import make_documents
from renderkit.parsing.synth.render import receipt_lines


def test_receipts_from_every_locale_leave_a_seeds_other_choices_as_they_were() -> None:
    plain = make_documents("receipt", 40, 23, Variations(photos=True))
    every = make_documents("receipt", 40, 23, Variations(photos=True, every_locale=True))
    for a, b in zip(plain, every, strict=True):
        # The locale is drawn the same way: a Malaysian receipt is the same receipt.
        assert (a.layout.locale.name == "ms-MY") == (b.layout.locale.name == "ms-MY")
        if a.layout.locale.name == "ms-MY":
            assert a.truth() == b.truth()
    assert {d.layout.locale.name for d in plain} <= {"ms-MY", "en-GB", "en-US", "de-DE", "fr-FR"}


def test_receipts_from_every_locale_print_four_figure_post_codes_and_their_own_words() -> None:
    every = make_documents("receipt", 80, 23, Variations(every_locale=True))
    countries = {d.layout.locale.country for d in every}
    assert {"AT", "BE", "NL"} & countries
    four = [
        d
        for d in every
        if d.layout.locale.country in {"AT", "BE", "NL"}
        and any(re.match(r"\d{4}\b", line) for line in d.issuer.address.lines)
    ]
    assert four
    dutch = [d for d in every if d.layout.locale.language == "nl"]
    for doc in dutch:
        assert any(line.startswith("WISSELGELD") for line in receipt_lines(doc))
