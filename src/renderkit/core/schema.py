"""JSON Schema for renderkit's request models, generated from the attrs classes themselves.

The HTTP server's OpenAPI document and the MCP tools' ``inputSchema`` both come from here, so
there is no second, hand-written copy of a request's shape to drift out of date. Field
descriptions are read from the "Attributes:" section of each model's docstring.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from typing import Any

import attrs

from renderkit.core import validators as v
from renderkit.core.converter import ALIASES_ATTR

__all__ = ["field_descriptions", "json_schema"]

_PRIMITIVES: dict[type, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
}


def field_descriptions(cls: type) -> dict[str, str]:
    """The "Attributes:" section of a class docstring, by field name (grouped names split)."""
    doc = inspect.getdoc(cls) or ""
    match = re.search(r"^Attributes:\n((?:[ ]{4}.*\n?|\n)+)", doc, re.MULTILINE)
    if not match:
        return {}
    found: dict[str, str] = {}
    current: list[str] = []
    for line in match.group(1).splitlines():
        head = re.match(r"^ {4}([\w, ]+):\s*(.*)$", line)
        if head:
            current = [n.strip() for n in head.group(1).split(",")]
            for name in current:
                found[name] = head.group(2).strip()
        elif line.strip() and current:
            for name in current:
                found[name] = f"{found[name]} {line.strip()}"
    return found


def _validator_schema(validator: Any) -> dict[str, Any]:
    if validator is None:
        return {}
    # attrs combines a list of validators into an and_() wrapper exposing `_validators`.
    inners = getattr(validator, "_validators", None)
    if isinstance(validator, list | tuple) or inners is not None:
        merged: dict[str, Any] = {}
        for inner in inners if inners is not None else validator:
            merged.update(_validator_schema(inner))
        return merged
    if isinstance(validator, v._Optional):
        inner = _validator_schema(validator.inner)
        # An optional choice also accepts null: an enum without it would refuse the default.
        if "enum" in inner and None not in inner["enum"]:
            inner["enum"] = [*inner["enum"], None]
        return inner
    if isinstance(validator, v._InRange):
        return {"minimum": validator.low, "maximum": validator.high}
    if isinstance(validator, v._MaxLength):
        return {"maxLength": validator.limit}
    if isinstance(validator, v._MaxItems):
        return {"maxItems": validator.limit}
    if isinstance(validator, v._Choice):
        return {"enum": list(validator.options)}
    if isinstance(validator, v._CurrencyCode):
        return {"enum": list(v.currency_codes())}
    if isinstance(validator, v._CssColor):
        return {"format": "color", "maxLength": 64}
    if isinstance(validator, v._HttpUrl):
        prefix = "^(https?://|data:image/)" if validator.allow_data_image else "^https?://"
        return {"format": "uri", "minLength": 1, "pattern": prefix}
    return {}


def _type_schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        inner = (
            _type_schema(args[0], defs)
            if len(args) == 1
            else {"anyOf": [_type_schema(a, defs) for a in args]}
        )
        if len(args) == len(typing.get_args(tp)):
            return inner
        # The converter accepts null for optional fields: say so, or fuzzers rightly complain.
        if "type" in inner:
            return {**inner, "type": [inner["type"], "null"]}
        return {"anyOf": [inner, {"type": "null"}]}
    if origin in (list, tuple, typing.Sequence) or tp in (list, tuple):
        (item,) = typing.get_args(tp)[:1] or (Any,)
        return {"type": "array", "items": _type_schema(item, defs)}
    if origin is dict or tp is dict:
        return {"type": "object"}
    if attrs.has(tp):
        if tp.__name__ not in defs:
            defs[tp.__name__] = {}  # placeholder: guards recursion
            defs[tp.__name__] = _object_schema(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    if tp in _PRIMITIVES:
        return dict(_PRIMITIVES[tp])
    return {}


def _object_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    descriptions = field_descriptions(cls)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in attrs.fields(cls):
        name = field.alias or field.name
        schema = _type_schema(hints[field.name], defs)
        schema.update(_validator_schema(field.validator))
        if field.default is attrs.NOTHING:
            required.append(name)
        elif not isinstance(field.default, attrs.Factory) and field.default is not None:  # type: ignore[arg-type]
            schema["default"] = field.default
        if name in descriptions:
            schema["description"] = descriptions[name]
        properties[name] = schema
    for alias, canonical in getattr(cls, ALIASES_ATTR, {}).items():
        properties[alias] = {**properties[canonical], "description": f"Alias of `{canonical}`."}
    # The converter refuses names no variant defines, at every level.
    out: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        out["required"] = required
    # Cross-field rules a model states in JSON Schema terms (e.g. "html only with custom").
    out.update(getattr(cls, "__rk_schema_extra__", {}))

    summary = (inspect.getdoc(cls) or "").split("\n\n")[0]
    if summary:
        out["description"] = summary
    return out


def json_schema(cls: type) -> dict[str, Any]:
    """A JSON Schema (2020-12) for structuring ``cls`` from JSON.

    Unknown properties are refused (``additionalProperties: false``), as the converter refuses
    them. Nested models are placed in ``$defs`` and referenced.
    """
    defs: dict[str, Any] = {}
    schema = _object_schema(cls, defs)
    if defs:
        schema["$defs"] = defs
    return schema
