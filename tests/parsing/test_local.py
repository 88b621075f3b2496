from __future__ import annotations

import pytest

from renderkit import InvalidRequestError
from renderkit.parsing import FieldProvenance, Usage, classify
from renderkit.parsing._models import ParseRequest, ParseResult
from renderkit.parsing.extract.values import find_amounts, normalise_amount, parse_date
from renderkit.parsing.pipeline import parse

from ._documents import text_pdf

INVOICE = text_pdf(
    [
        [
            "ACME TRADING LTD",
            "12 High Street",
            "London SW1A 1AA",
            "INVOICE",
            "Invoice No: INV-2024-001",
            "Date: 3 March 2024",
            "Bill to: Globex Corporation",
            "Widget 2 x 10.00   20.00",
            "Subtotal: 20.00",
            "VAT 20%: 4.00",
            "Total due: 24.00 GBP",
            "Ref code: QX-77",
            "Contact: billing@acme.example",
        ]
    ]
)

NDA = text_pdf(
    [
        [
            "MUTUAL NON-DISCLOSURE AGREEMENT",
            "This Agreement is made as of January 15, 2021 by and between Foo Widgets, Inc., a",
            'Delaware corporation ("Foo"), and Bar & Sons LLC ("Bar").',
            "WHEREAS, the parties wish to discuss a possible transaction;",
            "1. This Agreement shall terminate two (2) years from the date hereof.",
            "2. This Agreement shall be governed by the laws of the State of New York.",
            "IN WITNESS WHEREOF the parties hereto have executed this Agreement.",
        ]
    ]
)


def test_parse_date_normalises_common_printed_forms_to_iso() -> None:
    assert parse_date("29-10-2017 18:31") == "2017-10-29"
    assert parse_date("Date: 03/04/2024") == "2024-04-03"
    assert parse_date("03/04/2024", day_first=False) == "2024-03-04"
    assert parse_date("12/28/2017") == "2017-12-28"
    assert parse_date("19 Apr 2018 18:22") == "2018-04-19"
    assert parse_date("dated as of December 9th, 2014") == "2014-12-09"
    assert parse_date("2024-02-30") is None


def test_amounts_are_normalised_to_two_places_in_either_notation() -> None:
    assert normalise_amount("RM 1,234.50") == "1234.50"
    assert normalise_amount("1.234,50") == "1234.50"
    assert normalise_amount("12,30") == "12.30"
    assert [a for a, _, _ in find_amounts("GST 6% 1.69 TOTAL RM 29.89")] == ["1.69", "29.89"]


def test_classify_tells_contracts_invoices_and_receipts_apart() -> None:
    assert (
        classify("WHEREAS the parties agree. This Agreement shall be governed by")[0] == "contract"
    )
    assert classify("INVOICE\nInvoice No: 12\nBill to: X\nDue date: 1 May")[0] == "invoice"
    assert classify("CASH 10.00\nCHANGE 1.00\nTOTAL 9.00\nTHANK YOU\nRounding 0.00")[0] == "receipt"
    assert classify("hello")[0] == "other"


@pytest.mark.anyio
async def test_an_invoice_without_schema_yields_its_usual_fields() -> None:
    result = await parse(ParseRequest.from_bytes(INVOICE, "application/pdf"))
    assert isinstance(result, ParseResult)
    assert result.document_type == "invoice"
    assert result.data["company"] == "ACME TRADING LTD"
    assert result.data["date"] == "2024-03-03"
    assert result.data["total"] == 24.0
    assert result.data["subtotal"] == 20.0
    assert result.data["tax"] == 4.0
    assert result.data["currency"] == "GBP"
    assert result.data["number"] == "INV-2024-001"
    assert result.data["key_values"]["Ref code"] == "QX-77"
    assert result.usage == Usage(input_tokens=0, output_tokens=0)
    assert result.pages == 1
    assert 0.5 < result.confidence <= 1.0
    assert result.provenance is None


@pytest.mark.anyio
async def test_provenance_gives_the_page_and_box_each_field_was_read_from() -> None:
    result = await parse(
        ParseRequest.from_bytes(INVOICE, "application/pdf", include_provenance=True)
    )
    assert result.provenance is not None
    total = result.provenance["total"]
    assert isinstance(total, FieldProvenance)
    assert total.page == 1
    assert "24.00" in total.text
    x0, y0, x1, y1 = total.bbox
    assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
    assert y0 > result.provenance["company"].bbox[1]  # the total is printed below the name


@pytest.mark.anyio
async def test_a_schema_is_filled_exactly_with_coerced_values_and_nulls_for_the_rest() -> None:
    schema = {
        "type": "object",
        "properties": {
            "vendor_name": {"type": "string", "description": "who issued the invoice"},
            "invoice_date": {"type": "string", "format": "date"},
            "amount_due": {"type": "number"},
            "purchase_order": {"type": "string"},
        },
    }
    result = await parse(ParseRequest.from_bytes(INVOICE, "application/pdf", schema=schema))
    assert set(result.data) == set(schema["properties"])
    assert result.data["vendor_name"] == "ACME TRADING LTD"
    assert result.data["invoice_date"] == "2024-03-03"
    assert result.data["amount_due"] == 24.0
    assert result.data["purchase_order"] is None
    assert any(w.startswith("purchase_order:") for w in result.warnings)


@pytest.mark.anyio
async def test_a_hint_naming_a_label_steers_a_custom_field() -> None:
    schema = {"type": "object", "properties": {"customer_reference": {"type": "string"}}}
    request = ParseRequest.from_bytes(
        INVOICE, "application/pdf", schema=schema, hints='customer reference is labelled "Ref code"'
    )
    result = await parse(request)
    assert result.data == {"customer_reference": "QX-77"}
    assert result.warnings == ()


@pytest.mark.anyio
async def test_values_that_break_the_schema_become_warnings() -> None:
    schema = {
        "type": "object",
        "properties": {"total": {"type": "number", "maximum": 10}, "email": {"type": "string"}},
    }
    result = await parse(ParseRequest.from_bytes(INVOICE, "application/pdf", schema=schema))
    assert result.data["total"] == 24.0
    assert any(w.startswith("total: does not match the schema") for w in result.warnings)
    assert result.data["email"] == "billing@acme.example"


@pytest.mark.anyio
async def test_an_invalid_json_schema_is_an_error_on_schema() -> None:
    for schema in (
        {"type": "object", "properties": {"a": {"type": "strin"}}},
        {"type": 12},
        {"type": "string"},
    ):
        with pytest.raises(InvalidRequestError) as exc:
            await parse(ParseRequest.from_bytes(INVOICE, "application/pdf", schema=schema))
        assert exc.value.errors[0].field == "schema"


@pytest.mark.anyio
async def test_a_contract_yields_parties_date_jurisdiction_and_term() -> None:
    result = await parse(ParseRequest.from_bytes(NDA, "application/pdf"))
    assert result.document_type == "contract"
    assert result.data["parties"] == ["Foo Widgets, Inc.", "Bar and Sons LLC"]
    assert result.data["effective_date"] == "2021-01-15"
    assert result.data["jurisdiction"] == "New York"
    assert result.data["term"] == "2 years"
    assert result.confidence > 0.5
