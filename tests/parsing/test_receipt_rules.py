"""The receipt field rules on OCR-like lines made up here (no dataset text)."""

from __future__ import annotations

from collections.abc import Sequence

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.extract.ocrfix import address_words, fix_words
from renderkit.parsing.extract.values import find_dates
from renderkit.parsing.readers.tesseract import _better_binarisation, _Reading

from ._receipts import page_lines, values


def _fields(rows: Sequence[str | tuple[str, float]]) -> dict[str, object]:
    return values(page_lines(rows))


def test_a_tax_number_between_name_and_address_does_not_end_the_header() -> None:
    found = _fields(
        [
            "KEDAI RUNCIT MAJU JAYA SDN BHD",
            "(CO. REG. NO. 123456-K)",
            "GST ID NO: 000123456789",
            "NO. 12, JALAN MERANTI 3,",
            "43000 KAJANG,",
            "SELANGOR DARUL EHSAN",
            "TEL: 03-1234 5678",
            "TAX INVOICE",
        ]
    )
    assert found["company"] == "KEDAI RUNCIT MAJU JAYA SDN BHD"
    assert found["address"] == "NO. 12, JALAN MERANTI 3 43000 KAJANG SELANGOR DARUL EHSAN"


def test_the_address_stops_after_the_post_code_unless_a_comma_carries_it_on() -> None:
    found = _fields(
        [
            "KEDAI BUKU CERIA SDN BHD",
            "8, JALAN MAWAR 2",
            "81200 JOHOR BAHRU",
            "CAWANGAN PUSAT",
            "TEL: 07-123 4567",
        ]
    )
    assert found["address"] == "8, JALAN MAWAR 2 81200 JOHOR BAHRU"


def test_a_lot_number_of_five_digits_is_not_a_post_code() -> None:
    found = _fields(
        ["SYARIKAT LOGAM SDN BHD", "LOT 12345, JALAN BESI", "43000 KAJANG, SELANGOR", "TEL: 03-9"]
    )
    assert found["address"] == "LOT 12345, JALAN BESI 43000 KAJANG, SELANGOR"


def test_an_address_label_after_the_phone_line_is_read() -> None:
    found = _fields(
        [
            "ROTI SEGAR BHD",
            "TEL: 03-5555 1234",
            "ADDRESS: 5, JALAN KENARI",
            "47100 PUCHONG, SELANGOR",
            "DATE: 01/02/2018 10:11",
        ]
    )
    assert found["address"] == "5, JALAN KENARI 47100 PUCHONG, SELANGOR"


def test_a_name_printed_over_three_lines_is_joined() -> None:
    found = _fields(
        [
            "SINAR JAYA HARDWARE",
            "ENTERPRISE (BANDAR",
            "BARU) SDN BHD",
            "(765432-X)",
            "NO. 3, JALAN PASAR",
            "50000 KUALA LUMPUR",
        ]
    )
    assert found["company"] == "SINAR JAYA HARDWARE ENTERPRISE (BANDAR BARU) SDN BHD"


def test_a_name_line_glued_to_its_bracket_still_goes_on_from_the_line_above() -> None:
    # OCR lost the space before the bracket and read a dot there: "ENTERPRISE.(BANDAR".
    found = _fields(
        [
            "SINAR JAYA HARDWARE",
            "ENTERPRISE.(BANDAR",
            "BARU) SDN BHD",
            "(765432-X)",
            "NO. 3, JALAN PASAR",
            "50000 KUALA LUMPUR",
        ]
    )
    assert found["company"].startswith("SINAR JAYA HARDWARE ENTERPRISE")
    assert found["company"].endswith("(BANDAR BARU) SDN BHD")


def test_an_owned_by_label_and_a_lost_bhd_are_handled() -> None:
    assert _fields(["Owned by: kopi pagi sdn bhd 998877-A", "1, Jalan Satu"])["company"] == (
        "kopi pagi SDN BHD"
    )
    assert _fields(["MEGA BINA SDN.", "2, JALAN DUA"])["company"] == "MEGA BINA SDN BHD"


def test_a_faint_name_found_by_position_alone_is_not_returned() -> None:
    assert "company" not in _fields([("Xq lorem ipsa", 0.6), "TEL: 03-1234 5678"])
    assert _fields([("CERIA BAKERY", 0.6), "TEL: 03-1234 5678"])["company"] == "CERIA BAKERY"


def test_address_words_one_confusable_letter_off_are_corrected() -> None:
    assert fix_words("TANAN SRI KENARI, KUALA LUNPUR", address_words()) == (
        "TAMAN SRI KENARI, KUALA LUMPUR"
    )
    assert fix_words("Jalan Sultan, Sarahak", address_words()) == "Jalan Sultan, Sarawak"
    # Unknown names are left as read, and so are lower-case words.
    assert fix_words("KENARI ZETA", address_words()) == "KENARI ZETA"
    assert fix_words("tanan", address_words()) == "tanan"


def test_a_code_that_looks_like_a_date_with_mixed_separators_is_not_a_date() -> None:
    assert find_dates("HC03-7 - 15") == []
    assert find_dates("ref 3-7/15") == []
    assert [d.isoformat() for d, _, _ in find_dates("12-01-19 21:13")] == ["2019-01-12"]


def test_a_date_printed_with_a_time_beats_an_earlier_stray_date() -> None:
    found = _fields(["SHOP SDN BHD", "ITEM 1/2/18 CODE", "09/03/2018 14:02", "TOTAL 3.00"])
    assert found["date"] == "2018-03-09"


def test_total_after_rounding_is_read_even_when_total_is_misread() -> None:
    found = _fields(
        ["SHOP SDN BHD", "Total Sales Incl GST 10.02", "otal After Rounding 10.00", "CASH 20.00"]
    )
    assert found["total"] == "10.00"


def test_an_accepted_amount_is_a_payment_not_the_total() -> None:
    found = _fields(["CAR PARK SDN BHD", "Accepted total 10.00", "Change 4.00"])
    assert found["total"] == "6.00"


def _reading(words: int, conf: float) -> _Reading:
    row = tuple(
        Word(text="word", page=1, bbox=(0.0, 0.0, 0.1, 0.1), confidence=conf) for _ in range(words)
    )
    return _Reading(lines=(Line(words=row, page=1),), rotation=0.0, width=10, height=10)


def test_the_second_binarisation_wins_on_confidence_unless_it_loses_words() -> None:
    assert _better_binarisation(_reading(40, 0.8), _reading(50, 0.7))
    assert not _better_binarisation(_reading(20, 0.9), _reading(50, 0.7))
    assert not _better_binarisation(_reading(50, 0.6), _reading(50, 0.7))
