"""The local extractor: offline rules over the document's words, no model, no downloads.

Without a schema it detects the document type and returns the fields usual for that type
(see :data:`TYPE_FIELDS`) plus the ``Label: value`` pairs it saw. With a schema it fills exactly
the schema's properties: each property is matched by its name, its description and the hints
to a known field (``vendor`` -> the seller, ``amount_due`` -> the total...) or else to a label
printed in the document, and the value is coerced to the property's type. What it cannot find
is null, with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import anyio.to_thread
import attrs

from renderkit.parsing._fields import Found, clean
from renderkit.parsing._protocol import Document, Extraction, FieldProvenance, Line, union_bbox
from renderkit.parsing._values import (
    find_currency,
    find_dates,
    find_emails,
    find_phones,
)
from renderkit.parsing.coerce import coerce_to_schema
from renderkit.parsing.concepts import concept_for, property_words
from renderkit.parsing.confidence import ocr_factor
from renderkit.parsing.contract import contract_fields
from renderkit.parsing.invoice import InvoiceFields, invoice_fields
from renderkit.parsing.receipt import meaningful, receipt_fields, till_receipt

__all__ = ["TYPE_FIELDS", "LocalExtractor", "classify", "key_values"]

#: Keywords per document type, weighted; the best score wins, "other" below a threshold.
_TYPE_KEYWORDS: dict[str, tuple[tuple[str, float], ...]] = {
    "invoice": (
        (r"\binvoice\b", 3), (r"\bbill\s+to\b", 2), (r"\bdue\s+date\b", 2),
        (r"\binvoice\s*(no|number|#)", 3), (r"\bpayment\s+terms\b", 1), (r"\bsubtotal\b", 1),
        (r"\bvat\b|\btax\b", 0.5),
        (r"\brechnung|\bfacture\b|\bfactura\b|\bfattura\b|\bfactuur\b", 3),
        (r"\biban\b|\bust-?id|\bmwst\b|\btva\b", 1),
    ),
    "receipt": (
        (r"\breceipt\b", 2), (r"\bcash(ier)?\b", 2), (r"\bchange\b", 1.5), (r"\btotal\b", 1),
        (r"\bthank\s+you\b", 1), (r"\brounding\b", 2), (r"\bqty\b", 1), (r"\bgst\b", 1),
        (r"\bsdn\.?\s*bhd\b", 1), (r"\btax\s+invoice\b", 1), (r"\bvisa|mastercard\b", 1),
    ),
    "purchase_order": (
        (r"\bpurchase\s+order\b", 5), (r"\bp\.?o\.?\s*(no|number|#)", 3), (r"\bship\s+to\b", 1),
        (r"\bvendor\b", 1), (r"\bdelivery\s+date\b", 1),
    ),
    "contract": (
        (r"\bagreement\b", 2), (r"\bwhereas\b", 3), (r"\bhereby\b", 1),
        (r"\bparty\b|\bparties\b", 1.5),
        (r"\bgoverned\s+by\b", 3), (r"\bconfidential", 1), (r"\bterminat", 1),
        (r"\bin\s+witness\s+whereof\b", 3), (r"\bshall\b", 0.5),
    ),
    "letter": (
        (r"^\s*dear\b", 4), (r"\b(yours\s+(sincerely|faithfully|truly)|sincerely|regards)\b", 3),
        (r"\bre:\s", 1),
    ),
    "resume": (
        (r"\b(curriculum\s+vitae|resume|résumé)\b", 4), (r"\bwork\s+experience\b", 3),
        (r"\beducation\b", 2), (r"\bskills\b", 2), (r"\breferences\b", 1),
    ),
    "bank_statement": (
        (r"\bstatement\s+(of\s+account|period)\b", 4), (r"\bopening\s+balance\b", 3),
        (r"\bclosing\s+balance\b", 3), (r"\baccount\s+(no|number)\b", 2),
        (r"\bdebit\b", 1), (r"\bcredit\b", 1), (r"\bbank\s+statement\b", 4),
    ),
    "id_form": (
        (r"\bdate\s+of\s+birth\b", 3), (r"\bpassport\b", 3), (r"\bnationality\b", 2),
        (r"\bsignature\b", 1), (r"\bapplicant\b", 2), (r"\bapplication\s+form\b", 3),
        (r"\bid\s*(no|number)\b", 2), (r"\bsex\b|\bgender\b", 1),
    ),
}  # fmt: skip

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


def _score_type(text: str) -> dict[str, float]:
    lowered = text.lower()
    scores: dict[str, float] = {}
    for kind, keywords in _TYPE_KEYWORDS.items():
        score = 0.0
        for pattern, weight in keywords:
            hits = len(re.findall(pattern, lowered, re.M))
            score += weight * min(hits, 3) ** 0.5
        scores[kind] = score
    return scores


def classify(text: str) -> tuple[str, float]:
    """The document type of ``text`` and a confidence in [0, 1]."""
    scores = _score_type(text)
    kind = max(scores, key=lambda k: scores[k])
    best = scores[kind]
    if best < 3:
        return "other", 0.5
    ordered = sorted(scores.values(), reverse=True)
    margin = (ordered[0] - ordered[1]) / ordered[0]
    if kind == "invoice" and till_receipt(text):
        # Tills print "TAX INVOICE" over receipts; how it was paid decides, not the title.
        return "receipt", round(min(1.0, 0.5 + margin), 3)
    return kind, round(min(1.0, 0.5 + margin), 3)


def _day_first(text: str, hints: str | None) -> bool:
    if hints and re.search(r"month[\s-]first|mm/dd|\bUS\b|american", hints, re.I):
        return False
    if hints and re.search(r"day[\s-]first|dd/mm", hints, re.I):
        return True
    return True


def _words(name: str) -> str:
    return property_words(name)


def _generic_for(name: str, description: str, title: str = "") -> str | None:
    """The known field a schema property means (see :mod:`renderkit.parsing.concepts`)."""
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
            extraction = self._fill_schema(kind, found, lines, schema, hints)
        else:
            extraction = self._generic(kind, found, lines)
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

    def _generic(self, kind: str, found: dict[str, Found], lines: list[Line]) -> Extraction:
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
        pairs = key_values(lines)
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

    def _fill_schema(
        self,
        kind: str,
        found: dict[str, Found],
        lines: list[Line],
        schema: Mapping[str, Any],
        hints: str | None,
    ) -> Extraction:
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
                hit = _find_label(
                    lines, [spaced, *([description] if len(description) < 40 else [])]
                )
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


def key_values(lines: Sequence[Line], *, limit: int = 50) -> dict[str, str]:
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
