"""core.pdfstreams: every stream of a PDF decoded on the raw bytes, bounded, before PDFium."""

from __future__ import annotations

import time
import zlib

import pytest

from renderkit import InvalidRequestError
from renderkit.core.pdfstreams import StreamCeilings, check_streams

from ._documents import _assemble, text_pdf
from ._hostile import attachment_bomb_pdf, content_bomb_pdf, deflated_zeros, huge_image_pdf

CEILINGS = StreamCeilings(
    embedded=1_000_000, inflated=4_000_000, pixels=1_000_000, images=8_000_000
)


def _refused(content: bytes) -> str:
    with pytest.raises(InvalidRequestError) as caught:
        check_streams(content, CEILINGS)
    assert caught.value.errors[0].field == "file"
    return str(caught.value)


def test_an_ordinary_pdf_passes() -> None:
    check_streams(text_pdf([["Invoice No: 1", "Total 3.00"]] * 3), CEILINGS)


def test_an_attachment_past_max_embedded_bytes_is_refused_naming_it() -> None:
    assert "max_embedded_bytes" in _refused(attachment_bomb_pdf(2_000_000))
    check_streams(attachment_bomb_pdf(900_000), CEILINGS)


def test_content_streams_past_max_inflated_bytes_together_are_refused_naming_it() -> None:
    assert "max_inflated_bytes" in _refused(content_bomb_pdf(5_000_000))
    check_streams(content_bomb_pdf(3_000_000), CEILINGS)


def test_a_twice_deflated_stream_is_measured_through_both_filters() -> None:
    assert "max_inflated_bytes" in _refused(
        content_bomb_pdf(5_000_000, b"[/FlateDecode /FlateDecode]")
    )


def test_a_stream_hidden_inside_another_streams_declared_length_is_measured() -> None:
    bomb = b"<< /Filter /FlateDecode >>\nstream\n" + deflated_zeros(5_000_000) + b"\nendstream"
    cover = b"<< /Length %d >>\nstream\n" % (len(bomb) + 20) + b"q Q\n" + bomb + b"\nendstream"
    pdf = _assemble(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 4 0 R >>",
            cover,
        ]
    )
    assert "max_inflated_bytes" in _refused(pdf)


def test_a_stream_without_a_readable_filter_is_tried_as_flate() -> None:
    pdf = content_bomb_pdf(5_000_000).replace(b"/Filter /FlateDecode", b"/Filter 9 0 R")
    assert "max_inflated_bytes" in _refused(pdf)


def test_an_image_is_bounded_by_its_declared_size_and_max_pixels() -> None:
    assert "100000x100000" in _refused(huge_image_pdf())
    check_streams(huge_image_pdf(500), CEILINGS)
    forged = huge_image_pdf(10).replace(deflated_zeros(1000), zlib.compress(bytes(2_000_000)))
    assert "declared size" in _refused(forged)


def test_an_encrypted_pdf_is_refused() -> None:
    pdf = text_pdf([["x"]]).replace(b"/Root 1 0 R", b"/Root 1 0 R /Encrypt 9 0 R")
    assert "encrypted" in _refused(pdf)


def test_a_length_by_reference_is_not_read_as_a_number() -> None:
    pdf = content_bomb_pdf(5_000_000).replace(b"/Length ", b"/Length 12 0 R /X ")
    assert "max_inflated_bytes" in _refused(pdf)


def test_many_stream_keywords_before_one_long_body_are_scanned_in_linear_time() -> None:
    # Every keyword's data runs to the one endstream; each is read only up to its own
    # end-of-data marker (as PDFium reads it), never the shared body once per keyword.
    body = b"<< /Filter /ASCIIHexDecode >>\nstream\n" * 2000 + b"ab" * 1_000_000
    hexed = _assemble([b"<< /Type /Catalog >>", body + b">\nendstream"])
    body = b"<< /Filter /RunLengthDecode >>\nstream\n" * 2000 + b"\x7fa" * 1_000_000
    runs = _assemble([b"<< /Type /Catalog >>", body + b"\nendstream"])
    start = time.monotonic()
    check_streams(hexed, CEILINGS)
    assert "max_inflated_bytes" in _refused(runs)
    assert time.monotonic() - start < 3
