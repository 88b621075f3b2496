"""How sure a parse is: the one rule for per-field and overall confidence.

Extractors report, per field, how often their rule is right when it fires
(:attr:`~renderkit.parsing.Extraction.field_confidence`). This module turns that into what a
:class:`~renderkit.parsing.ParseResult` reports:

- the local extractor's confidence for a value is its rule's (how often the rule is right when
  it fires) times :func:`ocr_factor` of the words it was read from;
- a field's confidence is the extractor's, clamped to [0, 1]; a field the extractor gave no
  confidence for gets the document's OCR confidence (1.0 for text layers); a field that fails
  schema validation is capped at :data:`INVALID_CAP`, and one whose arithmetic or checksum
  failed (the extractor calls :func:`failed_check`) at :data:`FAILED_CHECK_CAP`;
- the overall confidence is that of the weakest *requested* field (the schema's properties,
  or the document type's usual fields), times the share of requested fields that were found,
  so a missing field lowers it as a weak one does.

The figures are meant to be calibrated: of the fields reported with confidence >= 0.8, at
least 80% should be right, and so on per band (``scripts/eval_parse.py`` prints the table).
The local extractor lowers its rules' figures to what synthetic documents showed before they
reach this module (:mod:`~renderkit.parsing.fill.calibration`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

__all__ = [
    "FAILED_CHECK_CAP",
    "INVALID_CAP",
    "OCR_CLEAN",
    "failed_check",
    "field_confidences",
    "is_found",
    "ocr_factor",
    "overall_confidence",
]

#: The most a field whose arithmetic (quantity x price = amount, lines sum to the subtotal,
#: subtotal + tax = total) or checksum (IBAN mod-97, VAT id format) failed may report: such
#: a value was read, but at least one of the numbers it was checked against is wrong.
FAILED_CHECK_CAP = 0.3

#: The most a field that does not match the request's schema may report.
INVALID_CAP = 0.2

#: Mean word confidence from which an OCR reading counts as clean. Above it, how sure the
#: engine says it is tells little about whether the value is right (on the dev receipts,
#: multiplying by it made every band under-confident); below it, misreads become common.
#: Engines differ in scale, so only a poor reading lowers a value.
OCR_CLEAN = 0.8


def is_found(value: Any) -> bool:
    """Whether ``value`` counts as a found field (not null, not empty)."""
    return value not in (None, "", [], {})


def failed_check(confidence: float) -> float:
    """``confidence`` lowered for a value whose arithmetic or checksum failed.

    Extractors call this and add a warning saying which check failed.
    """
    return min(confidence, FAILED_CHECK_CAP)


def ocr_factor(word_confidences: Iterable[float]) -> float:
    """How much the reading of a value's words lowers its rule's confidence.

    1.0 for text layers and clean OCR (mean word confidence >= :data:`OCR_CLEAN`), falling in
    proportion below it; 1.0 for a value read from no particular words.
    """
    values = list(word_confidences)
    if not values:
        return 1.0
    return min(1.0, sum(values) / len(values) / OCR_CLEAN)


def _clamp(value: float) -> float:
    return max(0.0, min(1.0, value))


def field_confidences(
    data: Mapping[str, Any],
    reported: Mapping[str, float],
    *,
    invalid: Collection[str] = (),
    default: float,
) -> dict[str, float]:
    """The confidence of every found field of ``data``, rounded to 3 places.

    Args:
        data: the result's fields.
        reported: the extractor's per-field confidences.
        invalid: fields that failed schema validation.
        default: the confidence of a found field the extractor gave none for (the
            document's OCR confidence).
    """
    out: dict[str, float] = {}
    for name, value in data.items():
        if not is_found(value):
            continue
        confidence = _clamp(reported.get(name, default))
        if name in invalid:
            confidence = min(confidence, INVALID_CAP)
        out[name] = round(confidence, 3)
    return out


def overall_confidence(
    requested: Collection[str], data: Mapping[str, Any], fields: Mapping[str, float]
) -> float:
    """The weakest requested field's confidence times the share of requested fields found.

    Args:
        requested: the fields asked for: the schema's properties, or the document type's
            usual fields (all of ``data`` when empty).
        data: the result's fields.
        fields: per-field confidences from :func:`field_confidences`.

    Returns:
        A confidence in [0, 1]; 0.0 when nothing requested was found.
    """
    names = list(requested) or list(data)
    found = [name for name in names if is_found(data.get(name))]
    if not found:
        return 0.0
    weakest = min(fields.get(name, 0.0) for name in found)
    return round(_clamp(weakest * len(found) / len(names)), 3)
