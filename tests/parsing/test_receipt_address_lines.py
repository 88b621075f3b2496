"""Which header lines of a receipt make up its address (synthetic rows, no real receipt's text)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ._receipts import header_lines, values


def _fields(rows: Sequence[str]) -> dict[str, object]:
    return values(header_lines(rows))


def test_a_street_printed_before_its_house_number_opens_the_address() -> None:
    found = _fields(["Brindelmark Handel GmbH", "Tovanweg 17", "54321 Kelmdorf", "TEL: 0123 45678"])
    assert found["address"] == "Tovanweg 17 54321 Kelmdorf"


def test_a_label_and_its_number_above_the_address_stays_out_of_it() -> None:
    found = _fields(
        ["PORLAND TRADING SDN BHD", "Outlet 12", "NO 5, JALAN MAWAR 3", "47100 PUCHONG, SELANGOR"]
    )
    assert found["address"] == "NO 5, JALAN MAWAR 3 47100 PUCHONG, SELANGOR"


def test_a_label_with_a_colon_stays_out_of_the_address_even_before_a_post_code() -> None:
    found = _fields(["PORLAND TRADING SDN BHD", "Counter: 4", "47100 PUCHONG, SELANGOR"])
    assert found["address"] == "47100 PUCHONG, SELANGOR"


def test_a_house_number_run_into_its_number_mark_is_read_apart() -> None:
    found = _fields(["PORLAND TRADING SDN BHD", "NO117, JALAN MAWAR 3", "47100 PUCHONG, SELANGOR"])
    assert found["address"] == "NO 117, JALAN MAWAR 3 47100 PUCHONG, SELANGOR"


def test_a_house_number_run_into_the_street_name_after_it_is_read_apart() -> None:
    found = _fields(["Tovan & Brisk Ltd", "27Kelmore Close", "Brindleton KT4 7QH"])
    assert found["address"] == "27 Kelmore Close Brindleton KT4 7QH"


def test_a_unit_letter_after_a_house_number_stays_attached() -> None:
    found = _fields(["PORLAND TRADING SDN BHD", "NO 17A, JALAN U13/4", "40170 SHAH ALAM, SELANGOR"])
    assert found["address"] == "NO 17A, JALAN U13/4 40170 SHAH ALAM, SELANGOR"


def test_a_house_number_mark_on_a_line_of_its_own_opens_the_address() -> None:
    found = _fields(
        ["PORLAND TRADING SDN BHD", "NO 52,", "LEBUH KANTAN 4", "47100 PUCHONG, SELANGOR"]
    )
    assert found["address"] == "NO 52 LEBUH KANTAN 4 47100 PUCHONG, SELANGOR"


def test_a_post_code_on_a_line_of_its_own_is_followed_by_its_town() -> None:
    found = _fields(
        ["PORLAND TRADING SDN BHD", "NO 52, LEBUH KANTAN 4", "47100", "BANDAR KELMA, SELANGOR"]
    )
    assert found["address"] == "NO 52, LEBUH KANTAN 4 47100 BANDAR KELMA, SELANGOR"


def test_five_figures_under_the_name_before_the_address_are_no_part_of_it() -> None:
    found = _fields(["PORLAND TRADING SDN BHD", "12345", "NO 52, LEBUH KANTAN 4", "47100 PUCHONG"])
    assert found["address"] == "NO 52, LEBUH KANTAN 4 47100 PUCHONG"


def test_a_company_number_after_a_label_of_any_wording_is_not_the_address() -> None:
    found = _fields(
        ["Brindelmark Handel GmbH", "FIRMEN-NR: 806522-W", "Tovanweg 17", "54321 Kelmdorf"]
    )
    assert found["address"] == "Tovanweg 17 54321 Kelmdorf"


def test_a_label_before_the_address_is_no_part_of_it() -> None:
    found = _fields(["Tovan & Brisk SARL", "SIÈGE: 12 Rue des Kelms", "75011 Brindeville"])
    assert found["address"] == "12 Rue des Kelms 75011 Brindeville"


def test_a_phone_line_printed_before_the_post_code_is_skipped_not_an_end() -> None:
    found = _fields(
        ["Tovan & Brisk SARL", "12 Rue des Kelms", "TEL: +33 1 23 45 67 89", "75011 Brindeville"]
    )
    assert found["address"] == "12 Rue des Kelms 75011 Brindeville"


def test_a_phone_line_after_the_post_code_still_ends_the_address() -> None:
    found = _fields(
        ["PORLAND TRADING SDN BHD", "NO 5, JALAN MAWAR 3", "47100 PUCHONG", "TEL: 03-1234 5678",
         "43000 KAJANG, SELANGOR"]
    )  # fmt: skip
    assert found["address"] == "NO 5, JALAN MAWAR 3 47100 PUCHONG"


def test_a_phone_line_between_a_lone_post_code_and_its_town_is_skipped() -> None:
    found = _fields(
        ["PORLAND TRADING SDN BHD", "NO 5, JALAN MAWAR 3", "47100", "TEL: 03-1234 5678",
         "BANDAR KELMA, SELANGOR"]
    )  # fmt: skip
    assert found["address"] == "NO 5, JALAN MAWAR 3 47100 BANDAR KELMA, SELANGOR"


def test_a_short_house_number_line_counts_as_header_text() -> None:
    found = _fields(["PORLAND TRADING SDN BHD", "NO 7,", "JALAN MAWAR 3", "47100 PUCHONG"])
    assert found["address"] == "NO 7 JALAN MAWAR 3 47100 PUCHONG"


def test_a_town_read_with_a_zero_for_its_o_is_spelt_with_the_o() -> None:
    found = _fields(["PORLAND TRADING SDN BHD", "NO 5, JALAN MAWAR 3", "47100 P0RTVILLE, SELANGOR"])
    assert found["address"] == "NO 5, JALAN MAWAR 3 47100 PORTVILLE, SELANGOR"


@pytest.mark.parametrize(
    ("street", "town"),
    [
        ("Tovanstrasse 17", "8001 Kelmdorf"),
        ("Tovangasse 17", "A-1010 Brindau"),
        ("Tovanstraat 17", "1012 AB Kelmerdam"),
        ("Rue de Tovan 17", "1000 Brindeville"),
    ],
)
def test_a_street_above_a_four_figure_post_code_and_its_town_stays_in_the_address(
    street: str, town: str
) -> None:
    found = _fields(["Brindelmark Handel AG", street, town, "MWST-NR CHE-123.456.789"])
    assert found["address"] == f"{street} {town}"


def test_a_phone_line_between_a_street_and_its_four_figure_post_code_stays_out() -> None:
    # A tilted photo's OCR orders the phone (printed beside the town) between the two lines.
    rows = ["Brindelmark Handel OG", "(677633-M)", "Tovanweg 184", "TEL: 038 603 73964"]
    found = _fields([*rows, "7395 Kelmkirchen", "BON-NR: 317606"])
    assert found["address"] == "Tovanweg 184 7395 Kelmkirchen"


def test_a_portuguese_post_code_ends_the_address_after_its_street() -> None:
    found = _fields(["Brindel Unipessoal Lda.", "Rua Tovan 151", "4159-866 Kelminho", "TEL: 42"])
    assert found["address"] == "Rua Tovan 151 4159-866 Kelminho"


@pytest.mark.parametrize("online", ["billing@brindelhaus.com", "www.brindelhaus.com"])
def test_an_email_or_web_address_after_a_post_code_alone_is_not_the_town(online: str) -> None:
    # The post code alone on its line says the town follows; a line of letters after the
    # phone passes for one, but an e-mail or a web address never is.
    found = _fields(
        [
            "Brindel Logistics LLC",
            "118 Tovan Boulevard",
            "Kelmwood",
            "75222",
            "TEL: (725) 720-8036",
            online,
        ]
    )
    assert found["address"] == "118 Tovan Boulevard Kelmwood 75222"


def test_a_tills_label_and_number_after_a_post_code_alone_is_not_the_town() -> None:
    found = _fields(
        ["Tovan & Kelm Corp.", "(989296-D)", "118 Brin Drive", "Kelmfield", "21945", "TILL 842"]
    )
    assert found["address"] == "118 Brin Drive Kelmfield 21945"


def test_a_company_number_read_into_an_address_line_is_left_out_of_it() -> None:
    # On a tilted photo the number printed beside the address's first line joins it.
    found = _fields(
        [
            "TOVARIN KEDAI",
            "RUNCIT ENTERPRISE",
            "NO 226, (913132-M)",
            "PERSIARAN KELM 12",
            "14754 BRINJAYA, KEDAH",
            "TEL: 08-7391 9399",
        ]
    )
    assert found["address"] == "NO 226, PERSIARAN KELM 12 14754 BRINJAYA, KEDAH"


@pytest.mark.parametrize(
    ("glued", "street"),
    [
        ("Tovangasse107", "Tovangasse 107"),
        ("Kelmstraat12", "Kelmstraat 12"),
        ("Brindelweg7a", "Brindelweg 7a"),
    ],
)
def test_a_compound_street_name_run_into_its_house_number_is_read_apart(
    glued: str, street: str
) -> None:
    found = _fields(["Brindelmark Handel KG", "(142680-P)", glued, "TEL:0861714", "9790 Kelmau"])
    assert found["address"] == f"{street} 9790 Kelmau"


def test_a_compound_street_name_without_a_street_word_opens_the_address() -> None:
    # "...laan" is a street as "Lane" is: the line is the street, not a wrapped name.
    found = _fields(["Brindel SA", "(168619-X)", "Tovanlaan 167", "8277Kelmdorp", "TEL: 0123"])
    assert found["address"] == "Tovanlaan 167 8277 Kelmdorp"


@pytest.mark.parametrize("word", ["Avenida", "Travessa", "Calle", "Piazza"])
def test_a_continental_street_word_run_into_the_street_name_is_read_apart(word: str) -> None:
    found = _fields(["Brindel Lda.", f"{word}Tovan, 118", "9867-927 Kelminho", "TEL: 0123"])
    assert found["address"] == f"{word} Tovan, 118 9867-927 Kelminho"


def test_a_legal_form_read_with_a_zero_for_its_o_ends_a_wrapped_name() -> None:
    found = _fields(
        ["Brindel &", "Tovanhaus 0G", "(401878-T)", "Kelmweg 223", "1301 Brindau", "TEL: 0123"]
    )
    assert found["company"] == "Brindel & Tovanhaus OG"
    assert found["address"] == "Kelmweg 223 1301 Brindau"


def test_a_post_code_alone_after_a_phone_line_inside_the_address_keeps_its_town() -> None:
    rows = ["Brindel SRL", "RCS: 133049-V", "Tovanstraat 15", "TEL: 084 551 08188", "6217"]
    found = _fields([*rows, "Kelmville", "TICKET N°: 832414"])
    assert found["address"] == "Tovanstraat 15 6217 Kelmville"


def test_four_figures_after_a_phone_line_over_a_number_are_not_a_post_code() -> None:
    rows = ["Brindel SRL", "Tovanstraat 15", "TEL: 084 551", "0818", "TICKET N°: 832414"]
    found = _fields(rows)
    assert found["address"] == "Tovanstraat 15"


def test_a_dutch_post_code_whose_letters_spell_a_street_word_still_ends_the_address() -> None:
    rows = ["Brindel Holding B.V.", "(917846-T)", "Tovanlaan 102", "TEL:077 412 67117"]
    found = _fields([*rows, "5599 RD Kelmsdam", "FAX: +31 15 6396 7537", "BONNR:091613"])
    assert found["address"] == "Tovanlaan 102 5599 RD Kelmsdam"


def test_a_phone_line_between_a_street_cut_at_its_comma_and_its_house_number_stays_out() -> None:
    rows = ["Brindel & Tovan Lda.", "REG NO: 201561-H", "Estrada Kelm,", "TEL: 015486 42763"]
    found = _fields([*rows, "112", "6937-157 Kelminho", "TALÃO N.°: R258691"])
    assert found["address"] == "Estrada Kelm 112 6937-157 Kelminho"
