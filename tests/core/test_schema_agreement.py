"""The generated JSON Schemas and the validators accept and refuse the same bodies.

Clients (and the API fuzzer) trust the schema: a body it allows must not be refused, and a
body it refuses must not slip through. These cases are the cross-field rules the field types
alone cannot state.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from renderkit import (
    AudioRequest,
    ImageRequest,
    InvalidRequestError,
    ParseRequest,
    PdfRequest,
    ScreenshotRequest,
    structure,
)
from renderkit.core.schema import json_schema

PDF_B64 = "JVBERi0xLjcK"  # "%PDF-1.7\n": base64, though not a whole document
URL = "https://example.com/"

CASES: list[tuple[type, dict[str, Any], bool]] = [
    (PdfRequest, {"template": "custom"}, False),
    (PdfRequest, {"template": "custom", "html": "   "}, False),
    (PdfRequest, {"template": "custom", "html": "<p>x</p>"}, True),
    (PdfRequest, {"template": "custom", "data": {"html": "<p>x</p>"}}, True),
    (PdfRequest, {"template": "invoice", "html": "<p>x</p>"}, False),
    (PdfRequest, {"template": "letter", "footer_html": ""}, False),
    (PdfRequest, {"template": "invoice", "data": {"currency": "EUR"}}, True),
    (PdfRequest, {"template": "invoice", "data": {"currency": "QZX"}}, False),
    (PdfRequest, {"template": "custom", "html": "<p>x</p>", "footer_html": "<p>1</p>"}, True),
    (AudioRequest, {"script": "Hello"}, True),
    (AudioRequest, {"script": "日本語のテキスト"}, True),
    (AudioRequest, {"script": "😀🎉"}, False),
    (AudioRequest, {"script": "— … !"}, False),
    (AudioRequest, {"script": "\U0007e010"}, False),  # an unassigned code point
    (AudioRequest, {"script": "   "}, False),
    (ParseRequest, {"file": PDF_B64, "mimeType": "application/pdf"}, True),
    (ParseRequest, {"file": "", "mimeType": "application/pdf"}, False),
    (ParseRequest, {"file": PDF_B64, "mimeType": "application/pdf", "schema": {}}, False),
    (
        ParseRequest,
        {"file": PDF_B64, "mimeType": "application/pdf", "schema": {"properties": {}}},
        False,
    ),
    (
        ParseRequest,
        {"file": PDF_B64, "mimeType": "application/pdf", "schema": {"properties": {"a": {}}}},
        True,
    ),
    # Unknown names are refused at every level; both variants' names and aliases are not.
    (ScreenshotRequest, {"url": URL, "fullpage": True}, False),
    (ScreenshotRequest, {"url": URL, "fullPage": True, "full_page": True}, True),
    (ScreenshotRequest, {"url": URL, "viewport": {"width": 800, "height": 600, "x": 1}}, False),
    (ImageRequest, {"template": "og-card", "data": {"titel": "x"}}, False),
    (ImageRequest, {"template": "og-card", "data": {"cta_text": "x"}}, True),
    (PdfRequest, {"template": "invoice", "data": {"items": [{"unit_price": 1, "qty": 1}]}}, False),
    (PdfRequest, {"template": "invoice", "data": {"items": [{"unit_price": 1}]}}, True),
    (PdfRequest, {"template": "letter", "data": {"line_items": []}}, False),
    (PdfRequest, {"template": "report", "data": {"sections": [{"heading": "A", "x": 1}]}}, False),
    (AudioRequest, {"script": "Hello", "similarity_boost": 0.5}, True),
    (AudioRequest, {"script": "Hello", "language_code": "en"}, False),
    (ParseRequest, {"file": PDF_B64, "mimeType": "application/pdf", "provenance": True}, False),
    (
        ParseRequest,
        {
            "file": PDF_B64,
            "mimeType": "application/pdf",
            "schema": {"x-anything": 1, "properties": {"a": {}}},
        },
        True,
    ),
]


def _accepted(model: type, body: dict[str, Any]) -> bool:
    try:
        request = structure(body, model)
        if model is ParseRequest and request.schema is not None:
            from renderkit.parsing.fill.validation import check_schema

            check_schema(request.schema)
    except InvalidRequestError:
        return False
    return True


@pytest.mark.parametrize(("model", "body", "valid"), CASES)
def test_the_schema_and_the_validators_agree(
    model: type, body: dict[str, Any], valid: bool
) -> None:
    schema = jsonschema.Draft202012Validator(json_schema(model))
    assert schema.is_valid(body) is valid
    assert _accepted(model, body) is valid


def test_a_script_with_nothing_to_speak_names_the_field() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        structure({"script": "🎉🎉"}, AudioRequest)
    assert caught.value.errors[0].field == "script"
    assert "letters or digits" in caught.value.errors[0].message


def test_both_names_of_a_field_the_canonical_wins_but_the_alias_must_be_valid() -> None:
    url = "https://example.com"
    with pytest.raises(InvalidRequestError) as caught:
        structure({"url": url, "dark_mode": True, "darkMode": "x"}, ScreenshotRequest)
    assert [e.field for e in caught.value.errors] == ["darkMode"]
    both = structure({"url": url, "full_page": True, "fullPage": False}, ScreenshotRequest)
    assert both.full_page is True
    with pytest.raises(InvalidRequestError) as nested:
        structure({"template": "og-card", "data": {"cta": "Buy", "cta_text": 7}}, ImageRequest)
    assert [e.field for e in nested.value.errors] == ["data.cta_text"]
    image = structure(
        {"template": "og-card", "data": {"cta": "Buy", "cta_text": "Go"}}, ImageRequest
    )
    assert image.data.cta == "Buy"


@pytest.mark.parametrize(
    "model", [ImageRequest, PdfRequest, ScreenshotRequest, AudioRequest, ParseRequest]
)
def test_every_object_of_a_request_schema_refuses_extra_properties(model: type) -> None:
    schema = json_schema(model)
    nodes = {"(root)": schema, **schema.get("$defs", {})}
    assert {name: node["additionalProperties"] for name, node in nodes.items()} == dict.fromkeys(
        nodes, False
    )
