"""A found value converted to a JSON Schema property's type (every extractor fills schemas)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from renderkit.parsing.extract.values import normalise_amount, parse_date

__all__ = ["coerce_to_schema"]


def coerce_to_schema(value: Any, schema: Mapping[str, Any]) -> tuple[Any, bool]:
    """``value`` converted to the schema's type, and whether that worked."""
    types = schema.get("type")
    kinds = types if isinstance(types, list) else [types] if types else []
    kinds = [k for k in kinds if k != "null"]
    kind = kinds[0] if kinds else None
    if value is None:
        return None, True
    if kind == "array":
        items = value if isinstance(value, list) else [value]
        declared = schema.get("items")
        item_schema: Mapping[str, Any] = declared if isinstance(declared, Mapping) else {}
        out = []
        for item in items:
            coerced, ok = coerce_to_schema(item, item_schema)
            if ok:
                out.append(coerced)
        return out, True
    if isinstance(value, list) and kind in ("string", None):
        value = "; ".join(str(v) for v in value) if kind == "string" else value
    if kind in ("number", "integer"):
        if isinstance(value, int | float) and not isinstance(value, bool):
            number: Any = value
        else:
            amount = normalise_amount(str(value))
            if amount is None:
                return None, False
            number = float(amount)
        if kind == "integer":
            if float(number) != int(float(number)):
                return None, False
            return int(float(number)), True
        return number, True
    if kind == "boolean":
        if isinstance(value, bool):
            return value, True
        text = str(value).strip().lower()
        if text in ("yes", "true", "y", "x", "1", "✓", "checked"):
            return True, True
        if text in ("no", "false", "n", "0", "unchecked"):
            return False, True
        return None, False
    if kind == "string":
        if schema.get("format") == "date" or "date" in str(schema.get("description", "")).lower():
            iso = (
                parse_date(str(value))
                if not re.fullmatch(r"\d{4}-\d\d-\d\d", str(value))
                else str(value)
            )
            return (iso, True) if iso else (str(value), True)
        if isinstance(value, dict):
            return None, False
        return str(value), True
    if kind == "object" and not isinstance(value, dict):
        return None, False
    return value, True
