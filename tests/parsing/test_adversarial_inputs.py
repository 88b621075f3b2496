"""Hostile documents through ``parse``: each is refused (InvalidRequestError, a 400) or read,
within 10 s and 300 MB of peak memory, and the cost ceilings refuse before the work.

The named documents run in one child interpreter whose peak RSS is reset before each (PDFium
and OCR allocate outside Python); the mutated ones run here under Hypothesis, derandomized,
with an OCR engine that only records what it was given.
"""

from __future__ import annotations

import io
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from PIL import Image

from renderkit import InvalidRequestError, ParseRequest, ParseResult, parse
from renderkit.parsing import ParseLimits
from renderkit.parsing._protocol import Page
from tests._blocking import run_blocking

from ._documents import image_pdf
from ._hostile import NAMED, PDF
from ._measure import measure
from ._mutations import mutated

SECONDS = 10.0
MEGABYTES = 300.0


@pytest.fixture(scope="module")
def measured() -> dict[str, Any]:
    return measure(list(NAMED.values()))


@pytest.mark.parametrize("name", NAMED)
def test_a_hostile_document_is_refused_or_read_within_10_s_and_300_mb(
    measured: dict[str, Any], name: str
) -> None:
    row = measured[NAMED[name][0]]
    assert row["outcome"] in ("refused", "result"), row
    assert row["seconds"] < SECONDS, row
    assert row["rss_growth_mb"] < MEGABYTES, row
    if row["outcome"] == "refused":
        assert row["field"] in ("file", "mimeType"), row


def test_an_attachment_inflating_to_512_mb_is_refused_naming_max_embedded_bytes(
    measured: dict[str, Any],
) -> None:
    row = measured["attachment_bomb_pdf()"]
    assert row["outcome"] == "refused"
    assert row["field"] == "file"
    assert "max_embedded_bytes" in row["message"]
    assert row["seconds"] < 1, row


def test_one_stream_named_by_32_attachments_counts_32_times(measured: dict[str, Any]) -> None:
    row = measured["attachment_bomb_pdf(6_000_000, 32)"]
    assert row["outcome"] == "refused"
    assert "max_embedded_bytes" in row["message"]


def test_fifty_blank_200_inch_pages_are_read_as_blank_in_seconds(
    measured: dict[str, Any],
) -> None:
    row = measured["huge_blank_pages_pdf()"]
    assert row["outcome"] == "result"
    assert row["pages"] == 50
    assert row["seconds"] < 5, row


def test_a_tiny_jpeg_claiming_7000x7000_is_refused_before_decoding(
    measured: dict[str, Any],
) -> None:
    row = measured["image_claiming(7000, 7000)"]
    assert row["outcome"] == "refused"
    assert row["field"] == "file"
    assert row["rss_growth_mb"] < 50, row


def test_a_content_stream_bomb_is_refused_naming_max_inflated_bytes(
    measured: dict[str, Any],
) -> None:
    row = measured["content_bomb_pdf()"]
    assert row["outcome"] == "refused"
    assert "max_inflated_bytes" in row["message"]


class RecordingOcr:
    """An OCR engine that reads nothing and records the size of every image it is given."""

    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []

    async def recognize(self, image: Image.Image, *, page: int, detect_orientation: bool) -> Page:
        self.sizes.append(image.size)
        return Page(number=page, lines=(), source="ocr", width=image.width, height=image.height)


def _parse(content: bytes, mime_type: str, limits: ParseLimits) -> tuple[Any, RecordingOcr]:
    """Parse in-process, returning the result or the InvalidRequestError, and the OCR fake."""
    ocr = RecordingOcr()
    request = ParseRequest.from_bytes(content, mime_type)
    start = time.monotonic()
    try:
        outcome: Any = run_blocking(lambda: parse(request, ocr=ocr, limits=limits))
    except InvalidRequestError as exc:
        outcome = exc
    assert time.monotonic() - start < SECONDS
    assert isinstance(outcome, ParseResult | InvalidRequestError)
    return outcome, ocr


def test_the_pages_ocr_pixels_share_max_ocr_pixels() -> None:
    limits = ParseLimits(max_ocr_pixels=20_000_000)
    page = Image.new("L", (200, 200), 255)
    page.paste(0, (20, 20, 180, 40))  # something to read, so the page is not blank
    _, ocr = _parse(_scans(page, 6), PDF, limits)
    assert len(ocr.sizes) == 6
    assert sum(w * h for w, h in ocr.sizes) <= limits.max_ocr_pixels


def _scans(page: Image.Image, count: int) -> bytes:
    """A PDF of ``count`` scanned pages (images 200 dpi, no text layer), all ``page``."""
    out = io.BytesIO()
    page.save(out, "PDF", resolution=200.0, save_all=True, append_images=[page] * (count - 1))
    return out.getvalue()


def test_a_blank_page_is_not_sent_to_ocr() -> None:
    result, ocr = _parse(image_pdf(Image.new("L", (300, 300), 250)), PDF, ParseLimits())
    assert isinstance(result, ParseResult)
    assert result.pages == 1
    assert ocr.sizes == []


SMALL = ParseLimits(max_pixels=4_000_000, max_ocr_pixels=8_000_000, max_inflated_bytes=4_000_000)


@settings(
    max_examples=120,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutated())
def test_a_mutated_pdf_or_image_is_refused_or_read_in_bounds(document: tuple[bytes, str]) -> None:
    content, mime = document
    _, ocr = _parse(content, mime, SMALL)
    assert all(w * h <= SMALL.max_pixels for w, h in ocr.sizes)
    assert sum(w * h for w, h in ocr.sizes) <= SMALL.max_ocr_pixels
