"""Invoices rewritten as other PDF generators write theirs: a factory option that leaves every
seed's other sets as they were, and whose rewritten pages read like the printed ones."""

from __future__ import annotations

import io

import pikepdf
import pytest

from renderkit.browser import ChromiumPool
from renderkit.parsing import ParseLimits, read_document
from renderkit.parsing.synth import Variations, make_documents, render_document
from renderkit.parsing.synth.writers import WAYS, rewrite

from ._documents import text_pdf
from ._synth_options import drawn_invoices

LINES = ["Kessel Druck GmbH", "RECHNUNG", "Rechnungsnummer: RE-2024-118", "Gesamtbetrag 119,00"]


def test_pdf_writers_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices("pdf_writers", seed=70, count=40, drawn=lambda d: bool(d.layout.writer))
    for plain, written in pairs:
        assert not plain.layout.writer
        assert not written.layout.photo
        assert plain.truth()["expected"] == written.truth()["expected"]
    assert 10 <= len(pairs) <= 30


def test_every_way_is_drawn() -> None:
    docs = make_documents("invoice", 120, 71, Variations(pdf_writers=True))
    assert {d.layout.writer for d in docs} == {"", *WAYS}


@pytest.mark.parametrize("way", [w for w, turn in WAYS.items() if turn is not None])
def test_a_turned_page_is_turned_as_its_way_says(way: str) -> None:
    turn, rotate = WAYS[way] or (0, 0)
    with pikepdf.open(io.BytesIO(rewrite(text_pdf([LINES]), way))) as pdf:
        page = pdf.pages[0]
        assert int(page.obj.get("/Rotate", 0)) == rotate
        box = [float(v) for v in page.mediabox]
        assert box[2:] == ([842, 595] if turn in (90, 270) else [595, 842])


@pytest.mark.anyio
@pytest.mark.parametrize("way", [w for w, turn in WAYS.items() if turn is not None])
async def test_a_rewritten_page_reads_the_lines_of_the_printed_one(way: str) -> None:
    async def lines(pdf: bytes) -> list[str]:
        document = await read_document(pdf, "application/pdf", ocr=None, limits=ParseLimits())
        return [line.text for line in document.pages[0].lines]

    assert await lines(rewrite(text_pdf([LINES]), way)) == LINES


@pytest.mark.anyio
@pytest.mark.browser
async def test_an_unmapped_invoice_has_no_unicode_maps_left(pool: ChromiumPool) -> None:
    doc = next(
        d
        for d in make_documents("invoice", 200, 72, Variations(pdf_writers=True))
        if d.layout.writer == "unmapped"
    )
    _, _, pdf = await render_document(doc, pool)
    with pikepdf.open(io.BytesIO(pdf)) as document:
        fonts = [f for page in document.pages for f in page.Resources.Font.values()]
    assert fonts
    assert not any("/ToUnicode" in font for font in fonts)
