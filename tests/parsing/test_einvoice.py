from __future__ import annotations

from typing import Any

import anyio
import pytest

from renderkit.parsing import ParseRequest, parse
from renderkit.parsing.einvoice._xml import XmlRefusedError, parse_xml
from renderkit.parsing.einvoice.ubl import read_ubl

from ._einvoices import (
    BILLION_LAUGHS,
    CREDIT_NOTE,
    FACTURX,
    UBL,
    XXE,
    ZUGFERD1,
    pdf_with_attachments,
)

pytestmark = pytest.mark.anyio

PDF = "application/pdf"


async def _parse(content: bytes, **kwargs: Any) -> Any:
    schema = kwargs.pop("schema", None)
    with anyio.fail_after(10):
        return await parse(ParseRequest.from_bytes(content, PDF, schema=schema), **kwargs)


async def test_factur_x_invoice_is_read_exactly_from_its_embedded_xml() -> None:
    result = await _parse(pdf_with_attachments(("factur-x.xml", FACTURX)))

    assert result.extractor == "embedded-xml"
    assert result.document_type == "invoice"
    assert result.data == {
        "issuer": "Nordlicht Werkzeuge GmbH",
        "invoice_number": "NW-2024-0815",
        "date": "2024-03-15",
        "due_date": "2024-03-29",
        "total": 494.68,
        "subtotal": 415.70,
        "tax": 78.98,
        "currency": "EUR",
        "vat_id": "DE298765431",
        "iban": "DE44500105175407324931",
        "customer": "Bauhof Ostsee eG",
        "address": "Hafenstraße 7, 24103 Kiel, DE",
        "line_items": [
            {
                "description": 'Drehmomentschlüssel 1/2" Profi',
                "quantity": 3,
                "unit_price": 89.9,
                "amount": 269.7,
            },
            {
                "description": "Schrauben M6, Edelstahl",
                "quantity": 400,
                "unit_price": 0.125,
                "amount": 50.0,
            },
            {
                "description": "Montage vor Ort (Stunden)",
                "quantity": 1.5,
                "unit_price": 64,
                "amount": 96.0,
            },
        ],
    }
    assert result.confidence == 1.0
    assert result.warnings == ()


async def test_zugferd_1_invoice_takes_the_first_due_date_and_the_tax_in_invoice_currency() -> None:
    result = await _parse(pdf_with_attachments(("ZUGFeRD-invoice.xml", ZUGFERD1)))

    assert result.extractor == "embedded-xml"
    data = result.data
    assert (data["issuer"], data["invoice_number"], data["customer"]) == (
        "Atelier Lumière SARL",
        "AL/0042",
        "Café des Arts",
    )
    assert (data["date"], data["due_date"]) == ("2023-11-30", "2023-12-30")
    assert (data["subtotal"], data["tax"], data["total"]) == (1250.0, 250.0, 1500.0)
    assert (data["vat_id"], data["iban"]) == ("FR61123456789", "FR7630006000011234567890189")
    assert data["line_items"] == [
        {
            "description": "Lampe d'atelier en laiton",
            "quantity": 2,
            "unit_price": 625,
            "amount": 1250.0,
        }
    ]
    assert "address" not in data


async def test_ubl_invoice_is_read_exactly_under_any_xml_file_name() -> None:
    result = await _parse(pdf_with_attachments(("invoice-HLS-7781.xml", UBL)))

    assert result.extractor == "embedded-xml"
    assert result.data == {
        "issuer": "Harbour Lane Software Ltd",
        "invoice_number": "HLS-7781",
        "date": "2024-06-03",
        "due_date": "2024-07-03",
        "total": 2880.0,
        "subtotal": 2400.0,
        "tax": 480.0,
        "currency": "GBP",
        "vat_id": "GB123456789",
        "iban": "GB29NWBK60161331926819",
        "customer": "Kestrel Analytics BV",
        "address": "3 Harbour Lane, BS1 4RN Bristol, GB",
        "line_items": [
            {
                "description": "Annual licence, analytics suite",
                "quantity": 1,
                "unit_price": 1200,
                "amount": 1200.0,
            },
            {"description": "Consulting", "quantity": 7.5, "unit_price": 160, "amount": 1200.0},
        ],
    }


