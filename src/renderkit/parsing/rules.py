"""The local extractor: offline rules over the document's words, no model, no downloads.

It reads a document the way the tree is laid out: the type is decided once
(:mod:`~renderkit.parsing.extract.classify`), the rules of that type extract what they can
(:mod:`~renderkit.parsing.extract`), and the found values fill the schema's properties, or the
type's usual fields without a schema (:mod:`~renderkit.parsing.fill.fields`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import anyio.to_thread
import attrs

from renderkit.parsing._protocol import Document, Extraction, Line
from renderkit.parsing.extract.classify import classify
from renderkit.parsing.extract.contract import contract_fields
from renderkit.parsing.extract.found import Found
from renderkit.parsing.extract.invoice import InvoiceFields, invoice_fields
from renderkit.parsing.extract.receipt import receipt_fields
from renderkit.parsing.extract.values import find_currency, find_dates, find_emails, find_phones
from renderkit.parsing.fill.fields import fill_schema, type_fields

__all__ = ["LocalExtractor"]


def _day_first(text: str, hints: str | None) -> bool:
    if hints and re.search(r"month[\s-]first|mm/dd|\bUS\b|american", hints, re.I):
        return False
    if hints and re.search(r"day[\s-]first|dd/mm", hints, re.I):
        return True
    return True


class LocalExtractor:
    """The offline :class:`~renderkit.parsing.Extractor`: keyword type detection and
    layout/label rules for receipts, invoices and contracts, plus label matching for any schema.

    Args:
        day_first: read ambiguous numeric dates (03/04/2024) day first. None (default) means
            day first unless the hints ask for month first (``"US dates"``, ``"mm/dd"``).
    """

    name = "local"

    def __init__(self, *, day_first: bool | None = None) -> None:
        self.day_first = day_first

    async def extract(
        self, document: Document, *, schema: Mapping[str, Any] | None, hints: str | None
    ) -> Extraction:
        """Extract fields; CPU work runs in a worker thread. Never raises for content."""
        return await anyio.to_thread.run_sync(self.extract_sync, document, schema, hints)

    async def aclose(self) -> None:
        """Nothing to release."""

    def extract_sync(
        self, document: Document, schema: Mapping[str, Any] | None, hints: str | None
    ) -> Extraction:
        """The same as :meth:`extract`, blocking."""
        lines = list(document.lines)
        text = document.text
        kind, _ = classify(text + ("\n" + hints if hints else ""))
        day_first = self.day_first if self.day_first is not None else _day_first(text, hints)
        invoice = (
            invoice_fields(document)
            if kind in ("invoice", "purchase_order")
            else InvoiceFields(fields={})
        )
        found = self._analyse(kind, lines, text, day_first, invoice)
        if schema is not None and isinstance(schema.get("properties"), Mapping):
            extraction = fill_schema(kind, found, lines, schema, hints)
        else:
            extraction = type_fields(kind, found, lines)
        if invoice.warnings:
            extraction = attrs.evolve(
                extraction, warnings=(*extraction.warnings, *invoice.warnings)
            )
        return extraction

    def _analyse(
        self,
        kind: str,
        lines: list[Line],
        text: str,
        day_first: bool,
        invoice: InvoiceFields,
    ) -> dict[str, Found]:
        found: dict[str, Found] = {}
        contract = contract_fields(text)
        receipt = receipt_fields(lines, day_first=day_first)
        if kind in ("invoice", "purchase_order"):
            # Till receipts printed "TAX INVOICE" take the receipt path (classify), so here the
            # layout reading wins; the receipt rules only fill what it did not find, and where
            # both read the same value, the more confident reading (and its lines) stays.
            found.update(receipt)
            found.pop("line_items", None)
            for name, item in invoice.fields.items():
                rival = found.get(name)
                if (
                    rival is None
                    or rival.value != item.value
                    or item.confidence >= rival.confidence
                ):
                    found[name] = item
        elif kind == "contract":
            found.update(receipt)
            found.update(contract)
            if "effective_date" in contract:
                found["date"] = contract["effective_date"]
            else:
                found.pop("date", None)
        else:
            found.update(contract)
            found.update(receipt)
        currency = find_currency(text)
        if currency and "currency" not in invoice.fields:
            found["currency"] = Found(value=currency, confidence=0.8)
        dates = find_dates(text, day_first=day_first)
        if dates:
            found["dates"] = Found(
                value=list(dict.fromkeys(d.isoformat() for d, _, _ in dates))[:20], confidence=0.9
            )
        emails = find_emails(text)
        if emails:
            found["emails"] = Found(value=emails[:10], confidence=0.9)
        phones = find_phones(text)
        if phones:
            found["phones"] = Found(value=phones[:10], confidence=0.8)
        return found
