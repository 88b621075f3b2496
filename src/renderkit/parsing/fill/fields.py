"""Found values into the fields asked for: the schema's properties, or the type's usual fields.

With a schema, each property is matched by its name, its description and the hints to a known
field (``vendor`` -> the seller, ``amount_due`` -> the total...) or else to a label printed in
the document, and the value is coerced to the property's type. Without one, the fields usual for
the document type (:data:`TYPE_FIELDS`) are returned with the ``Label: value`` pairs printed on
single lines. What cannot be found is null, with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from renderkit.parsing._protocol import Extraction, FieldProvenance, Line, union_bbox
from renderkit.parsing.extract.found import Found, clean
from renderkit.parsing.extract.receipt_lines import meaningful
from renderkit.parsing.fill.coerce import coerce_to_schema
from renderkit.parsing.fill.concepts import concept_for, property_words
from renderkit.parsing.fill.confidence import ocr_factor

__all__ = ["TYPE_FIELDS", "fill_schema", "label_pairs", "type_fields"]

#: The fields returned without a schema, per document type.
TYPE_FIELDS: dict[str, tuple[str, ...]] = {
    "receipt": ("company", "address", "date", "total", "currency", "number"),
    "invoice": ("company", "address", "date", "number", "total", "currency"),
    "purchase_order": ("company", "address", "date", "number", "total", "currency"),
    "contract": ("parties", "effective_date", "jurisdiction", "term"),
    "letter": ("date", "sender", "recipient"),
    "resume": ("name", "email", "phone"),
    "bank_statement": ("company", "date", "currency"),
    "id_form": ("name", "date"),
    "other": ("date",),
}


def _words(name: str) -> str:
    return property_words(name)


def _generic_for(name: str, description: str, title: str = "") -> str | None:
    """The known field a schema property means (see :mod:`renderkit.parsing.fill.concepts`)."""
    return concept_for(name, title, description)


def _hint_labels(name: str, hints: str | None) -> list[str]:
    if not hints:
        return []
    out: list[str] = []
    spaced = _words(name).replace("_", " ")
    for sentence in re.split(r"[.;\n]", hints):
        if spaced in sentence.lower() or name.lower() in sentence.lower():
            out += [
                m
                for pair in re.findall(r"[\"“']([^\"”']+)[\"”']|«([^»]+)»", sentence)
                for m in pair
                if m
            ]
    return out


def _find_label(lines: Sequence[Line], labels: Sequence[str]) -> tuple[str, Line] | None:
    for label in labels:
        words = [re.escape(w) for w in re.split(r"[\s_]+", label.strip()) if w]
        if not words:
            continue
        pattern = re.compile(r"\b" + r"[\s_-]*".join(words) + r"\b\s*[:#.=-]?\s*", re.I)
        for index, line in enumerate(lines):
            match = pattern.search(line.text)
            if match is None:
                continue
            value = clean(line.text[match.end() :])
            if value:
                return value, line
            if index + 1 < len(lines):
                return clean(lines[index + 1].text), lines[index + 1]
    return None


def type_fields(kind: str, found: Mapping[str, Found], lines: Sequence[Line]) -> Extraction:
    """The fields usual for ``kind`` (:data:`TYPE_FIELDS`), a warning for each one missing."""
    expected = TYPE_FIELDS[kind]
    data: dict[str, Any] = {}
    confidence: dict[str, float] = {}
    provenance: dict[str, FieldProvenance] = {}
    names = [*expected]
    if kind in ("receipt", "invoice", "purchase_order"):
        names += ["subtotal", "tax", "email", "phone", "line_items"]
    if kind in ("invoice", "purchase_order"):
        # Reported when found; not every invoice prints them, so missing ones are no warning.
        names += ["customer", "due_date", "vat_id", "iban", "discount"]
    names += ["dates", "emails", "phones"]
    for name in names:
        item = found.get(name)
        if name in ("sender", "recipient", "name") and item is None:
            continue
        value = item.value if item else None
        if name in ("total", "subtotal", "tax", "discount") and isinstance(value, str):
            value = float(value)
        if item is None and name not in expected:
            continue
        data[name] = value
        if item is not None:
            confidence[name] = item.confidence * _line_confidence(item.lines)
            _add_provenance(provenance, name, item)
    pairs = label_pairs(lines)
    if pairs:
        data["key_values"] = pairs
    warnings = tuple(f"{name}: not found" for name in expected if data.get(name) is None)
    return Extraction(
        data=data,
        document_type=kind,
        field_confidence=confidence,
        expected_fields=expected,
        warnings=warnings,
        provenance=provenance,
    )


def fill_schema(
    kind: str,
    found: Mapping[str, Found],
    lines: Sequence[Line],
    schema: Mapping[str, Any],
    hints: str | None,
) -> Extraction:
    """Exactly the schema's properties: each matched to a known field or a printed label."""
    properties: Mapping[str, Any] = schema["properties"]
    data: dict[str, Any] = {}
    confidence: dict[str, float] = {}
    provenance: dict[str, FieldProvenance] = {}
    warnings: list[str] = []
    for name, prop in properties.items():
        prop = prop if isinstance(prop, Mapping) else {}
        description = str(prop.get("description", ""))
        labels = _hint_labels(name, hints)
        item: Found | None = None
        if labels:
            hit = _find_label(lines, labels)
            if hit is not None:
                item = Found(value=hit[0], confidence=0.8, lines=(hit[1],))
        generic = _generic_for(name, description, str(prop.get("title", "")))
        if item is None and generic is not None:
            item = found.get(generic)
            if item is None and generic == "date":
                item = found.get("effective_date")
        if item is None and generic is None:
            # Only for properties no rule knows: a rule that found nothing beats a label
            # that merely appears in running text.
            spaced = _words(name).replace("_", " ")
            hit = _find_label(lines, [spaced, *([description] if len(description) < 40 else [])])
            if hit is not None:
                item = Found(value=hit[0], confidence=0.6, lines=(hit[1],))
        if item is None:
            data[name] = None
            warnings.append(f"{name}: not found in the document")
            continue
        value, ok = coerce_to_schema(_typed(item.value, prop), prop)
        if not ok:
            data[name] = None
            warnings.append(
                f"{name}: found {str(item.value)[:60]!r} but it is not a {prop.get('type')}"
            )
            continue
        data[name] = value
        confidence[name] = item.confidence * _line_confidence(item.lines)
        _add_provenance(provenance, name, item)
    return Extraction(
        data=data,
        document_type=kind,
        field_confidence=confidence,
        expected_fields=tuple(properties),
        warnings=tuple(warnings),
        provenance=provenance,
    )