def test_ubl_credit_note_keeps_negative_amounts_and_ignores_an_account_that_is_no_iban() -> None:
    invoice = read_ubl(parse_xml(CREDIT_NOTE.encode()))

    assert (invoice.invoice_number, invoice.issuer) == ("CN-19", "Molino Verde")
    assert (invoice.date, invoice.due_date) == ("2024-02-01", "2024-02-15")
    assert (invoice.subtotal, invoice.total, invoice.tax) == ("-40.00", "-48.80", None)
    assert invoice.iban is None
    assert [line.to_dict() for line in invoice.line_items] == [
        {"description": "Farina di semola, reso", "quantity": 8, "unit_price": -5, "amount": -40.0}
    ]


async def test_a_schema_is_filled_from_the_xml_by_name_and_by_concept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "vendor": {"type": "string"},
            "invoiceNumber": {"type": "string"},
            "dueDate": {"type": "string", "format": "date"},
            "grand_total": {"type": "number"},
            "net": {"type": "string", "description": "the subtotal before tax"},
            "iban": {"type": "string"},
            "line_items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"description": {"type": "string"}},
                },
            },
            "delivery_note": {"type": "string"},
        },
    }

    result = await _parse(pdf_with_attachments(("factur-x.xml", FACTURX)), schema=schema)

    assert result.extractor == "embedded-xml"
    data = result.data
    assert list(data) == list(schema["properties"])
    assert data["vendor"] == "Nordlicht Werkzeuge GmbH"
    assert data["invoiceNumber"] == "NW-2024-0815"
    assert data["dueDate"] == "2024-03-29"
    assert data["grand_total"] == 494.68
    assert data["net"] == "415.70"
    assert data["iban"] == "DE44500105175407324931"
    assert [item["quantity"] for item in data["line_items"]] == [3, 400, 1.5]
    assert data["delivery_note"] is None
    assert any(w.startswith("delivery_note:") for w in result.warnings)
    assert result.confidence < 1.0


async def test_standard_attachment_name_is_preferred_over_another_xml() -> None:
    content = pdf_with_attachments(("aaa-copy.xml", UBL), ("factur-x.xml", FACTURX))

    result = await _parse(content)

    assert result.data["invoice_number"] == "NW-2024-0815"


@pytest.mark.parametrize(
    "xml",
    [
        pytest.param(FACTURX[: len(FACTURX) // 2], id="truncated"),
        pytest.param("<settings><theme>dark</theme></settings>", id="not-an-invoice"),
        pytest.param(BILLION_LAUGHS, id="billion-laughs"),
        pytest.param(XXE, id="external-entity"),
    ],
)
async def test_unusable_xml_falls_back_to_the_page_with_a_warning(xml: str) -> None:
    result = await _parse(pdf_with_attachments(("factur-x.xml", xml)))

    assert result.extractor == "local"
    assert any("factur-x.xml" in w for w in result.warnings)
    assert "NW-2024-0815" not in str(result.data)


async def test_embedded_xml_false_reads_the_page_even_when_an_invoice_xml_is_attached() -> None:
    content = pdf_with_attachments(
        ("factur-x.xml", FACTURX), page=["INVOICE", "Invoice No: PAGE-1", "Total: 10.00 EUR"]
    )

    result = await _parse(content, embedded_xml=False)

    assert result.extractor == "local"
    assert "NW-2024-0815" not in str(result.data)
    assert not any("XML" in w for w in result.warnings)


async def test_pdf_without_attachments_is_read_as_before() -> None:
    result = await _parse(pdf_with_attachments(page=["INVOICE", "Total: 10.00 EUR"]))

    assert result.extractor == "local"


@pytest.mark.parametrize(
    "xml", [pytest.param(BILLION_LAUGHS, id="billion-laughs"), pytest.param(XXE, id="xxe")]
)
def test_xml_with_a_dtd_is_refused_before_any_entity_is_expanded(xml: str) -> None:
    with pytest.raises(XmlRefusedError):
        parse_xml(xml.encode())


def test_oversized_xml_is_refused_unread() -> None:
    with pytest.raises(XmlRefusedError):
        parse_xml(b"<a>" + b" " * 5_000_000 + b"</a>")
