"""Invoices in letter-spaced type: a factory option that leaves every seed's other sets as they
were, and whose spaced titles and labels a text layer reads back as the words they spell."""

from __future__ import annotations

import re

import pytest

from renderkit.browser import ChromiumPool
from renderkit.parsing import ParseLimits, read_document
from renderkit.parsing.synth import Variations, make_documents, render_document
from renderkit.parsing.synth.render import invoice_html
from renderkit.parsing.synth.spacing import KINDS, typed

from ._synth_options import drawn_invoices


def test_spaced_type_leaves_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices("spaced_type", seed=50, count=40, drawn=lambda d: bool(d.layout.spaced))
    for plain, spaced in pairs:
        assert not plain.layout.spaced
        # The same document and truth: only the type is set apart.
        assert plain.truth()["expected"] == spaced.truth()["expected"]
        assert plain.extras == spaced.extras
    assert 26 <= len(pairs) <= 38


def test_each_kind_of_spacing_is_drawn_within_its_range() -> None:
    docs = make_documents("invoice", 80, 51, Variations(spaced_type=True))
    seen = set()
    for doc in (d for d in docs if d.layout.spaced):
        kind, em = doc.layout.spaced, doc.layout.spaced_em
        low, high = KINDS[kind]
        assert low <= em <= high, doc.id
        html = invoice_html(doc)
        if kind == "typed":
            assert f"<h1>{typed(doc.extras['title'])}</h1>" in html
        else:
            assert f"letter-spacing:{em}em" in html
        seen.add(kind)
    assert seen == set(KINDS)


def test_typing_puts_a_space_between_letters_and_three_between_words() -> None:
    assert typed("Tax Invoice") == "T a x   I n v o i c e"


@pytest.mark.anyio
@pytest.mark.browser
async def test_a_rendered_spaced_invoice_reads_its_title_and_values_whole(
    pool: ChromiumPool,
) -> None:
    docs = [
        d
        for d in make_documents("invoice", 24, 52, Variations(spaced_type=True))
        if d.layout.spaced and not d.layout.photo
    ]
    assert {d.layout.spaced for d in docs} == set(KINDS)
    for doc in docs:
        _, _, content = await render_document(doc, pool)
        document = await read_document(content, "application/pdf", ocr=None, limits=ParseLimits())
        words = {w.text for page in document.pages for w in page.words}
        title = (
            doc.extras["title"].upper() if doc.layout.spaced == "labels" else doc.extras["title"]
        )
        assert set(title.split()) <= words, (doc.id, doc.layout.spaced)
        total = doc.printed["total"]
        # The total reads as it is printed, its figures one word (a currency sign may be its own).
        assert all(part in words for part in re.split(r"\s+", total) if len(part) > 1), doc.id
