"""An e-invoice as an :class:`~renderkit.parsing.Extraction`, with or without a schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from renderkit.parsing._protocol import Extraction
from renderkit.parsing.einvoice._model import EInvoice
from renderkit.parsing.fill.coerce import coerce_to_schema
from renderkit.parsing.fill.concepts import concept_for, property_words

__all__ = ["EXTRACTOR_NAME", "INVOICE_FIELDS", "einvoice_extraction"]

#: The result's ``extractor`` when the values were read from an embedded XML.
EXTRACTOR_NAME = "embedded-xml"

#: The header fields reported without a schema; ``address`` and ``line_items`` follow when
#: the XML has them.
INVOICE_FIELDS: tuple[str, ...] = (
    "issuer",
    "invoice_number",
    "date",
    "due_date",
    "total",
    "subtotal",
    "tax",
    "currency",
    "vat_id",
    "iban",
    "customer",
)
_AMOUNTS = ("total", "subtotal", "tax")

# The local extractor's concept names (see local._SYNONYMS) that this module calls otherwise.
_CONCEPT_FIELDS = {"company": "issuer", "number": "invoice_number"}


def einvoice_extraction(invoice: EInvoice, schema: Mapping[str, Any] | None) -> Extraction:
    """The fields of ``invoice``; with ``schema``, exactly its properties.

    A property is filled when its name is one of the invoice's fields (``due_date``,
    ``dueDate``...) or when the local extractor maps its name or description to one
    (``vendor`` -> the issuer, ``amount_due`` -> the total); otherwise it is null with a
    warning. Values read from the XML are exact, so each found field has confidence 1.0.
    """
    values = _values(invoice)
    if schema is None or not isinstance(schema.get("properties"), Mapping):
        return _generic(values)
    data: dict[str, Any] = {}
    warnings: list[str] = []
    for name, declared in schema["properties"].items():
        prop: Mapping[str, Any] = declared if isinstance(declared, Mapping) else {}
        field = _field_for(name, str(prop.get("description", "")))
        value = values.get(field) if field is not None else None
        if value is None:
            data[name] = None
            warnings.append(f"{name}: not in the embedded invoice XML")
            continue
        coerced, ok = coerce_to_schema(value, prop)
        if not ok:
            data[name] = None
            warnings.append(f"{name}: the XML's {field} is not a {prop.get('type')}")
            continue
        data[name] = coerced
    return Extraction(
        data=data,
        document_type="invoice",
        field_confidence={name: 1.0 for name, value in data.items() if value is not None},
        expected_fields=tuple(schema["properties"]),
        warnings=tuple(warnings),
    )


def _values(invoice: EInvoice) -> dict[str, Any]:
    # Amounts stay 2-place strings here so that a string property gets "1163.40", not 1163.4.
    values: dict[str, Any] = {name: getattr(invoice, name) for name in INVOICE_FIELDS}
    values["address"] = invoice.address
    values["line_items"] = [line.to_dict() for line in invoice.line_items] or None
    return values


def _field_for(name: str, description: str) -> str | None:
    key = property_words(name)
    if key in INVOICE_FIELDS or key in ("address", "line_items"):
        return key
    concept = concept_for(name, description=description)
    return _CONCEPT_FIELDS.get(concept, concept) if concept is not None else None


def _generic(values: dict[str, Any]) -> Extraction:
    data: dict[str, Any] = {}
    for name in (*INVOICE_FIELDS, "address", "line_items"):
        value = values[name]
        if name in _AMOUNTS and value is not None:
            value = float(value)
        if value is not None or name in INVOICE_FIELDS:
            data[name] = value
    return Extraction(
        data=data,
        document_type="invoice",
        field_confidence={name: 1.0 for name, value in data.items() if value is not None},
        expected_fields=INVOICE_FIELDS,
        warnings=tuple(
            f"{name}: not in the embedded invoice XML"
            for name in INVOICE_FIELDS
            if data[name] is None
        ),
    )
