"""The merchant and its address at the top of a receipt: greeting lines are neither."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from renderkit.parsing.extract.receipt import receipt_fields

from ._receipts import header_lines, values


def _fields(rows: Sequence[str]) -> dict[str, object]:
    return values(header_lines(rows))


def test_a_welcome_line_above_the_name_is_not_the_merchant() -> None:
    found = _fields(
        ["WELCOME TO", "KEDAI BUKU MAJU", "12 JALAN MAWAR", "47100 PUCHONG", "TEL 03-1234567"]
    )
    assert found["company"] == "KEDAI BUKU MAJU"
    assert found["address"] == "12 JALAN MAWAR 47100 PUCHONG"


def test_a_greeting_in_malay_above_the_name_is_not_the_merchant() -> None:
    found = _fields(["SELAMAT DATANG", "KEDAI BUKU MAJU SDN BHD", "12 JALAN MAWAR", "TEL 0312"])
    assert found["company"] == "KEDAI BUKU MAJU SDN BHD"


def test_a_thank_you_line_is_not_the_merchant() -> None:
    found = _fields(["THANK YOU", "NORTH STAR BOOKS", "5 HIGH STREET", "TEL 0123 456"])
    assert found["company"] == "NORTH STAR BOOKS"


def test_the_merchant_is_read_from_the_top_of_the_page_whatever_order_the_engine_returns() -> None:
    rows = ["FABRIKAM TRADING SDN BHD", "NO. 7, JALAN MAJU 2,", "43000 KAJANG, SELANGOR"]
    lines = header_lines(rows, gap=0.02, height=0.015)
    found = receipt_fields(list(reversed(lines)), day_first=True)
    assert found["company"].value == "FABRIKAM TRADING SDN BHD"
    assert found["address"].value == "NO. 7, JALAN MAJU 2 43000 KAJANG, SELANGOR"


def test_a_continental_legal_form_marks_the_merchant_under_a_branch_line() -> None:
    found = _fields(
        ["AGENCE: KELMIS", "Tovan & Brisk SARL", "12 Rue des Kelms", "75011 Brindeville"]
    )
    assert found["company"] == "Tovan & Brisk SARL"


def test_a_limited_company_and_partnership_keeps_its_whole_legal_form() -> None:
    found = _fields(["Brindelmark GmbH & Co. KG", "Tovanweg 17", "54321 Kelmdorf"])
    assert found["company"] == "Brindelmark GmbH & Co. KG"


def test_a_name_cut_before_its_trade_word_and_legal_form_is_joined() -> None:
    found = _fields(["Brindelkost", "Services SARL", "12 Rue des Kelms", "75011 Brindeville"])
    assert found["company"] == "Brindelkost Services SARL"


def test_a_name_in_capitals_cut_before_its_trade_word_is_joined() -> None:
    found = _fields(["TOVANSKI MINI", "MARKET SDN BHD", "NO 5, JALAN MAWAR 3", "47100 PUCHONG"])
    assert found["company"] == "TOVANSKI MINI MARKET SDN BHD"


def test_a_line_above_a_complete_legal_name_is_not_joined_to_it() -> None:
    found = _fields(
        ["Kelmis", "Brindelkost Services SARL", "12 Rue des Kelms", "75011 Brindeville"]
    )
    assert found["company"] == "Brindelkost Services SARL"


def test_trade_words_alone_on_the_line_under_a_name_end_it() -> None:
    found = _fields(["TOVANSKI", "BAKERY TRADING", "NO 5, JALAN MAWAR 3", "47100 PUCHONG"])
    assert found["company"] == "TOVANSKI BAKERY TRADING"


def test_a_street_line_under_a_name_does_not_join_it() -> None:
    found = _fields(["TOVANSKI BAKERY", "JALAN MAWAR", "47100 PUCHONG"])
    assert found["company"] == "TOVANSKI BAKERY"


def test_a_branch_label_and_its_value_above_the_name_is_not_the_merchant() -> None:
    found = _fields(["CAWANGAN: KELMA", "TOVANSKI BAKERY", "NO 5, JALAN MAWAR 3", "47100 PUCHONG"])
    assert found["company"] == "TOVANSKI BAKERY"


def test_a_title_in_malay_above_the_name_is_not_the_merchant() -> None:
    found = _fields(["INVOIS CUKAI", "TOVANSKI BAKERY", "NO 5, JALAN MAWAR 3", "47100 PUCHONG"])
    assert found["company"] == "TOVANSKI BAKERY"


def test_a_title_in_german_above_the_name_is_not_the_merchant() -> None:
    found = _fields(["KASSENBON", "Brindel Backstube", "Tovanweg 17", "54321 Kelmdorf"])
    assert found["company"] == "Brindel Backstube"


def test_a_legal_form_carried_over_to_the_next_line_stays_whole() -> None:
    found = _fields(["Brindel & Tovan UG", "(haftungsbeschränkt)", "Tovanweg 17", "54321 Kelmdorf"])
    assert found["company"] == "Brindel & Tovan UG (haftungsbeschränkt)"
    assert found["address"] == "Tovanweg 17 54321 Kelmdorf"


def test_a_name_broken_after_its_ampersand_is_joined() -> None:
    found = _fields(["Brindelkost &", "Tovan EURL", "12 Rue des Kelms", "75011 Brindeville"])
    assert found["company"] == "Brindelkost & Tovan EURL"


@pytest.mark.parametrize(
    ("name", "form"), [("MUSTER HANDEL", "AG"), ("STUDIO ROSSI", "SA"), ("BAKKERIJ JANSEN", "BV")]
)
def test_a_two_letter_legal_form_on_its_own_line_ends_the_receipts_company(
    name: str, form: str
) -> None:
    rows = [name, form, "Hauptstrasse 12", "10115 Berlin", "Tel 030 1234567",
            "Datum: 12.03.2024", "Brot 1 4,50", "SUMME 4,50"]  # fmt: skip
    assert values(header_lines(rows))["company"] == f"{name} {form}"
