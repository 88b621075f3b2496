from __future__ import annotations

import io
import os
import socket
import sys

import pytest
from PIL import Image, ImageDraw, ImageFont

from renderkit.core.errors import ConfigurationError, MissingDependencyError
from renderkit.parsing import RapidOcr, TesseractOcr, ocr_engine
from renderkit.parsing.readers.rapidocr import Segment, group_lines, rapidocr_available, turn_of
from renderkit_server.settings import Settings

from ._documents import FONT, receipt_image

needs_rapidocr = pytest.mark.skipif(not rapidocr_available(), reason="rapidocr not installed")

# One engine for the module: loading the models is the slow part.
_ENGINE = RapidOcr()


def _two_page_scan() -> bytes:
    # A PDF of two page images, no text layer.
    second = receipt_image(["PAGE TWO", "TOTAL 1.00"])
    out = io.BytesIO()
    first = receipt_image().convert("RGB")
    first.save(out, "PDF", resolution=200.0, save_all=True, append_images=[second.convert("RGB")])
    return out.getvalue()


def _segment(words: list[tuple[str, float, float]], top: float, *, slope: float = 0.0) -> Segment:
    # Words as (text, x0, x1) on a 20-pixel-high line starting at ``top``.
    x0, x1 = words[0][1], words[-1][2]
    quad: tuple[tuple[float, float], ...] = (
        (x0, top + slope * x0),
        (x1, top + slope * x1),
        (x1, top + 20 + slope * x1),
    )
    quad += ((x0, top + 20 + slope * x0),)
    return Segment(
        words=tuple((t, 0.9, (a, top + slope * a, b, top + 20 + slope * b)) for t, a, b in words),
        quad=quad,
    )


def test_segments_on_one_printed_line_are_joined_left_to_right() -> None:
    total = _segment([("TOTAL", 10, 80)], 100)
    amount = _segment([("23.25", 300, 380)], 102)
    header = _segment([("SHOP", 10, 90), ("NAME", 100, 180)], 40)
    lines = group_lines([amount, total, header], page=2, width=400, height=200)
    assert [line.text for line in lines] == ["SHOP NAME", "TOTAL 23.25"]
    word = lines[1].words[1]
    assert word.page == 2
    assert word.bbox == (0.75, 0.51, 0.95, 0.61)
    assert word.confidence == 0.9


def test_lines_of_a_skewed_photo_are_grouped_along_the_skew() -> None:
    # A 5% slope moves the right end of each line by a whole line height.
    slope = 0.05
    lines = group_lines(
        [
            _segment([("ITEM", 10, 300)], 100, slope=slope),
            _segment([("4.00", 420, 480)], 100, slope=slope),
            _segment([("TOTAL", 10, 300)], 130, slope=slope),
            _segment([("9.00", 420, 480)], 130, slope=slope),
        ],
        page=1,
        width=500,
        height=300,
    )
    assert [line.text for line in lines] == ["ITEM 4.00", "TOTAL 9.00"]


def test_boxes_the_detector_squared_on_a_slightly_turned_photo_do_not_hide_its_skew() -> None:
    # A 3% slope lowers an amount 420 pixels right of its label by 12.6 of a line's 20 pixels;
    # half of the long boxes come square to the image (slope 0), as the detector returns them
    # for a page turned by a degree or two.
    slope = 0.03
    segments = [
        _segment([("DISCOUNT", 10, 130)], 100, slope=slope),
        _segment([("-4.05", 420, 480)], 100, slope=slope),
        _segment([("GRAND", 10, 100), ("TOTAL", 110, 200)], 122, slope=slope),
        _segment([("198.58", 420, 480)], 122, slope=slope),
        _segment([("CASH", 10, 130)], 144),
        _segment([("200.00", 420, 480)], 144, slope=slope),
        _segment([("THANK", 10, 100), ("YOU", 110, 180)], 180),
        _segment([("SEE", 10, 70), ("YOU", 80, 140), ("AGAIN", 150, 230)], 202),
    ]
    lines = group_lines(segments, page=1, width=500, height=300)
    assert [line.text for line in lines][:3] == [
        "DISCOUNT -4.05",
        "GRAND TOTAL 198.58",
        "CASH 200.00",
    ]


