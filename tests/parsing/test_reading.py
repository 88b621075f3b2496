from __future__ import annotations

import base64

import anyio
import pytest
from PIL import Image
from pypdf import PdfReader, PdfWriter

from renderkit import InvalidRequestError
from renderkit.parsing import ParseLimits, read_document
from renderkit.parsing._models import ParseRequest
from renderkit.parsing.pipeline import parse
from renderkit.parsing.readers.document import decode_file, sniff_mime_type

from ._documents import _assemble, encode, many_pages_pdf, text_pdf

LIMITS = ParseLimits()

INVOICE = text_pdf([["ACME TRADING LTD", "INVOICE", "Date: 3 March 2024", "Total due: 24.00"]])


def _field(exc: pytest.ExceptionInfo[InvalidRequestError]) -> str:
    return exc.value.errors[0].field


def test_decode_file_refuses_text_that_is_not_base64() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        decode_file("this is not base64!!", max_bytes=1000)
    assert _field(exc) == "file"


def test_decode_file_refuses_an_empty_file() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        decode_file("", max_bytes=1000)
    assert _field(exc) == "file"


def test_decode_file_refuses_an_oversized_file_before_decoding() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        decode_file("A" * 40_000, max_bytes=1_000)
    assert _field(exc) == "file"


def test_decode_file_accepts_data_urls_url_safe_alphabet_and_line_breaks() -> None:
    raw = bytes(range(256))
    standard = base64.b64encode(raw).decode()
    urlsafe = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    assert decode_file("data:application/pdf;base64," + standard, max_bytes=1000) == raw
    assert decode_file(urlsafe, max_bytes=1000) == raw
    assert (
        decode_file(
            "\n".join(standard[i : i + 76] for i in range(0, len(standard), 76)), max_bytes=1000
        )
        == raw
    )


def test_sniff_mime_type_recognises_the_four_accepted_types() -> None:
    image = Image.new("RGB", (10, 10), "white")
    assert sniff_mime_type(INVOICE) == "application/pdf"
    assert sniff_mime_type(encode(image, "PNG")) == "image/png"
    assert sniff_mime_type(encode(image, "JPEG")) == "image/jpeg"
    assert sniff_mime_type(encode(image, "WEBP")) == "image/webp"
    assert sniff_mime_type(b"GIF89a....") is None


@pytest.mark.anyio
async def test_a_mime_type_that_does_not_match_the_bytes_is_an_error_on_mime_type() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        await parse(ParseRequest.from_bytes(INVOICE, "image/png"))
    assert _field(exc) == "mimeType"


@pytest.mark.anyio
async def test_bytes_of_no_supported_type_are_an_error_on_file() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        await parse(ParseRequest.from_bytes(b"hello world, plain text", "application/pdf"))
    assert _field(exc) == "file"


@pytest.mark.anyio
async def test_an_unknown_mime_type_is_refused_naming_mime_type() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        await parse({"file": base64.b64encode(INVOICE).decode(), "mimeType": "text/plain"})
    assert _field(exc) == "mimeType"


@pytest.mark.anyio
async def test_a_missing_mime_type_is_reported_as_missing() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        await parse({"file": base64.b64encode(INVOICE).decode()})
    assert exc.value.errors[0].field == "mimeType"
    assert exc.value.missing


@pytest.mark.anyio
async def test_a_corrupt_pdf_is_an_error_on_file() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        await parse(ParseRequest.from_bytes(b"%PDF-1.7\n garbage " * 20, "application/pdf"))
    assert _field(exc) == "file"


