"""Regional vocabulary in data files, and the OCR repairs of receipts, on invented lines."""

from __future__ import annotations

from collections.abc import Sequence

from renderkit.parsing._protocol import Word
from renderkit.parsing.extract.ocrfix import (
    address_words,
    agree_words,
    fix_words,
    name_words,
    split_run_together,
)
from renderkit.parsing.lexicons.regions import region_words

from ._receipts import page_lines, values


def _fields(rows: Sequence[str]) -> dict[str, object]:
    return values(page_lines(rows))


def _word(text: str, confidence: float = 0.95) -> Word:
    return Word(text=text, page=1, bbox=(0.0, 0.0, 0.1, 0.02), confidence=confidence)


def test_regional_words_come_from_the_region_files() -> None:
    words = region_words()
    assert ("SDN", "BHD") in words.legal_pairs
    assert "JALAN" in words.street_words
    assert "JALAN" in address_words()
    assert "RESTORAN" in name_words()
    assert "GST" in words.tax_names


def test_a_date_printed_against_its_time_is_still_read() -> None:
    found = _fields(["KEDAI BUKU CERAH SDN BHD", "Date :14-02-201909:41:07", "TOTAL 8.50"])
    assert found["date"] == "2019-02-14"


def test_a_letter_spaced_date_is_read_as_one_word() -> None:
    found = _fields(["KEDAI BUKU CERAH SDN BHD", "D a t e : 0 7 / 1 1 / 2 0 1 8", "TOTAL 8.50"])
    assert found["date"] == "2018-11-07"


def test_a_post_code_run_into_its_town_is_split_in_the_address() -> None:
    found = _fields(
        [
            "KEDAI BUKU CERAH SDN BHD",
            "NO. 8, JALAN KENANGA 2,",
            "52100KEPONG, KUALA LUMPUR",
            "TEL: 03-1111 2222",
            "TOTAL 8.50",
        ]
    )
    assert found["address"] == "NO. 8, JALAN KENANGA 2 52100 KEPONG, KUALA LUMPUR"


def test_accents_the_engine_added_to_a_known_word_are_dropped() -> None:
    assert fix_words("JALAN KÚALA", address_words()) == "JALAN KUALA"
    page = [_word("CERAH"), _word("BUKU")]
    assert agree_words("CÉRAH", page) == "CERAH"


def test_accents_of_words_the_page_prints_nowhere_without_them_stay() -> None:
    assert agree_words("CAFÉ", [_word("MENU")]) == "CAFÉ"


def test_a_letter_pair_read_for_one_letter_is_repaired_in_a_known_word() -> None:
    assert fix_words("PETALINCi JAYA", address_words()) == "PETALING JAYA"


def test_a_one_read_for_an_l_at_the_end_of_a_known_word_is_repaired() -> None:
    assert fix_words("Leve1 2", address_words()) == "Level 2"


def test_a_legal_form_with_lookalike_letters_is_read_as_the_legal_form() -> None:
    found = _fields(["CERAH TRADING S0N 8HD", "NO. 8, JALAN KENANGA 2,", "TOTAL 8.50"])
    assert found["company"] == "CERAH TRADING SDN BHD"


def test_a_date_run_into_the_number_before_it_by_a_dash_is_still_read() -> None:
    found = _fields(["KEDAI BUKU SDN BHD", "ORD #12 -REG #7-05/11/201917:40:02", "TOTAL 8.50"])
    assert found["date"] == "2019-11-05"


def test_a_letter_spaced_name_read_as_one_run_is_split_before_its_trade_words() -> None:
    assert split_run_together("PELANGIBOOKSTORE", name_words()) == "PELANGI BOOK STORE"
    assert split_run_together("ORKIDTRADINGENTERPRISE", name_words()) == "ORKID TRADING ENTERPRISE"


def test_a_head_of_five_letters_before_one_long_trade_word_is_split_from_it() -> None:
    assert split_run_together("KELMOTOVARENTERPRISE", name_words()) == "KELMOTOVAR ENTERPRISE"
    assert split_run_together("PELANGIMARKETING", name_words()) == "PELANGI MARKETING"
    # A short head or a short trade word makes a word of its own as often as a joined name.
    assert split_run_together("TELEMARKETING", name_words()) == "TELEMARKETING"


def test_a_long_word_holding_one_short_trade_word_is_not_split() -> None:
    assert split_run_together("HYPERMARKET", name_words()) == "HYPERMARKET"
    # Short runs, words in lower case and known words themselves stay as read.
    assert split_run_together("BOOKSTORE", name_words()) == "BOOKSTORE"
    assert split_run_together("Pelangibookstore", name_words()) == "Pelangibookstore"
    assert split_run_together("SUPERMARKET", name_words()) == "SUPERMARKET"


def test_a_receipts_run_together_name_is_reported_with_its_spaces() -> None:
    found = _fields(
        [
            "PELANGISTATIONERYSHOP",
            "NO. 8, JALAN KENANGA 2,",
            "52100 KEPONG, KUALA LUMPUR",
            "TEL: 03-1111 2222",
            "TOTAL 8.50",
        ]
    )
    assert found["company"] == "PELANGI STATIONERY SHOP"


def test_a_branch_name_in_brackets_under_the_address_is_part_of_it() -> None:
    found = _fields(
        [
            "KEDAI BUKU CERAH SDN BHD",
            "NO. 8, JALAN KENANGA 2,",
            "52100 KEPONG, KUALA LUMPUR",
            "(CERAH KEPONG BARU)",
            "TEL: 03-1111 2222",
            "TOTAL 8.50",
        ]
    )
    assert found["address"] == (
        "NO. 8, JALAN KENANGA 2 52100 KEPONG, KUALA LUMPUR (CERAH KEPONG BARU)"
    )


def test_a_bracketed_line_with_figures_under_the_address_is_not_a_branch_name() -> None:
    found = _fields(
        [
            "KEDAI BUKU CERAH SDN BHD",
            "NO. 8, JALAN KENANGA 2,",
            "52100 KEPONG, KUALA LUMPUR",
            "(MEMBER NO 88)",
            "TOTAL 8.50",
        ]
    )
    assert found["address"] == "NO. 8, JALAN KENANGA 2 52100 KEPONG, KUALA LUMPUR"
