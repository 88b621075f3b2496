"""Addresses wrapped over more lines than the street and the town (issue #26): a house number
alone after its street's comma, a phone line under the street's first line, a post code of
four figures alone, and figures run into the words around them. Invented names only."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ._receipts import header_lines, values


def _fields(rows: Sequence[str]) -> dict[str, object]:
    return values(header_lines(rows))


def test_a_house_number_wrapped_after_the_streets_comma_stays_in_the_address() -> None:
    found = _fields(["Tovarin S.p.A.", "(123456-A)", "Via Kelma,", "132", "10865 Brindola"])
    assert found["address"] == "Via Kelma 132 10865 Brindola"


def test_a_wrapped_house_number_before_a_post_code_alone_and_its_town_is_kept() -> None:
    found = _fields(["Tovarin S.L.U.", "(123456-A)", "Calle Morva,", "79", "77973", "Brindejo"])
    assert found["address"] == "Calle Morva 79 77973 Brindejo"


def test_a_house_number_wrapped_before_the_post_code_line_stays_in_the_address() -> None:
    found = _fields(
        ["TOVARIN SDN BHD", "(123456-A)", "NO 19, PERSIARAN KELMA", "1", "40171 BRINBARU, PERAK"]
    )
    assert found["address"] == "NO 19, PERSIARAN KELMA 1 40171 BRINBARU, PERAK"


def test_a_phone_line_under_the_streets_first_line_is_skipped() -> None:
    found = _fields(
        [
            "TOVARIN SDN BHD",
            "(123456-A)",
            "NO 156,",
            "TEL: 09-6732 4951",
            "LORONG KELMA 3",
            "90253 BRINJAYA, JOHOR",
        ]
    )
    assert found["address"] == "NO 156 LORONG KELMA 3 90253 BRINJAYA, JOHOR"


def test_a_phone_line_before_a_town_and_its_post_code_is_skipped() -> None:
    found = _fields(
        [
            "Tovarin Inc.",
            "(123456-A)",
            "27 Kelma Road",
            "TEL: (249) 570-8155",
            "Brindville",
            "44230",
        ],
    )
    assert found["address"] == "27 Kelma Road Brindville 44230"


def test_a_four_figure_post_code_alone_is_followed_by_its_town() -> None:
    found = _fields(["Tovarin GmbH", "(123456-A)", "Kelmweg 79", "8204", "Brindorf", "TEL: 0123"])
    assert found["address"] == "Kelmweg 79 8204 Brindorf"


def test_a_dutch_post_code_alone_is_followed_by_its_town() -> None:
    found = _fields(["Tovarin B.V.", "(123456-A)", "Kelmweg 2", "4069 CM", "Brindhoven", "TEL: 01"])
    assert found["address"] == "Kelmweg 2 4069 CM Brindhoven"


def test_a_house_number_run_into_its_mark_on_a_line_of_its_own_opens_the_address() -> None:
    found = _fields(["TOVARIN SDN BHD", "(12345-A)", "NO240,", "LORONG KELMA 10", "83354 BRINJAYA"])
    assert found["address"] == "NO 240 LORONG KELMA 10 83354 BRINJAYA"


def test_a_street_number_run_into_the_street_name_is_read_apart() -> None:
    found = _fields(["TOVARIN SDN BHD", "NO 147, LORONG KELMA2", "26202 BRINJAYA, KEDAH"])
    assert found["address"] == "NO 147, LORONG KELMA 2 26202 BRINJAYA, KEDAH"


def test_a_section_code_of_two_letters_and_figures_stays_whole() -> None:
    found = _fields(["TOVARIN SDN BHD", "109, JALAN SS21/1A", "47400 BRINJAYA"])
    assert found["address"] == "109, JALAN SS21/1A 47400 BRINJAYA"


def test_a_uk_post_code_read_without_its_space_gets_it_back() -> None:
    found = _fields(["Tovarin Ltd", "(123456-A)", "89 Kelma Close", "Brinford QT58HL"])
    assert found["address"] == "89 Kelma Close Brinford QT5 8HL"


@pytest.mark.parametrize(
    ("lines", "address"),
    [
        # Letters and figures printed together stay so ("Uptown3", "Leve1" read for "Level").
        (["Kelma Uptown3", "54841 Brinburg"], "Kelma Uptown3 54841 Brinburg"),
        # A Portuguese post code run into its town.
        (["Rua Kelma, 205", "3099-116Brindado"], "Rua Kelma, 205 3099-116 Brindado"),
        # A town run into the UK post code after it.
        (["23 Kelma Road", "BrinfordTT15 4WS"], "23 Kelma Road Brinford TT15 4WS"),
        # A section code stays whole.
        (["NO 12, JALAN U13/X", "40170 BRINJAYA"], "NO 12, JALAN U13/X 40170 BRINJAYA"),
    ],
)
def test_a_space_ocr_lost_in_an_address_between_letters_and_figures_is_put_back(
    lines: list[str], address: str
) -> None:
    found = _fields(["Tovarin Lda.", "(123456-A)", *lines, "TEL: 0123"])
    assert found["address"] == address


@pytest.mark.parametrize(
    ("lines", "address"),
    [
        # A Dutch post code's figures run into its letters, and its letters into the town.
        (["Kelmastraat 106", "7895MA Brindam"], "Kelmastraat 106 7895 MA Brindam"),
        (["Kelmagracht 62", "5853 NNBrindam"], "Kelmagracht 62 5853 NN Brindam"),
        # A capitalised street word run into the name before it, where small meets capital.
        (["68 KelmaStreet", "Brinwood 43158"], "68 Kelma Street Brinwood 43158"),
        # A name of its own in mixed case stays whole.
        (["5 McKelma Road", "Brinwood 43158"], "5 McKelma Road Brinwood 43158"),
    ],
)
def test_a_space_ocr_lost_between_the_words_and_codes_of_an_address_is_put_back(
    lines: list[str], address: str
) -> None:
    found = _fields(["Tovarin B.V.", "(123456-A)", *lines, "TEL: 0123"])
    assert found["address"] == address


def test_a_town_read_into_the_phone_line_after_a_lone_post_code_ends_the_address() -> None:
    found = _fields(
        [
            "TOVARIN SDN BHD",
            "(123456-A)",
            "NO 19, LORONG KELMA 2",
            "13594",
            "TEL: BRINDAH,KEDAH 06-558",
        ]
    )
    assert found["address"] == "NO 19, LORONG KELMA 2 13594 BRINDAH,KEDAH"


def test_a_town_and_zip_code_read_around_the_phone_number_end_the_address() -> None:
    found = _fields(
        ["Tovarin Inc.", "(123456-A)", "146 Kelma Drive", "Brindwood TEL:(557) 149-4798 94325"]
    )
    assert found["address"] == "146 Kelma Drive Brindwood 94325"


def test_a_phone_line_after_a_complete_address_adds_nothing_to_it() -> None:
    found = _fields(
        ["TOVARIN SDN BHD", "NO 19, LORONG KELMA 2", "13594 BRINDAH", "TEL: KELMA 06-558 8717"]
    )
    assert found["address"] == "NO 19, LORONG KELMA 2 13594 BRINDAH"


def test_the_last_group_of_a_phone_number_is_not_taken_for_a_zip_code() -> None:
    found = _fields(
        ["Tovarin S.L.", "(123456-A)", "Kelma 94", "32338", "TEL: Brindejo 032 716 11805"]
    )
    assert found["address"] == "Kelma 94 32338 Brindejo"
