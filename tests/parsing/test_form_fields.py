"""A filled-in PDF form reads its fields' values, and notes typed onto a page read too: they
are drawn from the annotations' own appearance streams, outside the page's text, so the page
is flattened before it is read."""

from __future__ import annotations

import base64

import pytest

from renderkit.parsing import ParseLimits, read_document
from renderkit.parsing.pipeline import parse

from ._documents import form_pdf

ROWS = [
    ("Kessel Druck GmbH", ""),
    ("RECHNUNG", ""),
    ("Rechnungsnummer:", "RE-2024-118"),
    ("Rechnungsdatum:", "03.03.2024"),
    ("Zwischensumme", "100,00 EUR"),
    ("MwSt. 19 %", "19,00 EUR"),
    ("Gesamtbetrag", "119,00 EUR"),
]


@pytest.mark.anyio
async def test_a_filled_in_fields_value_reads_beside_its_label() -> None:
    document = await read_document(
        form_pdf(ROWS), "application/pdf", ocr=None, limits=ParseLimits()
    )
    rows = {}
    for line in document.pages[0].lines:
        top = round(line.bbox[1], 2)
        rows.setdefault(top, []).append(line)
    texts = [
        " ".join(ln.text for ln in sorted(row, key=lambda ln: ln.bbox[0])) for row in rows.values()
    ]
    assert "Rechnungsnummer: RE-2024-118" in texts
    assert "Gesamtbetrag 119,00 EUR" in texts


@pytest.mark.anyio
async def test_a_filled_in_invoice_form_parses_its_fields() -> None:
    pdf = form_pdf(ROWS)
    result = await parse({"file": base64.b64encode(pdf).decode(), "mimeType": "application/pdf"})
    assert result.document_type == "invoice"
    assert result.data["number"] == "RE-2024-118"
    assert result.data["total"] == 119.0
    assert result.data["tax"] == 19.0


@pytest.mark.anyio
async def test_notes_typed_onto_a_page_without_a_form_read_and_links_change_nothing() -> None:
    pdf = form_pdf(ROWS, form=False)
    result = await parse({"file": base64.b64encode(pdf).decode(), "mimeType": "application/pdf"})
    assert result.data["number"] == "RE-2024-118"
    assert result.data["total"] == 119.0
