"""pdf_ops: each step read back from the produced file (pypdfium2 text, pikepdf structure)."""

from __future__ import annotations

import functools
import io
import time
import zipfile

import pikepdf
import pypdfium2
import pytest
from anyio import fail_after as anyio_fail_after
from PIL import Image

from renderkit import InvalidRequestError
from renderkit.pdfops import PdfOpsLimits, PdfOpsRequest, pdf_ops
from renderkit.testing import FakeBrowser

from ..parsing._documents import many_pages_pdf, text_pdf
from ..parsing._hostile import (
    content_bomb_pdf,
    nested_arrays_pdf,
    pages_cycle_pdf,
    reference_loop_pdf,
)
from ._pdfs import b64, page_texts, rotations

pytestmark = pytest.mark.anyio

THREE = text_pdf([["Alpha page one"], ["Alpha page two"], ["Alpha page three"]])
TWO = text_pdf([["Beta page one"], ["Beta page two"]])


async def test_merging_two_uploads_keeps_every_page_in_order() -> None:
    result = await pdf_ops({"files": [{"file": b64(THREE)}, {"file": b64(TWO)}]})
    texts = page_texts(result.content)
    assert len(texts) == result.pages == 5
    assert ["Alpha page one" in texts[0], "Beta page two" in texts[4]] == [True, True]
    assert result.steps == ("merge",)


async def test_pages_selects_and_orders_pages_and_split_makes_one_document_per_range() -> None:
    result = await pdf_ops(
        {
            "files": [{"file": b64(THREE)}, {"file": b64(TWO)}],
            "pages": "5,1-2",
            "split": ["1", "2-"],
        }
    )
    assert [part.pages for part in result.parts] == [1, 2]
    assert "Beta page two" in page_texts(result.parts[0].content)[0]
    second = page_texts(result.parts[1].content)
    assert "Alpha page one" in second[0] and "Alpha page two" in second[1]
    with zipfile.ZipFile(io.BytesIO(result.content)) as archive:
        assert archive.namelist() == ["document-1.pdf", "document-2.pdf"]
    assert result.format == "zip"


async def test_rotate_turns_only_the_named_pages() -> None:
    result = await pdf_ops(
        {"files": [{"file": b64(THREE)}], "rotate": {"angle": 90, "pages": "2-"}}
    )
    assert rotations(result.content) == [0, 90, 90]
    again = await pdf_ops({"files": [{"file": b64(result.content)}], "rotate": {"angle": -90}})
    assert rotations(again.content) == [270, 0, 0]


async def test_a_text_watermark_is_on_every_page_even_a_rotated_one() -> None:
    rotated = await pdf_ops({"files": [{"file": b64(THREE)}], "rotate": {"angle": 90}})
    result = await pdf_ops(
        {
            "files": [{"file": b64(rotated.content)}],
            "watermark": {"text": "CONFIDENTIAL", "opacity": 0.2, "position": "top-right"},
        }
    )
    texts = page_texts(result.content)
    assert all("CONFIDENTIAL" in text for text in texts), texts
    assert all(text.count("Alpha") == 1 for text in texts)  # the page's own text is intact


async def test_an_image_watermark_draws_the_image_on_the_chosen_pages() -> None:
    png = io.BytesIO()
    Image.new("RGBA", (40, 20), (200, 0, 0, 128)).save(png, "PNG")
    result = await pdf_ops(
        {
            "files": [{"file": b64(THREE)}],
            "watermark": {"image": b64(png.getvalue()), "pages": "2", "width": 200},
        }
    )
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        images = [len(page.get_images()) for page in pdf.pages]
    assert images == [0, 1, 0]


async def test_page_numbers_read_back_on_every_page() -> None:
    result = await pdf_ops(
        {
            "files": [{"file": b64(THREE)}, {"file": b64(TWO)}],
            "page_numbers": {"format": "Page {n} of {total}", "position": "bottom-right"},
        }
    )
    texts = page_texts(result.content)
    assert [f"Page {n} of 5" in text for n, text in enumerate(texts, start=1)] == [True] * 5


async def test_metadata_is_written_to_info_xmp_and_the_catalog_language() -> None:
    result = await pdf_ops(
        {
            "files": [{"file": b64(TWO)}],
            "metadata": {
                "title": "Quarterly report",
                "author": "Ada Lovelace",
                "subject": "Q3 figures",
                "keywords": ["finance", "q3"],
                "language": "de-DE",
                "created": "2026-03-01T09:30:00+01:00",
                "modified": "2026-03-02T10:00:00+01:00",
            },
        }
    )
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        info = pdf.docinfo
        assert str(info["/Title"]) == "Quarterly report"
        assert str(info["/Author"]) == "Ada Lovelace"
        assert str(info["/Subject"]) == "Q3 figures"
        assert str(info["/Keywords"]) == "finance, q3"
        assert str(info["/CreationDate"]).startswith("D:20260301093000")
        assert str(pdf.Root.Lang) == "de-DE"
        xmp = pdf.open_metadata()
        assert xmp["dc:title"] == "Quarterly report"
        assert xmp["dc:creator"] == ["Ada Lovelace"]
        assert xmp["pdf:Keywords"] == "finance, q3"
        assert xmp["xmp:CreateDate"].startswith("2026-03-01T09:30:00")
        assert xmp["xmp:ModifyDate"].startswith("2026-03-02T10:00:00")


