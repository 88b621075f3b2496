from __future__ import annotations

import pytest
from PIL import Image

from renderkit.parsing import TesseractOcr
from renderkit.parsing._models import ParseRequest
from renderkit.parsing.pipeline import parse
from renderkit.parsing.readers.tesseract import deskew_angle, parse_tsv, prepare_image

from ._documents import encode, image_pdf, receipt_image, require_tesseract

TSV = (
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    "5\t1\t1\t1\t1\t1\t10\t20\t30\t10\t96.5\tTOTAL\n"
    "5\t1\t1\t1\t1\t2\t60\t20\t30\t10\t88.0\t9.90\n"
    "5\t1\t1\t1\t2\t1\t10\t40\t30\t10\t-1\t\n"
)


def test_parse_tsv_groups_words_into_lines_with_normalised_boxes() -> None:
    (line,) = parse_tsv(TSV, page=2, width=100, height=200)
    assert line.text == "TOTAL 9.90"
    word = line.words[0]
    assert word.page == 2
    assert word.bbox == (0.1, 0.1, 0.4, 0.15)
    assert word.confidence == 0.965


def test_prepare_image_grays_and_enlarges_small_images() -> None:
    small = prepare_image(Image.new("RGBA", (200, 100), (255, 0, 0, 0)))
    assert small.mode == "L" and small.width == 500
    assert small.getpixel((0, 0)) == 255  # transparency becomes paper white


def test_deskew_angle_finds_the_tilt_of_text_lines() -> None:
    assert deskew_angle(receipt_image()) == 0.0
    assert deskew_angle(receipt_image(rotate=3)) == pytest.approx(-3.0, abs=0.6)


@pytest.mark.anyio
async def test_a_receipt_photo_is_read_by_ocr_into_fields() -> None:
    require_tesseract()
    result = await parse(
        ParseRequest.from_bytes(
            encode(receipt_image(), "JPEG", quality=85), "image/jpeg", include_provenance=True
        )
    )
    assert result.document_type == "receipt"
    assert result.data["company"] == "KEDAI BUKU MAJU SDN BHD"
    assert result.data["date"] == "2017-10-29"
    assert result.data["total"] == 29.89
    assert result.provenance is not None and result.provenance["total"].page == 1
    assert 0.3 < result.confidence <= 1.0


@pytest.mark.anyio
async def test_a_receipt_turned_sideways_is_straightened_by_orientation_detection() -> None:
    require_tesseract()
    page = await TesseractOcr().recognize(receipt_image(rotate=90), page=1, detect_orientation=True)
    assert page.rotation in (90.0, 270.0)
    assert "TOTAL" in page.text


@pytest.mark.anyio
async def test_a_scanned_pdf_page_without_text_layer_is_read_by_ocr() -> None:
    require_tesseract()
    result = await parse(ParseRequest.from_bytes(image_pdf(receipt_image()), "application/pdf"))
    assert result.pages == 1
    assert result.data["total"] == 29.89


@pytest.mark.anyio
async def test_webp_and_png_images_are_accepted() -> None:
    require_tesseract()
    for fmt, mime in (("WEBP", "image/webp"), ("PNG", "image/png")):
        result = await parse(ParseRequest.from_bytes(encode(receipt_image(), fmt), mime))
        assert result.data["total"] == 29.89
