"""A text layer whose fonts map their glyphs to no text (no ToUnicode map: the "text" is glyph
numbers, pasting as garbage) is not read; the page is read by OCR instead."""

from __future__ import annotations

import io

import pikepdf
import pytest

from renderkit import InvalidRequestError
from renderkit.browser import ChromiumPool
from renderkit.parsing import ParseLimits, read_document
from renderkit.parsing.readers.ocr import ocr_engine
from renderkit.parsing.synth import make_documents, render_document
from renderkit.parsing.synth.documents import SynthDocument


def _without_unicode_maps(pdf: bytes) -> bytes:
    with pikepdf.open(io.BytesIO(pdf)) as document:
        for page in document.pages:
            for font in page.Resources.get("/Font", {}).values():
                if "/ToUnicode" in font:
                    del font["/ToUnicode"]
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()


async def _invoice(pool: ChromiumPool) -> tuple[SynthDocument, bytes]:
    doc = next(
        d
        for d in make_documents("invoice", 12, 61)
        if isinstance(d, SynthDocument) and not d.layout.photo and not d.layout.carried
    )
    _, _, pdf = await render_document(doc, pool)
    return doc, pdf


@pytest.mark.anyio
@pytest.mark.browser
async def test_a_page_of_glyph_numbers_is_read_by_ocr(pool: ChromiumPool) -> None:
    doc, pdf = await _invoice(pool)
    garbled = _without_unicode_maps(pdf)
    read = await read_document(
        garbled, "application/pdf", ocr=ocr_engine(), limits=ParseLimits(ocr_dpi=200)
    )
    assert read.pages[0].source == "ocr"
    assert doc.number in read.text
    # The same PDF with its maps keeps its text layer.
    plain = await read_document(pdf, "application/pdf", ocr=None, limits=ParseLimits())
    assert plain.pages[0].source == "text"
    assert doc.number in plain.text


@pytest.mark.anyio
@pytest.mark.browser
async def test_without_ocr_a_page_of_glyph_numbers_is_refused_not_read(
    pool: ChromiumPool,
) -> None:
    _, pdf = await _invoice(pool)
    with pytest.raises(InvalidRequestError) as exc:
        await read_document(
            _without_unicode_maps(pdf), "application/pdf", ocr=None, limits=ParseLimits()
        )
    assert exc.value.errors[0].field == "file"
    assert "readable text layer" in str(exc.value)
