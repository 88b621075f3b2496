"""Pages whose text is turned in the PDF's own space read like the upright page: turned back
for display by ``/Rotate``, drawn sideways onto a portrait page, or upright under a stray
``/Rotate``."""

from __future__ import annotations

import base64

import pytest

from renderkit.parsing import ParseLimits, read_document
from renderkit.parsing.pipeline import parse

from ._documents import text_pdf

LINES = [
    "Kessel Druck GmbH",
    "RECHNUNG",
    "Rechnungsnummer: RE-2024-118",
    "Rechnungsdatum: 03.03.2024",
    "Zwischensumme 100,00 EUR",
    "MwSt. 19 % 19,00 EUR",
    "Gesamtbetrag 119,00 EUR",
]

# (content turned counter-clockwise, /Rotate): each shows the page upright, or (the stray
# /Rotate) turns an upright page for display only.
TURNS = [(90, 90), (180, 180), (270, 270), (90, 0), (0, 90)]


async def _lines(pdf: bytes) -> list[tuple[str, tuple[float, ...]]]:
    document = await read_document(pdf, "application/pdf", ocr=None, limits=ParseLimits())
    page = document.pages[0]
    return [(line.text, tuple(round(v, 3) for v in line.bbox)) for line in page.lines]


@pytest.mark.anyio
@pytest.mark.parametrize(("turn", "rotate"), TURNS)
async def test_a_turned_page_reads_its_lines_whole_where_the_upright_page_has_them(
    turn: int, rotate: int
) -> None:
    upright = await _lines(text_pdf([LINES]))
    turned = await _lines(text_pdf([LINES], turn=turn, rotate=rotate))
    assert [text for text, _ in turned] == LINES
    assert turned == upright


@pytest.mark.anyio
async def test_a_page_turned_back_by_its_rotate_is_sized_as_it_reads() -> None:
    pdf = text_pdf([LINES], turn=90, rotate=90)
    document = await read_document(pdf, "application/pdf", ocr=None, limits=ParseLimits())
    page = document.pages[0]
    assert (round(page.width), round(page.height)) == (595, 842)


@pytest.mark.anyio
@pytest.mark.parametrize(("turn", "rotate"), TURNS)
async def test_a_turned_invoice_parses_to_the_upright_invoices_fields(
    turn: int, rotate: int
) -> None:
    async def fields(pdf: bytes) -> dict[str, object]:
        result = await parse(
            {"file": base64.b64encode(pdf).decode(), "mimeType": "application/pdf"}
        )
        return dict(result.data)

    upright = await fields(text_pdf([LINES]))
    assert upright["total"] == 119.0
    assert await fields(text_pdf([LINES], turn=turn, rotate=rotate)) == upright