def _typed(value: Any, prop: Mapping[str, Any]) -> Any:
    # A list-valued field asked for as a single string: keep the first element.
    kind = prop.get("type")
    if isinstance(value, list) and kind == "string":
        return value[0] if value else None
    return value


def _line_confidence(lines: Sequence[Line]) -> float:
    return ocr_factor(w.confidence for line in lines for w in line.words)


def _add_provenance(out: dict[str, FieldProvenance], name: str, item: Found) -> None:
    if not item.lines:
        return
    page = item.lines[0].page
    same = [line for line in item.lines if line.page == page]
    out[name] = FieldProvenance(
        page=page,
        bbox=union_bbox(line.bbox for line in same),
        text=" ".join(line.text for line in same)[:500],
    )


def label_pairs(lines: Sequence[Line], *, limit: int = 50) -> dict[str, str]:
    """``Label: value`` pairs printed on single lines (labels of 2 to 40 characters)."""
    out: dict[str, str] = {}
    for line in lines:
        if not meaningful(line):
            continue
        match = re.match(r"^\s*([A-Za-z][\w .()/#&'-]{1,39}?)\s*[:：]\s*(\S.{0,200})$", line.text)
        if match is None:
            continue
        label = clean(match.group(1))
        value = clean(match.group(2))
        if label and value and label not in out:
            out[label] = value
            if len(out) >= limit:
                break
    return out