@pytest.mark.anyio
async def test_a_password_protected_pdf_is_an_error_on_file() -> None:
    import io

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(INVOICE)))
    writer.encrypt("secret", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(InvalidRequestError) as exc:
        await parse(ParseRequest.from_bytes(out.getvalue(), "application/pdf"))
    assert _field(exc) == "file"
    assert "encrypted" in str(exc.value)


@pytest.mark.anyio
async def test_a_pdf_over_the_page_limit_is_refused_without_reading_its_pages() -> None:
    content = many_pages_pdf(10_000)
    with anyio.fail_after(5), pytest.raises(InvalidRequestError) as exc:
        await read_document(content, "application/pdf", ocr=None, limits=ParseLimits(max_pages=50))
    assert _field(exc) == "file"
    assert "10,000 pages" in str(exc.value)


@pytest.mark.anyio
async def test_an_image_with_too_many_pixels_is_refused_before_decoding() -> None:
    bomb = encode(Image.new("1", (20_000, 20_000), 1), "PNG")
    assert len(bomb) < 200_000
    with anyio.fail_after(5), pytest.raises(InvalidRequestError) as exc:
        await read_document(bomb, "image/png", ocr=None, limits=ParseLimits(max_pixels=50_000_000))
    assert _field(exc) == "file"


@pytest.mark.anyio
async def test_a_truncated_image_is_an_error_on_file() -> None:
    content = encode(Image.new("RGB", (400, 400), "white"), "JPEG")[:300]
    with pytest.raises(InvalidRequestError) as exc:
        await read_document(content, "image/jpeg", ocr=None, limits=ParseLimits())
    assert _field(exc) == "file"


@pytest.mark.anyio
async def test_a_pdf_text_layer_is_read_with_normalised_word_boxes() -> None:
    document = await read_document(INVOICE, "application/pdf", ocr=None, limits=ParseLimits())
    (page,) = document.pages
    assert page.source == "text"
    assert [line.text for line in page.lines][:2] == ["ACME TRADING LTD", "INVOICE"]
    first = page.words[0]
    assert first.text == "ACME"
    assert first.confidence == 1.0
    x0, y0, x1, y1 = first.bbox
    assert 0 < x0 < x1 < 1 and 0 < y0 < y1 < 0.2  # near the top left
    assert document.ocr_confidence == 1.0


def test_parse_limits_must_be_positive() -> None:
    from renderkit import ConfigurationError

    with pytest.raises(ConfigurationError):
        ParseLimits(max_pages=0)


def _encrypted(content: bytes, *, user_password: str) -> bytes:
    import io

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(content)))
    writer.encrypt(user_password, owner_password="owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.anyio
async def test_a_pdf_encrypted_only_for_permissions_is_read_like_the_plain_one() -> None:
    encrypted = _encrypted(INVOICE, user_password="")
    assert b"/Encrypt" in encrypted
    plain = await parse(ParseRequest.from_bytes(INVOICE, "application/pdf"))
    result = await parse(ParseRequest.from_bytes(encrypted, "application/pdf"))
    assert result.data == plain.data
    assert result.data["total"] == 24.0


@pytest.mark.anyio
async def test_an_encrypted_attachment_bomb_is_still_refused_naming_its_ceiling() -> None:
    from ._hostile import attachment_bomb_pdf

    encrypted = _encrypted(attachment_bomb_pdf(64_000_000), user_password="")
    with anyio.fail_after(10), pytest.raises(InvalidRequestError) as exc:
        await parse(
            ParseRequest.from_bytes(encrypted, "application/pdf"),
            limits=ParseLimits(max_embedded_bytes=1_000_000),
        )
    assert _field(exc) == "file"
    assert "max_embedded_bytes" in str(exc.value)


@pytest.mark.anyio
async def test_read_document_reads_a_permission_only_encrypted_pdf_too() -> None:
    document = await read_document(
        _encrypted(INVOICE, user_password=""), "application/pdf", ocr=None, limits=ParseLimits()
    )
    assert "Total due: 24.00" in document.text
    assert b"/Encrypt" not in document.content


@pytest.mark.anyio
async def test_a_watermark_set_at_a_slant_is_left_out_of_the_text_layer() -> None:
    lines = ["Invoice reference: INV-4711", "Invoice date: 14 March 2021", "Total: 9.00"]
    plain = await read_document(text_pdf([lines]), "application/pdf", ocr=None, limits=LIMITS)
    marked = await read_document(
        text_pdf([lines], watermark="DUPLICATE"), "application/pdf", ocr=None, limits=LIMITS
    )
    assert [line.text for line in marked.pages[0].lines] == lines
    assert [line.text for line in plain.pages[0].lines] == lines


def _watermark_mid_word(before: str, after: str, at: float) -> bytes:
    """A PDF printing ``before`` from x = 56 and ``after`` from ``at`` (points) on one line,
    with a slanted watermark drawn between the two, as some generators write their pages."""
    ops = [
        f"BT /F1 11 Tf 56 700 Td ({before}) Tj ET",
        "BT /F1 60 Tf 0.866 0.5 -0.5 0.866 120 540 Tm (DUPLICATE) Tj ET",
        f"BT /F1 11 Tf {at} 700 Td ({after}) Tj ET",
    ]
    stream = "\n".join(ops).encode("latin-1")
    return _assemble(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
            b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        ]
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("before", "after", "at", "text"),
    [
        # "Kestrel Werksta" is 77.63 pt wide in Helvetica 11 pt: "tt" goes on right after it.
        ("Kestrel Werksta", "tt GmbH", 56 + 77.63, "Kestrel Werkstatt GmbH"),
        # A space's width (3.06 pt) further on, the watermark parts two words.
        ("Kestrel Werksta", "tt GmbH", 56 + 77.63 + 3.06, "Kestrel Werksta tt GmbH"),
    ],
)
async def test_a_watermark_drawn_in_the_middle_of_a_word_does_not_part_it(
    before: str, after: str, at: float, text: str
) -> None:
    document = await read_document(
        _watermark_mid_word(before, after, at), "application/pdf", ocr=None, limits=LIMITS
    )
    assert [line.text for line in document.pages[0].lines] == [text]


@pytest.mark.anyio
async def test_text_drawn_off_the_page_is_no_text_of_the_page() -> None:
    # A template's parked fields: left of the page, above it; a word running off the right
    # edge keeps its visible letters.
    lines = ["Kessel Druck GmbH", "Gesamtbetrag 119,00 EUR"]
    placed = [
        (-400, 700, "Gesamtbetrag 999,00 EUR"),
        (56, 900, "Rechnungsnummer: XX-1"),
        (560, 500, "Rechnungsnummer"),
    ]
    document = await read_document(
        text_pdf([lines], placed=placed), "application/pdf", ocr=None, limits=LIMITS
    )
    assert [line.text for line in document.pages[0].lines] == [*lines, "Rechnu"]
