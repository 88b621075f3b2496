"""Business-letter invoices: a factory option that leaves every seed's other sets as they were
and prints the seller's details only in the return-address line and the footer's columns."""

from __future__ import annotations

import html as markup
import re

import pytest

from renderkit.browser import ChromiumPool
from renderkit.parsing.synth import Variations, make_documents, render_document
from renderkit.parsing.synth.render import invoice_html


def _visible(html: str) -> str:
    return re.sub(r"<style>.*?</style>", "", html, flags=re.S)


def test_letters_leave_a_seeds_documents_and_html_as_they_were_without_the_option() -> None:
    plain = make_documents("invoice", 30, 31)
    lettered = make_documents("invoice", 30, 31, Variations(letters=True))
    letters = 0
    for a, b in zip(plain, lettered, strict=True):
        truth = b.truth()
        # The same document: only its layout says it is a letter.
        assert truth["layout"].pop("letter", False) == b.layout.letter
        assert a.truth() == truth
        assert not a.layout.letter
        if b.layout.letter:
            letters += 1
        else:
            assert invoice_html(a) == invoice_html(b)
    # Three in four, drawn from a generator of the option's own.
    assert 15 <= letters <= 28


def test_a_letter_prints_the_sellers_address_in_one_small_line_and_its_details_in_columns() -> None:
    docs = make_documents("invoice", 30, 31, Variations(letters=True))
    for doc in (d for d in docs if d.layout.letter):
        html = _visible(invoice_html(doc))
        sender = " · ".join((doc.issuer.name, *doc.issuer.address.lines))
        assert f"<div class='sender'>{markup.escape(sender)}</div>" in html, doc.id
        footer = html.split("<footer class='columns'>", 1)[1]
        # The address, the contacts, the bank and the tax numbers: a column each.
        assert footer.count("</div></div><div>") >= 2, doc.id
        if doc.iban:
            assert doc.printed["iban"] in footer
        if doc.vat_id:
            assert doc.printed["vat_id"] in footer
        # The letterhead shows the name only: the street is printed in the window's
        # return address and the footer, nowhere else.
        assert html.count(markup.escape(doc.issuer.address.lines[0])) == 2, doc.id


@pytest.mark.anyio
@pytest.mark.browser
async def test_a_rendered_letter_keeps_every_printed_label_in_its_text_layer(
    pool: ChromiumPool,
) -> None:
    import pypdfium2

    docs = [d for d in make_documents("invoice", 8, 32, Variations(letters=True))]
    assert any(d.layout.letter for d in docs)
    for doc in docs:
        _, _, content = await render_document(doc, pool)
        pdf = pypdfium2.PdfDocument(content)
        try:
            text = "".join(str(page.get_textpage().get_text_range()) for page in pdf)
        finally:
            pdf.close()
        squeezed = "".join(text.split())
        for field, printed in doc.printed.items():
            assert "".join(printed.split()) in squeezed, (doc.id, field)
