"""Receipt headers read from tilted photos: two printed rows the OCR joined into one line."""

from __future__ import annotations

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.extract.receipt import receipt_fields
from renderkit.parsing.extract.receipt_header import unmerge_rows

# A photo turned so that each printed row falls 0.01 of the page per word to the right.
_SLOPE = 0.006
_HEIGHT = 0.035


def _word(text: str, x: float, top: float) -> Word:
    y = top + _SLOPE * x / 0.1
    return Word(text=text, page=1, bbox=(x, y, x + 0.08, y + _HEIGHT), confidence=0.95)


def _tilted_row(text: str, x0: float, top: float) -> list[Word]:
    return [_word(w, x0 + 0.1 * i, top) for i, w in enumerate(text.split())]


def _interleaved(upper: list[Word], lower: list[Word]) -> Line:
    # What the engine gave: one line, its words in reading order across both rows.
    return Line(words=tuple(sorted((*upper, *lower), key=lambda w: w.bbox[0])), page=1)


def test_a_line_whose_words_alternate_between_two_tilted_rows_is_cut_into_them() -> None:
    upper = _tilted_row("NO 12, JALAN MERAH 4", 0.20, 0.10)
    lower = _tilted_row("40000 KOTA, SELANGOR", 0.25, 0.10 + 0.03)
    rows = unmerge_rows(_interleaved(upper, lower))
    assert [r.text for r in rows] == ["NO 12, JALAN MERAH 4", "40000 KOTA, SELANGOR"]


def test_an_item_and_its_amount_lower_on_a_tilted_photo_stay_one_line() -> None:
    # The amount stands lower than the description's words (the tilt across a wide gap),
    # but nothing interleaves: one printed row.
    words = [*_tilted_row("2 x 3.50", 0.05, 0.5), _word("7.00", 0.85, 0.5 + 0.02)]
    line = Line(words=tuple(words), page=1)
    assert unmerge_rows(line) == (line,)


def test_a_straight_line_is_left_as_it_is() -> None:
    line = Line(words=tuple(_tilted_row("TOTAL RM 12.50", 0.1, 0.4)), page=1)
    assert unmerge_rows(line) == (line,)


def test_the_address_of_a_tilted_receipt_is_read_in_its_rows_order() -> None:
    name = Line(words=tuple(_tilted_row("MAJU JAYA SDN BHD", 0.2, 0.02)), page=1)
    registration = Line(words=tuple(_tilted_row("(123456-X)", 0.35, 0.06)), page=1)
    address = _interleaved(
        _tilted_row("NO 12, JALAN MERAH 4", 0.20, 0.10),
        _tilted_row("40000 KOTA, SELANGOR", 0.25, 0.13),
    )
    phone = Line(words=tuple(_tilted_row("TEL: 03-1234 5678", 0.25, 0.17)), page=1)
    total = Line(words=tuple(_tilted_row("TOTAL 12.50", 0.1, 0.4)), page=1)
    found = receipt_fields([name, registration, address, phone, total], day_first=True)
    assert found["company"].value == "MAJU JAYA SDN BHD"
    assert found["address"].value == "NO 12, JALAN MERAH 4 40000 KOTA, SELANGOR"
