"""Each PDF template's declared fields are what it prints; blank documents are refused."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from renderkit import InvalidRequestError, PdfRequest, render_pdf, structure
from renderkit.pdf import PDF_TEMPLATE_FIELDS
from renderkit.pdf._models import CertificateData, InvoiceData, LetterData, ReportData
from renderkit.pdf._templates import TEMPLATE_FIELDS, render_document
from renderkit.testing import FakeBrowser

pytestmark = pytest.mark.anyio

SENTINEL = "Zq7sentinel"
MODELS = {
    "invoice": InvoiceData,
    "certificate": CertificateData,
    "report": ReportData,
    "letter": LetterData,
}
# Values for the fields that are not free text; the rest get SENTINEL.
VALUES: dict[str, Any] = {
    "brand_color": "#12ab34",
    "currency": "EUR",
    "name_style": "script",
    "line_items": [{"description": SENTINEL, "unit_price": 3}],
    "sections": [{"heading": SENTINEL}],
    "payment": {"bank_name": SENTINEL},
    "seller": {"street": SENTINEL},
    "buyer": {"city": SENTINEL},
    "tax_rate": 7.5,
    "discount": 1,
}
TEXT_LIKE = {"line_items", "sections", "payment", "seller", "buyer"}


def _value(name: str) -> Any:
    if name in VALUES:
        return VALUES[name]
    if name.endswith("date"):
        return "2026-01-02"
    if name.endswith(("_url", "_logo")):
        return f"https://example.com/{SENTINEL}.png"
    return SENTINEL


def _body(template: str, data: dict[str, Any]) -> str:
    return render_document(template, data).body


@pytest.mark.parametrize("template", list(MODELS))
def test_every_declared_field_changes_the_document_and_text_appears(template: str) -> None:
    fields = TEMPLATE_FIELDS[template]
    for name in attrs.fields_dict(MODELS[template]):
        assert name in fields.shown, f"{template}'s model accepts {name}, undeclared"
        partner = fields.shown_with.get(name)
        base = {partner: _value(partner)} if partner else {}
        with_field = _body(template, {**base, name: _value(name)})
        assert with_field != _body(template, base), f"{template} does not print {name}"
        if name in TEXT_LIKE or _value(name) == SENTINEL or name.endswith(("_url", "_logo")):
            assert SENTINEL in with_field, name


@pytest.mark.parametrize("template", list(MODELS))
def test_a_field_shown_only_with_another_prints_nothing_alone(template: str) -> None:
    # The declaration's "shown_with" must be true, or the warning would be wrong.
    for name, partner in TEMPLATE_FIELDS[template].shown_with.items():
        lone = _body(template, {name: _value(name)})
        assert lone == _body(template, {}), f"{name} printed without {partner}"


def test_the_public_declaration_is_the_templates_own() -> None:
    assert {k: v.shown for k, v in TEMPLATE_FIELDS.items()} == {
        k: v for k, v in PDF_TEMPLATE_FIELDS.items() if k != "custom"
    }


@pytest.mark.parametrize(
    ("body", "warning"),
    [
        (
            {"template": "certificate", "data": {"course_name": "Go", "name_style": "script"}},
            "data.name_style: certificate displays name_style only with recipient_name; "
            "it was ignored",
        ),
        (
            {"template": "invoice", "data": {"discount": 5}},
            "data.discount: invoice displays discount only with line_items; it was ignored",
        ),
        (
            {"template": "custom", "html": "<p>B</p>", "data": {"html": "<p>A</p>"}},
            "data.html: custom prints html instead; it was ignored",
        ),
    ],
)
async def test_a_field_the_template_would_not_print_is_a_warning(
    body: dict[str, Any], warning: str
) -> None:
    result = await render_pdf(body, browser=FakeBrowser())
    assert result.warnings == (warning,)


async def test_a_complete_variant_a_invoice_has_no_warnings() -> None:
    data = {
        "invoice_number": "A-1",
        "date": "2026-11-01",
        "from_name": "ACME",
        "to_name": "Bob",
        "items": [{"description": "Widget", "quantity": 2, "unit_price": 5}],
        "discount": 1,
    }
    result = await render_pdf({"template": "invoicePdf", "data": data}, browser=FakeBrowser())
    assert result.warnings == ()


def test_a_strict_request_is_refused_naming_the_field() -> None:
    body = {"template": "certificate", "strict": True, "data": {"name_style": "sans"}}
    with pytest.raises(InvalidRequestError) as caught:
        structure(body, PdfRequest)
    assert [e.field for e in caught.value.errors] == ["data.name_style"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"template": "report"}, "data.sections"),
        ({"template": "reportPdf", "data": {"subtitle": "Q3", "sections": []}}, "data.sections"),
        (
            {"template": "report", "data": {"sections": [{"heading": " ", "body": ""}]}},
            "data.sections",
        ),
        ({"template": "letter", "data": {"recipient_name": "Bob"}}, "data.body"),
    ],
)
async def test_a_document_that_would_print_a_blank_page_is_refused_naming_what_is_missing(
    body: dict[str, Any], field: str
) -> None:
    browser = FakeBrowser()
    with pytest.raises(InvalidRequestError) as caught:
        await render_pdf(body, browser=browser)
    assert [e.field for e in caught.value.errors] == [field]
    assert caught.value.missing
    assert browser.renders == []
    if field == "data.sections":
        assert "a report needs a title or at least one section" in str(caught.value)


@pytest.mark.parametrize(
    "body",
    [
        {"template": "report", "data": {"title": "Q3"}},
        {"template": "report", "data": {"sections": [{"bullets": ["Up 4%"]}]}},
        {"template": "letter", "data": {"subject": "Your order"}},
        {"template": "invoice"},
        {"template": "certificate"},
    ],
)
async def test_a_document_with_content_of_its_own_renders(body: dict[str, Any]) -> None:
    result = await render_pdf(body, browser=FakeBrowser())
    assert result.pages == 1