def test_a_curled_receipt_tilted_both_ways_keeps_the_median_of_all_its_boxes() -> None:
    # The head leans one way, the foot the other, the middle comes square: leaving the square
    # boxes out would take the head's slope for the page's and part each amount at the foot
    # from its label.
    segments = [
        *(_segment([(word, 10, 200)], top, slope=-0.04) for word, top in
          (("SHOP", 40), ("STREET", 70), ("TOWN", 100))),
        *(_segment([(word, 10, 300)], top) for word, top in
          (("ITEM", 200), ("BREAD", 230), ("MILK", 260), ("TEA", 290))),
        _segment([("TOTAL", 10, 130)], 400, slope=0.02),
        _segment([("9.00", 420, 480)], 400, slope=0.02),
        _segment([("CASH", 10, 130)], 425, slope=0.02),
        _segment([("10.00", 420, 480)], 425, slope=0.02),
    ]  # fmt: skip
    lines = group_lines(segments, page=1, width=500, height=500)
    assert [line.text for line in lines][-2:] == ["TOTAL 9.00", "CASH 10.00"]


def test_tight_lines_beside_a_tall_logo_word_are_not_read_as_one_line() -> None:
    # Two 20-pixel lines 18 pixels apart beside a 40-pixel logo word: the logo's centre falls
    # between theirs, and the rows' centres within half a line height of one another.
    logo = Segment(
        words=(("ACME", 0.9, (10, 95, 150, 135)),),
        quad=((10, 95), (150, 95), (150, 135), (10, 135)),
    )
    name = _segment([("Acme", 170, 230), ("Labs", 240, 300), ("Inc.", 310, 350)], 96)
    street = _segment([("67", 170, 195), ("Pe", 205, 230), ("Boulevard", 240, 340)], 114)
    lines = group_lines([logo, name, street], page=1, width=400, height=300)
    # The logo word goes with one of them; the name and the street stay lines of their own.
    assert [line.text for line in lines] == ["ACME Acme Labs Inc.", "67 Pe Boulevard"]


def test_the_turn_follows_the_line_shapes_and_the_classifier_votes() -> None:
    flat = [[(0.0, 0.0), (200.0, 0.0), (200.0, 20.0), (0.0, 20.0)]] * 3
    tall = [[(0.0, 0.0), (20.0, 0.0), (20.0, 200.0), (0.0, 200.0)]] * 3
    upright, flipped = [("0", 0.8)] * 3, [("180", 0.7)] * 3
    assert turn_of(flat, upright) == 0
    assert turn_of(flat, flipped) == 180
    assert turn_of(tall, flipped) == 90
    assert turn_of(tall, upright) == 270


@needs_rapidocr
@pytest.mark.anyio
async def test_words_come_with_boxes_confidences_and_reading_order() -> None:
    image = Image.new("RGB", (900, 300), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 36)
    draw.text((40, 40), "INVOICE NUMBER 4711", font=font, fill="black")
    draw.text((40, 160), "TOTAL", font=font, fill="black")
    draw.text((640, 160), "123.45", font=font, fill="black")
    page = await _ENGINE.recognize(image, page=3, detect_orientation=True)
    assert page.source == "ocr" and page.number == 3 and page.rotation == 0.0
    assert [line.text for line in page.lines] == ["INVOICE NUMBER 4711", "TOTAL 123.45"]
    total, amount = page.lines[1].words
    assert 0.03 < total.bbox[0] < 0.06 and 0.5 < total.bbox[1] < total.bbox[3] < 0.75
    assert 0.69 < amount.bbox[0] < amount.bbox[2] < 0.95
    assert all(0.8 < w.confidence <= 1.0 and w.page == 3 for w in page.words)


