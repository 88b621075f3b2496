"""How a parse result shows itself: a short ``repr`` and the HTML table Jupyter displays.

Every value comes from the parsed document, which is untrusted: everything that reaches the
HTML goes through :func:`html.escape`, keys and values alike. The markup uses inline styles
only, because notebook front ends drop ``<style>`` blocks from untrusted outputs.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class DisplayedResult(Protocol):
    """What the display reads of a :class:`renderkit.parsing.ParseResult` (a protocol, so this
    module does not import the model that imports it)."""

    @property
    def document_type(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def pages(self) -> int: ...
    @property
    def extractor(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any]: ...
    @property
    def field_confidence(self) -> Mapping[str, float]: ...
    @property
    def warnings(self) -> Sequence[str]: ...


__all__ = ["confidence_colour", "parse_result_html", "parse_result_repr"]

# Longest value shown in a cell: a contract's clause or an OCR'd paragraph would otherwise
# stretch the table across the screen. The full value stays in ``result.data``.
_MAX_CELL_CHARS = 300
_CELL = "padding:2px 8px;text-align:left;vertical-align:top;border-bottom:1px solid #8884"
_HEAD = "padding:2px 8px;text-align:left;border-bottom:2px solid #8888"


def confidence_colour(confidence: float) -> str:
    """Green from 0.8, amber from 0.5, red below: the bands a reviewer acts on."""
    if confidence >= 0.8:
        return "#2e7d32"
    if confidence >= 0.5:
        return "#b26a00"
    return "#c62828"


def _percent(confidence: float) -> str:
    return f"{round(confidence * 100)}%"


def _text(value: object) -> str:
    """A value as one escaped line of text, cut to :data:`_MAX_CELL_CHARS`."""
    if value is None:
        return "<span style='opacity:.5'>—</span>"
    if isinstance(value, Mapping):
        text = "; ".join(f"{k}: {v}" for k, v in value.items() if v is not None)
    elif isinstance(value, list | tuple):
        text = ", ".join(str(item) for item in value)
    else:
        text = str(value)
    if len(text) > _MAX_CELL_CHARS:
        text = text[: _MAX_CELL_CHARS - 1] + "…"
    return html.escape(text)


def _bar(confidence: float | None) -> str:
    """A small coloured bar with the percentage beside it; a dash for an absent field."""
    if confidence is None:
        return ""
    confidence = min(max(confidence, 0.0), 1.0)
    colour = confidence_colour(confidence)
    width = round(confidence * 60)
    return (
        "<span style='display:inline-block;width:60px;height:8px;background:#8883;"
        "border-radius:4px;vertical-align:middle'>"
        f"<span style='display:block;width:{width}px;height:8px;background:{colour};"
        "border-radius:4px'></span></span> "
        f"<span style='color:{colour};font-variant-numeric:tabular-nums'>"
        f"{_percent(confidence)}</span>"
    )


def _is_table(value: object) -> bool:
    """Whether ``value`` is a list of records (line items), shown as a table of its own."""
    return (
        isinstance(value, list) and bool(value) and all(isinstance(item, Mapping) for item in value)
    )


def _records_table(name: str, rows: Sequence[Mapping[Any, Any]], confidence: float | None) -> str:
    columns: list[Any] = []  # every key of every row, in first-seen order
    for row in rows:
        columns += [key for key in row if key not in columns]
    caption = html.escape(name.replace("_", " "))
    if confidence is not None:
        caption += f" {_bar(confidence)}"
    head = "".join(f"<th style='{_HEAD}'>{html.escape(str(c))}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td style='{_CELL}'>{_text(row.get(c))}</td>" for c in columns) + "</tr>"
        for row in rows
    )
    return (
        "<table style='border-collapse:collapse;margin-top:8px'>"
        f"<caption style='text-align:left;font-weight:600'>{caption}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def parse_result_html(result: DisplayedResult) -> str:
    """The result as HTML: a header line, the fields with their confidence, record tables
    (line items) and the warnings."""
    header = (
        f"<div><b>{html.escape(result.document_type)}</b> · confidence "
        f"<span style='color:{confidence_colour(result.confidence)}'>"
        f"{_percent(result.confidence)}</span> · {result.pages} "
        f"page{'s' if result.pages != 1 else ''} · {html.escape(result.extractor)}</div>"
    )
    rows: list[str] = []
    tables: list[str] = []
    for name, value in result.data.items():
        confidence = result.field_confidence.get(name)
        if _is_table(value):
            tables.append(_records_table(name, value, confidence))
            continue
        rows.append(
            f"<tr><th style='{_CELL}'>{html.escape(str(name))}</th>"
            f"<td style='{_CELL}'>{_text(value)}</td>"
            f"<td style='{_CELL};white-space:nowrap'>{_bar(confidence)}</td></tr>"
        )
    fields = (
        "<table style='border-collapse:collapse;margin-top:4px'>"
        f"<thead><tr><th style='{_HEAD}'>field</th><th style='{_HEAD}'>value</th>"
        f"<th style='{_HEAD}'>confidence</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        if rows
        else "<div style='opacity:.7'>no fields found</div>"
    )
    warnings = ""
    if result.warnings:
        items = "".join(f"<li>{html.escape(w)}</li>" for w in result.warnings)
        warnings = (
            "<div style='margin-top:8px;color:#b26a00'>warnings"
            f"<ul style='margin:2px 0'>{items}</ul></div>"
        )
    return f"<div class='renderkit-parse'>{header}{fields}{''.join(tables)}{warnings}</div>"


def parse_result_repr(result: DisplayedResult) -> str:
    """One short line: the type, confidence and counts, never the (possibly long) values."""
    found = sum(value is not None for value in result.data.values())
    records = sum(len(value) for value in result.data.values() if _is_table(value))
    parts = [
        f"document_type={result.document_type!r}",
        f"confidence={result.confidence:.2f}",
        f"fields={found}/{len(result.data)}",
    ]
    if records:
        parts.append(f"rows={records}")
    if result.warnings:
        parts.append(f"warnings={len(result.warnings)}")
    parts.append(f"extractor={result.extractor!r}")
    return f"ParseResult({', '.join(parts)})"
