"""Property: structuring any JSON-like body into any request model either builds the model or
raises InvalidRequestError naming at least one field; never another exception."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import renderkit
from renderkit import InvalidRequestError, structure

from .strategies import json_values, request_dicts

# One valid body per model (and per PDF data model): mutations start from real requests, so
# they reach the nested models and validators, not only the "unknown field" check.
VALID: list[tuple[type, dict[str, Any]]] = [
    (renderkit.ImageRequest, {"template": "og-card", "data": {"title": "Hi"}}),
    (renderkit.ImageRequest, {"template": "custom", "html": "<p>x</p>", "width": 300}),
    (
        renderkit.PdfRequest,
        {
            "template": "invoice",
            "data": {
                "company_name": "A",
                "line_items": [{"description": "x", "quantity": 1, "unit_price": 2}],
            },
        },
    ),
    (renderkit.PdfRequest, {"template": "certificate", "data": {"recipient_name": "A"}}),
    (renderkit.PdfRequest, {"template": "custom", "html": "<p>x</p>", "page_size": "A4"}),
    (
        renderkit.ScreenshotRequest,
        {"url": "https://example.com", "viewport": {"width": 800, "height": 600}},
    ),
    (renderkit.AudioRequest, {"script": "Hello", "speed": 1.0}),
    (
        renderkit.ParseRequest,
        {"file": "aGVsbG8=", "mimeType": "application/pdf", "schema": {"properties": {"a": {}}}},
    ),
]

PROPERTY_SETTINGS = settings(
    max_examples=50, deadline=2000, suppress_health_check=[HealthCheck.too_slow]
)


def _names(cls: type, valid: dict[str, Any]) -> list[str]:
    names = [f.alias or f.name for f in attrs.fields(cls) if f.init]
    names += list(getattr(cls, "__rk_aliases__", {}))
    if isinstance(valid.get("data"), dict):
        names += list(valid["data"])
    return sorted(set(names))


def _structure_or_field_error(cls: type, body: object) -> None:
    try:
        structure(body, cls)
    except InvalidRequestError as exc:
        error = exc
    else:
        return
    assert error.errors, "an InvalidRequestError must list at least one field"
    for problem in error.errors:
        assert problem.field.strip(), f"error without a field name: {problem}"
        assert problem.message.strip()


@pytest.mark.parametrize(("cls", "valid"), VALID, ids=lambda p: getattr(p, "__name__", ""))
def test_the_valid_sample_structures(cls: type, valid: dict[str, Any]) -> None:
    structure(valid, cls)


@pytest.mark.parametrize(("cls", "valid"), VALID, ids=lambda p: getattr(p, "__name__", ""))
def test_mutated_requests_raise_only_invalid_request_errors_naming_a_field(
    cls: type, valid: dict[str, Any]
) -> None:
    @PROPERTY_SETTINGS
    @given(body=request_dicts(_names(cls, valid), valid))
    def check(body: dict[str, Any]) -> None:
        _structure_or_field_error(cls, body)

    check()


NESTED = [
    (cls, valid, name)
    for cls, valid in VALID
    for name, value in valid.items()
    if isinstance(value, dict) and name != "schema"
]


@pytest.mark.parametrize(("cls", "valid", "name"), NESTED, ids=lambda p: getattr(p, "__name__", p))
def test_mutated_nested_objects_raise_only_invalid_request_errors_naming_a_field(
    cls: type, valid: dict[str, Any], name: str
) -> None:
    inner = valid[name]

    @PROPERTY_SETTINGS
    @given(inner_body=request_dicts(sorted(inner), inner))
    def check(inner_body: dict[str, Any]) -> None:
        _structure_or_field_error(cls, {**valid, name: inner_body})

    check()


@pytest.mark.parametrize("cls", sorted({c for c, _ in VALID}, key=lambda c: c.__name__))
@PROPERTY_SETTINGS
@given(body=json_values)
def test_any_json_value_as_a_body_raises_only_invalid_request_errors(
    cls: type, body: object
) -> None:
    _structure_or_field_error(cls, body)


@PROPERTY_SETTINGS
@given(
    body=st.dictionaries(
        st.one_of(st.text(max_size=8), st.integers(), st.none()), json_values, max_size=5
    )
)
def test_non_string_keys_from_python_callers_are_field_errors_too(body: dict[Any, Any]) -> None:
    _structure_or_field_error(renderkit.ImageRequest, body)
