from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from renderkit.parsing import Document, Extraction, ParseRequest, parse
from renderkit.parsing.fill.confidence import (
    FAILED_CHECK_CAP,
    INVALID_CAP,
    OCR_CLEAN,
    failed_check,
    field_confidences,
    ocr_factor,
    overall_confidence,
)
from renderkit.testing import FakeExtractor

from ._documents import text_pdf


class _Weak:
    """An extractor sure of the total and unsure of the vendor."""

    name = "weak"

    async def extract(
        self, document: Document, *, schema: Mapping[str, Any] | None, hints: str | None
    ) -> Extraction:
        return Extraction(
            data={"total": 12.0, "vendor": "ACME"},
            document_type="invoice",
            field_confidence={"total": 0.9, "vendor": 0.5},
        )

    async def aclose(self) -> None:
        pass


PDF = text_pdf([["Some document", "Total: 12.00"]])


def test_every_found_field_gets_its_own_confidence_and_missing_ones_none() -> None:
    data = {"total": 12.0, "date": "2024-01-02", "company": None, "items": []}
    fields = field_confidences(data, {"total": 0.9, "date": 1.4}, default=0.7)
    assert fields == {"total": 0.9, "date": 1.0}


def test_a_field_without_a_reported_confidence_gets_the_documents_ocr_confidence() -> None:
    assert field_confidences({"total": 3.0}, {}, default=0.62) == {"total": 0.62}


def test_a_field_failing_the_schema_is_capped_low() -> None:
    fields = field_confidences({"total": "ten"}, {"total": 0.95}, invalid={"total"}, default=1.0)
    assert fields["total"] == INVALID_CAP


def test_a_failed_arithmetic_or_checksum_caps_the_field_and_never_raises_it() -> None:
    assert failed_check(0.95) == FAILED_CHECK_CAP
    assert failed_check(0.1) == 0.1


def test_the_overall_confidence_is_the_weakest_requested_field() -> None:
    data = {"total": 1.0, "date": "2024-01-02", "extra": "x"}
    fields = {"total": 0.9, "date": 0.6, "extra": 0.1}
    assert overall_confidence(("total", "date"), data, fields) == 0.6


def test_a_missing_requested_field_lowers_the_overall_confidence() -> None:
    data = {"total": 1.0, "date": None}
    assert overall_confidence(("total", "date"), data, {"total": 0.9}) == 0.45


def test_a_clean_reading_keeps_the_rule_confidence_and_a_poor_one_lowers_it() -> None:
    assert ocr_factor([1.0, 1.0]) == 1.0  # a text layer
    assert ocr_factor([OCR_CLEAN, 0.95]) == 1.0
    assert ocr_factor([]) == 1.0
    assert ocr_factor([OCR_CLEAN / 2]) == pytest.approx(0.5)


def test_nothing_found_is_zero_confidence() -> None:
    assert overall_confidence(("total",), {"total": None}, {}) == 0.0


@pytest.mark.anyio
async def test_parse_reports_per_field_confidence_and_the_weakest_schema_property() -> None:
    schema = {
        "type": "object",
        "properties": {"total": {"type": "number"}, "vendor": {"type": "string"}},
    }
    result = await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=schema), extractor=_Weak()
    )
    assert result.field_confidence == {"total": 0.9, "vendor": 0.5}
    assert result.confidence == 0.5
    assert result.to_dict()["field_confidence"] == {"total": 0.9, "vendor": 0.5}


@pytest.mark.anyio
async def test_a_schema_property_the_extractor_did_not_fill_lowers_the_confidence() -> None:
    schema = {
        "type": "object",
        "properties": {"total": {"type": "number"}, "due_date": {"type": "string"}},
    }
    result = await parse(
        ParseRequest.from_bytes(PDF, "application/pdf", schema=schema),
        extractor=FakeExtractor({"total": 12.0}),
    )
    assert result.data == {"total": 12.0, "due_date": None}
    assert result.confidence == 0.5
