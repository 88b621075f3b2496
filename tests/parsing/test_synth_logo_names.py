"""Invoices whose letterhead prints the seller's name only inside the logo image: a factory
option that leaves every seed's other sets as they were."""

from __future__ import annotations

import html
import re

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.render import invoice_html

from ._synth_options import drawn_invoices


def _text(page: str) -> str:
    """The page's text, as a text layer holds it (no styles, no image data)."""
    page = re.sub(r"<style>.*?</style>|<img [^>]*>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_logo_names_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices("logo_names", seed=34, count=30, drawn=lambda d: d.layout.name_in_logo)
    for plain, pictured in pairs:
        assert not plain.layout.name_in_logo
        assert pictured.layout.logo == "image"
    assert 10 <= len(pairs) <= 26


def test_a_name_in_the_logo_is_printed_as_text_only_below_the_letterhead() -> None:
    docs = make_documents("invoice", 30, 34, Variations(logo_names=True))
    for doc in (d for d in docs if d.layout.name_in_logo):
        page = invoice_html(doc)
        header = page.split("<header>", 1)[1].split("</header>", 1)[0]
        assert doc.issuer.name not in _text(header)
        assert '<img src="data:image/png;base64,' in header
        # The legal line of the footer still names the seller.
        assert doc.issuer.name in _text(page.split("</header>", 1)[1])
