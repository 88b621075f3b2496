"""Markdown building blocks shared by the generated documentation pages.

Docstrings and JSON Schema descriptions use reStructuredText markup (double backticks,
``:class:`` roles); MkDocs renders Markdown, so they are converted here, once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_DOUBLE = re.compile(r"``([^`]+)``")


def rst_to_markdown(text: str) -> str:
    """Turn reStructuredText inline markup into Markdown code spans, on one line."""
    text = _ROLE.sub(lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", text)
    return " ".join(_DOUBLE.sub(r"`\1`", text).split())


def cell(text: object) -> str:
    """A table cell: pipes escaped, newlines folded (a cell is one line of a Markdown table)."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown pipe table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def code(value: object) -> str:
    """A value as an inline code span (JSON spelling: true, null, "text")."""
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def fenced(language: str, text: str) -> str:
    return f"```{language}\n{text.rstrip()}\n```\n"


def schema_type(node: dict[str, Any]) -> str:
    """A short type for a JSON Schema node: ``string``, ``integer or null``, ``LineItem[]``."""
    if "$ref" in node:
        return node["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in node:
        return " or ".join(schema_type(option) for option in node["anyOf"])
    kind = node.get("type", "any")
    kinds = kind if isinstance(kind, list) else [kind]
    names = []
    for name in kinds:
        if name == "array":
            names.append(f"{schema_type(node.get('items', {}))}[]")
        else:
            names.append(name)
    return " or ".join(names)


def schema_limits(node: dict[str, Any]) -> str:
    """The constraints of a JSON Schema node in words: allowed values, ranges, lengths."""
    parts = []
    if "enum" in node:
        parts.append("one of " + ", ".join(f"`{value}`" for value in node["enum"]))
    if "minimum" in node or "maximum" in node:
        parts.append(f"{node.get('minimum', '')}..{node.get('maximum', '')}")
    if "exclusiveMinimum" in node:
        parts.append(f"> {node['exclusiveMinimum']}")
    if "minLength" in node:
        plural = "s" if node["minLength"] > 1 else ""
        parts.append(f"at least {node['minLength']:,} character{plural}")
    if "maxLength" in node:
        parts.append(f"at most {node['maxLength']:,} characters")
    if "maxItems" in node:
        parts.append(f"at most {node['maxItems']:,} items")
    if "format" in node:
        parts.append(f"format {node['format']}")
    for option in node.get("anyOf", ()):
        nested = schema_limits(option)
        if nested:
            parts.append(nested)
    return "; ".join(parts)


def fields_table(schema: dict[str, Any]) -> str:
    """One row per property of an object schema: name, type, default, limits, description."""
    required = set(schema.get("required", ()))
    rows = []
    for name, node in schema.get("properties", {}).items():
        default = code(node["default"]) if "default" in node else ""
        if name in required:
            default = "required"
        rows.append(
            (
                f"`{name}`",
                schema_type(node),
                default,
                schema_limits(node),
                rst_to_markdown(node.get("description", "")),
            )
        )
    return table(("field", "type", "default", "limits", "description"), rows)