@needs_rapidocr
@pytest.mark.anyio
@pytest.mark.parametrize("turned", [90, 180, 270])
async def test_a_turned_receipt_is_read_upright(turned: int) -> None:
    page = await _ENGINE.recognize(receipt_image(rotate=turned), page=1, detect_orientation=True)
    # Turned counter-clockwise by ``turned``: undone by as many degrees clockwise.
    assert page.rotation == turned
    assert page.lines[0].text == "KEDAI BUKU MAJU SDN BHD"
    assert "TOTAL 29.89" in page.text


@needs_rapidocr
@pytest.mark.anyio
async def test_the_engine_loads_its_bundled_models_without_the_network(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        msg = "network access during OCR"
        raise OSError(msg)

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    page = await RapidOcr().recognize(receipt_image(), page=1, detect_orientation=False)
    assert "TOTAL 29.89" in page.text


@needs_rapidocr
@pytest.mark.anyio
async def test_scanned_pdf_pages_are_read_in_order() -> None:
    from renderkit.parsing import ParseLimits, read_document

    document = await read_document(
        _two_page_scan(), "application/pdf", ocr=_ENGINE, limits=ParseLimits()
    )
    assert [p.number for p in document.pages] == [1, 2]
    assert "KEDAI BUKU" in document.pages[0].text
    assert "PAGE TWO" in document.pages[1].text


def test_rapidocr_is_the_default_engine_when_installed() -> None:
    expected = RapidOcr if rapidocr_available() else TesseractOcr
    assert isinstance(ocr_engine(), expected)
    assert isinstance(ocr_engine("tesseract"), TesseractOcr)


@pytest.mark.anyio
async def test_tesseract_is_the_fallback_without_onnxruntime(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    assert isinstance(ocr_engine(), TesseractOcr)
    with pytest.raises(MissingDependencyError):
        await RapidOcr().recognize(receipt_image(), page=1, detect_orientation=False)


def test_an_unknown_engine_name_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        ocr_engine("abbyy")


def test_the_server_setting_chooses_the_ocr_engine() -> None:
    assert Settings.from_env({}).parse_ocr is None
    assert Settings.from_env({"RENDERKIT_PARSE_OCR": "tesseract"}).parse_ocr == "tesseract"
    with pytest.raises(ConfigurationError):
        Settings.from_env({"RENDERKIT_PARSE_OCR": "abbyy"})


def test_a_page_read_alone_on_idle_cores_uses_them_all_otherwise_one_thread_unless_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from renderkit.parsing.readers import rapidocr as _rapid

    used: list[int] = []
    monkeypatch.setattr(_rapid, "usable_cpus", lambda: 4)
    runnable: list[int | None] = [1]  # the reader alone
    monkeypatch.setattr(_rapid, "_runnable", lambda: runnable[0])
    monkeypatch.setattr(RapidOcr, "_create", lambda self, threads: threads)

    def read(
        engine: int, image: Image.Image, *, detect_orientation: bool
    ) -> tuple[list[Segment], int]:
        used.append(engine)
        return [], 0

    monkeypatch.setattr(_rapid, "_read", read)
    engine = RapidOcr()
    image = Image.new("RGB", (40, 40), "white")
    engine._recognize(image, 1, True)
    with engine._one_page():  # another page is being read meanwhile
        engine._recognize(image, 2, True)
    engine._recognize(image, 3, True)
    RapidOcr(threads=2)._recognize(image, 4, True)
    runnable[0] = 5  # other processes keep every core busy
    engine._recognize(image, 5, True)
    runnable[0] = None  # no instantaneous count: the 1-minute load average decides
    monkeypatch.setattr(os, "getloadavg", lambda: (3.5, 0.0, 0.0))
    engine._recognize(image, 6, True)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    engine._recognize(image, 7, True)
    assert used == [4, 1, 4, 2, 1, 1, 4]
    with pytest.raises(ConfigurationError):
        RapidOcr(threads=0)