async def test_attachments_are_listed_and_extract_byte_exact() -> None:
    csv = b"sku,qty\nA-1,3\n"
    blob = bytes(range(256)) * 40
    result = await pdf_ops(
        {
            "files": [{"file": b64(TWO)}],
            "attachments": [
                {
                    "filename": "lines.csv",
                    "file": b64(csv),
                    "mime_type": "text/csv",
                    "description": "The order lines",
                },
                {"filename": "raw.bin", "file": b64(blob)},
            ],
        }
    )
    listed = {item.filename: item for item in result.attachments}
    assert listed["lines.csv"].mime_type == "text/csv"
    assert listed["lines.csv"].description == "The order lines"
    assert listed["raw.bin"].size == len(blob)
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        assert pdf.attachments["lines.csv"].get_file().read_bytes() == csv
        assert pdf.attachments["raw.bin"].get_file().read_bytes() == blob
    # An input's own attachments are listed too.
    again = await pdf_ops({"files": [{"file": b64(result.content)}]})
    assert sorted(item.filename for item in again.attachments) == ["lines.csv", "raw.bin"]


async def test_an_encrypted_result_opens_only_with_its_password_and_keeps_its_permissions() -> None:
    result = await pdf_ops(
        {
            "files": [{"file": b64(THREE)}],
            "encrypt": {
                "owner_password": "owner-secret",
                "user_password": "reader",
                "permissions": ["print"],
            },
        }
    )
    assert result.encrypted
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(result.content))
    with pikepdf.open(io.BytesIO(result.content), password="reader") as pdf:
        assert pdf.is_encrypted
        assert pdf.encryption.R == 6 and pdf.encryption.stream_method.name == "aesv3"
        assert pdf.encryption.bits == 256
        allow = pdf.allow
        assert (allow.print_highres, allow.extract, allow.modify_other) == (True, False, False)
    assert "Alpha page two" in page_texts(result.content, password="reader")[1]
    # Back in as an input: refused without the password, opened with it.
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [{"file": b64(result.content)}]})
    assert caught.value.errors[0].field == "files[0].file"
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [{"file": b64(result.content), "password": "wrong"}]})
    assert caught.value.errors[0].field == "files[0].file.password"
    opened = await pdf_ops({"files": [{"file": b64(result.content), "password": "reader"}]})
    assert not opened.encrypted and len(page_texts(opened.content)) == 3


@pytest.mark.parametrize(
    ("request_body", "field"),
    [
        ({"files": []}, "files"),
        ({"files": [{"file": "x"}], "pages": "3-1"}, "pages"),
        ({"files": [{"file": "x"}], "rotate": {"angle": 45}}, "rotate.angle"),
        ({"files": [{"file": "x"}], "watermark": {}}, "watermark.text"),
        (
            {"files": [{"file": "x"}], "encrypt": {"owner_password": "a", "permissions": ["fly"]}},
            "encrypt.permissions",
        ),
        ({"files": [{"file": "x"}], "split": ["1-2", "x"]}, "split[1]"),
        ({"files": [{"file": "x"}], "metadata": {"created": "yesterday"}}, "metadata.created"),
    ],
)
async def test_invalid_requests_name_the_field(request_body: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops(request_body)
    assert caught.value.errors[0].field == field


async def test_a_page_range_past_the_end_is_refused_before_any_work() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [{"file": b64(TWO)}], "pages": "1,3"})
    assert caught.value.errors[0].field == "pages"
    assert "has 2" in str(caught.value)


async def test_text_outside_the_standard_font_is_refused() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [{"file": b64(TWO)}], "watermark": {"text": "機密"}})
    assert caught.value.errors[0].field == "watermark.text"


async def test_ceilings_refuse_too_many_pages_and_too_many_bytes() -> None:
    limits = PdfOpsLimits(max_pages=10, max_bytes=50_000)
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [{"file": b64(many_pages_pdf(11))}]}, limits=limits)
    assert "11 pages" in str(caught.value)
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops(
            {"files": [{"file": b64(many_pages_pdf(6))}, {"file": b64(many_pages_pdf(6))}]},
            limits=limits,
        )
    assert caught.value.errors[0].field == "files"
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [{"file": b64(b"%PDF-1.4\n" + bytes(60_000))}]}, limits=limits)
    assert "limit" in str(caught.value)


async def test_the_request_model_builds_from_keywords_too() -> None:
    request = PdfOpsRequest(files=[{"file": b64(TWO)}], rotate={"angle": 180})
    assert request.steps == ("rotate",)
    assert rotations((await pdf_ops(request)).content) == [180, 180]


def encrypted_pdf() -> bytes:
    with pikepdf.open(io.BytesIO(TWO)) as pdf:
        out = io.BytesIO()
        pdf.save(out, encryption=pikepdf.Encryption(owner="o", user="u", R=6))
        return out.getvalue()


