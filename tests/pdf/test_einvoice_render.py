"""Rendered e-invoices: a Factur-X PDF/A-3b that carries its XML and reads back exactly."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from pypdf import PdfReader
from pypdf.generic import IndirectObject

from renderkit import InvalidRequestError, render_pdf
from renderkit.browser import ChromiumPool
from renderkit.parsing import ParseRequest, parse
from renderkit.pdf._templates import invoice_totals
from renderkit.testing import FakeBrowser

from ._einvoice_data import SAMPLE, sample

pytestmark = pytest.mark.anyio


def _resolved(value: Any) -> Any:
    return value.get_object() if isinstance(value, IndirectObject) else value


def _fonts(reader: PdfReader) -> list[Any]:
    fonts = []
    for page in reader.pages:
        resources = _resolved(page.get("/Resources")) or {}
        for font in (_resolved(resources.get("/Font")) or {}).values():
            font = _resolved(font)
            for descendant in font.get("/DescendantFonts", []):
                fonts.append(_resolved(descendant))
            if font.get("/Subtype") != "/Type0":
                fonts.append(font)
    return fonts


@pytest.mark.browser
async def test_a_factur_x_invoice_is_a_pdf_a_3b_carrying_its_xml(pool: ChromiumPool) -> None:
    result = await render_pdf(SAMPLE, browser=pool)
    reader = PdfReader(io.BytesIO(result.content))
    root = reader.trailer["/Root"]

    assert result.format == "pdf"
    assert (result.einvoice, result.einvoice_profile) == ("factur-x", "en16931")
    assert result.einvoice_checks == ("xsd", "schematron-en16931")
    assert not reader.is_encrypted
    # The output intent: PDF/A, sRGB, with the ICC profile embedded.
    (intent,) = [_resolved(i) for i in root["/OutputIntents"]]
    assert intent["/S"] == "/GTS_PDFA1"
    icc = _resolved(intent["/DestOutputProfile"])
    assert icc["/N"] == 3
    assert icc.get_data()[36:40] == b"acsp"  # the ICC signature
    # XMP: PDF/A-3 level B and the Factur-X extension naming the attachment.
    xmp = _resolved(root["/Metadata"]).get_data().decode()
    assert re.search(r"pdfaid:part[^0-9]*3", xmp)
    assert re.search(r"pdfaid:conformance[^A-Z]*B", xmp)
    assert "factur-x.xml" in xmp
    assert "EN 16931" in xmp
    # The attachment: named, related to the document as its alternative.
    (filespec,) = [_resolved(f) for f in root["/AF"]]
    assert filespec["/F"] == "factur-x.xml"
    assert filespec["/AFRelationship"] == "/Alternative"
    embedded = _resolved(filespec["/EF"]["/F"]).get_data()
    assert embedded == result.einvoice_xml
    # Chromium embeds every font it prints with.
    fonts = _fonts(reader)
    assert fonts
    for font in fonts:
        descriptor = _resolved(font["/FontDescriptor"])
        assert {"/FontFile", "/FontFile2", "/FontFile3"} & set(descriptor)
    assert root["/Lang"] == "de-DE"


@pytest.mark.browser
async def test_parse_reads_the_factur_x_invoice_back_exactly(pool: ChromiumPool) -> None:
    result = await render_pdf(SAMPLE, browser=pool)

    parsed = await parse(ParseRequest.from_bytes(result.content, "application/pdf"))

    data = SAMPLE["data"]
    totals = invoice_totals(data["line_items"], currency="EUR", tax_rate=19, discount=25)
    assert parsed.extractor == "embedded-xml"
    assert parsed.data == {
        "issuer": "Nordlicht Werkzeuge GmbH",
        "invoice_number": "NW-2026-0815",
        "date": "2026-03-02",
        "due_date": "2026-04-01",
        "total": 1619.73,
        "subtotal": 1376.5,
        "tax": 243.23,
        "currency": "EUR",
        "vat_id": "DE123456789",
        "iban": "DE89370400440532013000",
        "customer": "Hafenbau Kiel AG",
        "address": "Werftstraße 12, 24143 Kiel, DE",
        "line_items": [
            {
                "description": "Drehmomentschlüssel 40-200 Nm",
                "quantity": 4,
                "unit_price": 189.9,
                "amount": 759.6,
            },
            {"description": "Montage vor Ort", "quantity": 6.5, "unit_price": 78, "amount": 507.0},
            {
                "description": "Fachbuch Schweißtechnik",
                "quantity": 2,
                "unit_price": 49.95,
                "amount": 99.9,
            },
            {
                "description": "Versicherung des Transports",
                "quantity": 1,
                "unit_price": 35,
                "amount": 35.0,
            },
        ],
    }
    assert float(totals.total) == parsed.data["total"]  # the page prints the same calculation


@pytest.mark.browser
async def test_the_page_prints_the_numbers_the_xml_states(pool: ChromiumPool) -> None:
    result = await render_pdf(SAMPLE, browser=pool)

    parsed = await parse(
        ParseRequest.from_bytes(result.content, "application/pdf"), embedded_xml=False
    )

    assert parsed.data["total"] == 1619.73


async def test_xrechnung_answers_with_the_xml_without_printing() -> None:
    browser = FakeBrowser()

    result = await render_pdf(sample(einvoice="xrechnung"), browser=browser)

    assert result.format == "xml"
    assert result.content_type == "application/xml"
    assert result.filename == "invoice-NW-2026-0815.xml"
    assert result.pages == 0
    assert result.einvoice_checks == ("xsd", "schematron-en16931", "xrechnung-br-de")
    assert result.content.startswith(b"<?xml")
    assert b"xrechnung_3.0" in result.content
    assert browser.renders == []


async def test_a_refused_e_invoice_names_the_field_and_costs_no_render() -> None:
    browser = FakeBrowser()
    request = sample()
    del request["data"]["buyer"]["country"]

    with pytest.raises(InvalidRequestError) as caught:
        await render_pdf(request, browser=browser)

    assert [e.field for e in caught.value.errors] == ["data.buyer.country"]
    assert browser.renders == []


async def test_zugferd_is_embedded_with_the_fake_browser_too() -> None:
    result = await render_pdf(sample(einvoice="zugferd"), browser=FakeBrowser())

    # The fake's PDF has two revisions (render_pdf appends the metadata): the output intent
    # must number its objects after the last one and keep the document information.
    reader = PdfReader(io.BytesIO(result.content), strict=True)
    assert reader.attachments["factur-x.xml"] == [result.einvoice_xml]
    assert reader.metadata is not None
    assert reader.metadata.author == "Nordlicht Werkzeuge GmbH"
    assert reader.metadata.producer == "renderkit (Chromium)"
    intent = _resolved(reader.trailer["/Root"]["/OutputIntents"][0])
    assert _resolved(intent["/DestOutputProfile"]).get_data()[36:40] == b"acsp"
