"""A parse ``schema`` too deep, too large or a ``$ref`` cycle is refused naming ``schema``."""

from __future__ import annotations

from typing import Any

import pytest

from renderkit import InvalidRequestError, ParseRequest
from renderkit.parsing.fill.validation import check_schema


def nested(levels: int) -> dict[str, Any]:
    """An object schema whose property ``a`` holds another, ``levels`` times."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def _fields(error: pytest.ExceptionInfo[InvalidRequestError]) -> list[str]:
    return [e.field for e in error.value.errors]


@pytest.mark.parametrize("levels", [25, 200, 5_000])
def test_a_schema_nested_deeper_than_forty_levels_is_refused_naming_schema(levels: int) -> None:
    with pytest.raises(InvalidRequestError, match="at most 40 levels") as error:
        ParseRequest.from_bytes(b"%PDF-1.4", "application/pdf", schema=nested(levels))
    assert _fields(error) == ["schema"]
    with pytest.raises(InvalidRequestError, match="at most 40 levels"):
        check_schema(nested(levels))


def test_a_schema_twenty_object_levels_deep_is_accepted() -> None:
    check_schema(nested(19))  # 39 levels of dicts


def test_a_schema_larger_than_its_character_cap_is_refused_naming_schema() -> None:
    properties = {f"field_{i}": {"type": "string", "description": "x" * 500} for i in range(450)}
    with pytest.raises(InvalidRequestError, match="characters of JSON") as error:
        ParseRequest.from_bytes(b"%PDF-1.4", "application/pdf", schema={"properties": properties})
    assert _fields(error) == ["schema"]


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#", "properties": {"a": {}}},
        {"$defs": {"x": {"$ref": "#/$defs/x"}}, "$ref": "#/$defs/x", "properties": {"a": {}}},
    ],
)
def test_a_top_level_ref_cycle_is_refused_naming_schema_before_any_work(
    schema: dict[str, Any],
) -> None:
    with pytest.raises(InvalidRequestError, match=r"\$ref cycle") as error:
        check_schema(schema)
    assert _fields(error) == ["schema"]