@functools.cache
def hostile_inputs() -> dict[str, bytes]:
    """The adversarial uploads parse is tested with, plus garbage and truncation."""
    return {
        "truncated": THREE[: len(THREE) // 3],
        "garbage": b"%PDF-1.7\n" + bytes(range(256)) * 50 + b"\n%%EOF\n",
        "not a pdf": b"GIF89a" + bytes(100),
        "flate bomb": content_bomb_pdf(512_000_000),
        "deep nesting": nested_arrays_pdf(100_000),
        "huge page count": many_pages_pdf(20_000),
        "page tree cycle": pages_cycle_pdf(),
        "encrypted, no password": encrypted_pdf(),
    }


@pytest.mark.parametrize("name", list(hostile_inputs()))
async def test_hostile_uploads_are_refused_as_invalid_requests_quickly(name: str) -> None:
    started = time.perf_counter()
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [{"file": b64(THREE)}, {"file": b64(hostile_inputs()[name])}]})
    assert caught.value.errors[0].field.startswith("files[1]") or name == "huge page count"
    assert time.perf_counter() - started < 5


async def test_objects_that_refer_to_each_other_in_a_loop_are_processed_without_hanging() -> None:
    with anyio_fail_after(10):
        result = await pdf_ops(
            {
                "files": [{"file": b64(reference_loop_pdf())}],
                "watermark": {"text": "LOOP"},
                "page_numbers": {},
            }
        )
    assert result.pages == 1 and "LOOP" in page_texts(result.content)[0]


def _ink_box(content: bytes) -> tuple[float, float, float, float]:
    """The box of the dark pixels of page 1 as displayed, as fractions of its size."""
    document = pypdfium2.PdfDocument(content)
    try:
        image = document[0].render(scale=0.5).to_pil().convert("L")
    finally:
        document.close()
    dark = image.point(lambda value: 255 if value < 128 else 0)
    left, top, right, bottom = dark.getbbox()
    width, height = image.size
    return left / width, top / height, right / width, bottom / height


@pytest.mark.parametrize("turn", [0, 90, 180, 270])
async def test_a_stamp_lands_where_asked_on_the_page_as_displayed_whatever_its_rotation(
    turn: int,
) -> None:
    blank = many_pages_pdf(1).replace(b"[0 0 100 100]", b"[0 0 600 300]")
    if turn:
        blank = (
            await pdf_ops({"files": [{"file": b64(blank)}], "rotate": {"angle": turn}})
        ).content
    black = io.BytesIO()
    Image.new("RGB", (10, 10), (0, 0, 0)).save(black, "PNG")
    mark = {"image": b64(black.getvalue()), "width": 40, "opacity": 1, "angle": 0}
    top_right = await pdf_ops(
        {"files": [{"file": b64(blank)}], "watermark": {**mark, "position": "top-right"}}
    )
    left, top, right, bottom = _ink_box(top_right.content)
    assert left > 0.5 and bottom < 0.5, (left, top, right, bottom)
    bottom_left = await pdf_ops(
        {"files": [{"file": b64(blank)}], "watermark": {**mark, "position": "bottom-left"}}
    )
    left, top, right, bottom = _ink_box(bottom_left.content)
    assert right < 0.5 and top > 0.5, (left, top, right, bottom)


async def test_stamping_leaves_the_pages_own_content_streams_byte_for_byte() -> None:
    compressed = io.BytesIO()
    with pikepdf.open(io.BytesIO(THREE)) as source:
        source.save(compressed, compress_streams=True)  # Flate: decoding would show
    with pikepdf.open(compressed) as source:
        original = [page.Contents.read_raw_bytes() for page in source.pages]
        assert all(page.Contents.Filter == "/FlateDecode" for page in source.pages)
    result = await pdf_ops(
        {
            "files": [{"file": b64(compressed.getvalue())}],
            "watermark": {"text": "X"},
            "page_numbers": {},
        }
    )
    with pikepdf.open(io.BytesIO(result.content)) as pdf:
        for page, raw in zip(pdf.pages, original, strict=True):
            assert raw in [stream.read_raw_bytes() for stream in page.Contents]


async def test_page_lists_that_multiply_pages_are_refused_before_any_work() -> None:
    limits = PdfOpsLimits(max_pages=10)
    one = {"file": b64(TWO)}
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [one], "pages": ",".join(["1-2"] * 6)}, limits=limits)
    assert caught.value.errors[0].field == "pages"
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [one], "split": ["1-2"] * 6}, limits=limits)
    assert caught.value.errors[0].field == "split"


async def test_a_bad_upload_is_refused_before_any_input_is_rendered() -> None:
    browser = FakeBrowser()
    letter = {"template": "letter", "data": {"body": "Dear Bob,"}}
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops(
            {"files": [{"render": letter}, {"file": b64(content_bomb_pdf(512_000_000))}]},
            browser=browser,
        )
    assert caught.value.errors[0].field == "files[1].file"
    assert browser.renders == []
    done = await pdf_ops({"files": [{"render": letter}, {"file": b64(TWO)}]}, browser=browser)
    assert len(browser.renders) == 1 and done.pages == 3
