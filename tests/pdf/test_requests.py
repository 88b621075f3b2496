"""Validation of PDF requests and what render_pdf hands the browser (no Chromium)."""

from __future__ import annotations

import pytest

from renderkit import InvalidRequestError, PdfRequest, render_pdf, structure
from renderkit.testing import FakeBrowser

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"data": {}}, "template"),
        ({"template": "invoice", "page_size": "A5"}, "page_size"),
        ({"template": "invoice", "margin": "huge"}, "margin"),
        ({"template": "invoice", "landscape": "yes"}, "landscape"),
        (
            {"template": "invoice", "data": {"line_items": [{"quantity": -1, "unit_price": 2}]}},
            "data.line_items[0].quantity",
        ),
        (
            {"template": "invoice", "data": {"items": [{"quantity": 1, "unit_price": "ten"}]}},
            "data.line_items[0].unit_price",
        ),
        (
            {"template": "invoice", "data": {"line_items": [{"quantity": 1}]}},
            "data.line_items[0].unit_price",
        ),
        ({"template": "invoice", "data": {"currency": "DOLLARS"}}, "data.currency"),
        ({"template": "invoice", "data": {"tax_rate": 150}}, "data.tax_rate"),
        (
            {
                "template": "invoice",
                "data": {"line_items": [{"description": "x", "unit_price": 1}] * 10_000},
            },
            "data.line_items",
        ),
        (
            {"template": "report", "data": {"sections": [{"bullets": "not a list"}]}},
            "data.sections[0].bullets",
        ),
        ({"template": "certificate", "data": {"logo_url": "ftp://x"}}, "data.logo_url"),
        ({"template": "letter", "html": "<p>x</p>"}, "html"),
        ({"template": "letter", "footer_html": "<p>x</p>"}, "footer_html"),
        ({"template": "custom"}, "html"),
        ({"template": "custom", "data": {"html": "  "}}, "html"),
    ],
)
async def test_invalid_pdf_request_names_the_field_and_never_reaches_the_browser(
    body: dict, field: str
) -> None:
    browser = FakeBrowser()
    with pytest.raises(InvalidRequestError) as info:
        await render_pdf(body, browser=browser)
    assert [e.field for e in info.value.errors] == [field]
    assert browser.renders == []


def test_variant_a_invoice_aliases_map_to_variant_b_fields() -> None:
    req = structure(
        {
            "template": "invoicePdf",
            "data": {
                "from_name": "ACME",
                "from_address": "1 Road",
                "to_name": "Bob",
                "to_address": "2 Street",
                "date": "2026-11-01",
                "items": [{"description": "x", "quantity": 2, "unit_price": 3.5}],
            },
        },
        PdfRequest,
    )
    assert req.kind == "invoice"
    assert (req.data.company_name, req.data.client_name) == ("ACME", "Bob")
    assert (req.data.company_address, req.data.client_address) == ("1 Road", "2 Street")
    assert req.data.invoice_date == "2026-11-01"
    assert req.data.line_items[0].unit_price == 3.5


def test_certificate_aliases_and_forced_landscape() -> None:
    req = structure(
        {
            "template": "certificatePdf",
            "landscape": False,
            "data": {"issuer_name": "Academy", "date": "2026-01-02"},
        },
        PdfRequest,
    )
    assert req.data.issued_by == "Academy"
    assert req.data.issued_date == "2026-01-02"
    assert req.effective_landscape is True


def test_custom_html_comes_from_data_html_or_top_level_html() -> None:
    a = structure({"template": "custom", "data": {"html": "<p>A</p>"}}, PdfRequest)
    b = structure({"template": "custom", "html": "<p>B</p>"}, PdfRequest)
    assert (a.document_html, b.document_html) == ("<p>A</p>", "<p>B</p>")


def test_page_size_is_case_insensitive_and_defaults_to_a4() -> None:
    report = {"template": "report", "data": {"title": "Q3"}}
    assert structure(report, PdfRequest).page_size == "A4"
    assert structure({**report, "page_size": "letter"}, PdfRequest).page_size == "Letter"


async def test_options_reach_the_browser() -> None:
    browser = FakeBrowser()
    result = await render_pdf(
        {
            "template": "letter",
            "page_size": "Legal",
            "landscape": True,
            "margin": "none",
            "data": {"subject": "Hi", "sender_name": "Ann"},
        },
        browser=browser,
    )
    options = browser.renders[0].pdf
    assert options is not None
    assert (options.paper_width, options.paper_height) == (8.5, 14.0)
    assert options.landscape is True
    assert options.margin == 0.0
    assert result.pages == 1
    assert (result.page_size, result.landscape, result.template) == ("Legal", True, "letter")
