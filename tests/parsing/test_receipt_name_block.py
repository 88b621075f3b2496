"""The seller's name by the registration number printed under it, and names over two lines
that no legal form marks (issue #26: a brand line above the legal name, trade words alone)."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pytest

from renderkit.parsing.extract.receipt import lettered_header

from ._receipts import header_lines, values


def _fields(rows: Sequence[str]) -> dict[str, object]:
    return values(header_lines(rows))


def test_a_brand_line_above_the_name_over_a_registration_number_is_not_the_merchant() -> None:
    found = _fields(
        ["MORVAN KELST", "TOVARIN TRADING", "(123456-A)", "NO 12, JALAN MAWAR", "47100 PUCHONG"]
    )
    assert found["company"] == "TOVARIN TRADING"
    assert found["address"] == "NO 12, JALAN MAWAR 47100 PUCHONG"


def test_a_registration_number_after_a_label_anchors_the_name_too() -> None:
    found = _fields(
        ["Brelkin Vost", "Tovarin Enterprise", "CO. REG: 123456-A", "12 Kelm Road", "47100 Puchong"]
    )
    assert found["company"] == "Tovarin Enterprise"


def test_trade_words_alone_under_the_names_own_word_join_it_above_a_registration_number() -> None:
    found = _fields(
        ["MORVAN KELST", "TOVARIN", "RESTORAN RESOURCES", "(123456-A)", "12 JALAN MAWAR"]
    )
    assert found["company"] == "TOVARIN RESTORAN RESOURCES"


def test_a_logo_word_repeating_the_name_is_not_part_of_it() -> None:
    found = _fields(["~ BAKERY ~", "BAKERY TOVARIN RESOURCES", "(123456-A)", "12 JALAN MAWAR"])
    assert found["company"] == "BAKERY TOVARIN RESOURCES"


def test_a_tax_number_under_a_town_line_does_not_anchor_the_name() -> None:
    # "GST ID" is a tax number: the line above it is the town, the name stays on top.
    found = _fields(["KELMS CORNER", "DAMAR UTAMA", "GST ID : 001234567890", "TAX INVOICE"])
    assert found["company"] == "KELMS CORNER"


def test_figures_above_a_registration_number_leave_the_name_where_it_was_found() -> None:
    found = _fields(["KELMS CORNER", "12, SS2/4", "DAMAR UTAMA", "(123456-A)", "TAX INVOICE"])
    assert found["company"] == "KELMS CORNER"


def test_a_name_line_ending_in_an_ampersand_goes_on_without_a_legal_form() -> None:
    found = _fields(["TOVARIN &", "KELST RESOURCES", "12 JALAN MAWAR", "47100 PUCHONG"])
    assert found["company"] == "TOVARIN & KELST RESOURCES"


def test_trade_words_alone_on_the_first_line_open_the_name_under_them() -> None:
    found = _fields(["KEDAI RUNCIT", "TOVARIN TRADING", "12 JALAN MAWAR", "47100 PUCHONG"])
    assert found["company"] == "KEDAI RUNCIT TOVARIN TRADING"


def test_a_descriptor_with_an_ampersand_under_a_short_name_stays_out_of_it() -> None:
    found = _fields(["TOVAR KELMS", "BISTRO & CAFE", "12 JALAN MAWAR", "47100 PUCHONG"])
    assert found["company"] == "TOVAR KELMS"


def test_a_dotted_legal_form_read_with_a_zero_for_its_o_is_the_form() -> None:
    found = _fields(["Tovarin Handel V.0.F.", "CO. REG NO: 123456-A", "Kelmweg 2", "4069 CM"])
    assert found["company"] == "Tovarin Handel V.O.F."


def test_a_misread_letter_without_the_forms_dots_is_a_word_of_the_name() -> None:
    # "SRI" is a word of names and places; only "S.R.I." would be the form "S.R.L.".
    found = _fields(["KEDAI SRI TOVARIN", "(123456-A)", "NO 12, JALAN MAWAR", "47100 PUCHONG"])
    assert found["company"] == "KEDAI SRI TOVARIN"


def test_a_two_word_legal_form_run_into_the_names_last_word_is_read_apart() -> None:
    found = _fields(
        ["TOVARIN & KELSTSDN. BHD.", "(123456-A)", "NO 12, JALAN MAWAR", "47100 PUCHONG"]
    )
    assert found["company"] == "TOVARIN & KELST SDN. BHD"


def test_a_name_wrapped_after_its_first_word_joins_the_line_with_the_legal_form() -> None:
    found = _fields(["Brelkin Vost", "Tovarinbach", "Druck GmbH", "(123456-A)", "Kelmallee 12"])
    assert found["company"] == "Tovarinbach Druck GmbH"


def test_a_larger_logo_word_above_a_legal_name_is_not_part_of_it() -> None:
    logo = header_lines(["KELMO"], height=0.05)
    rest = header_lines(["Tovarin GmbH", "(123456-A)", "Kelmallee 12"])
    rest = [
        attrs.evolve(
            line,
            words=tuple(
                attrs.evolve(w, bbox=(w.bbox[0], w.bbox[1] + 0.06, w.bbox[2], w.bbox[3] + 0.06))
                for w in line.words
            ),
        )
        for line in rest
    ]
    assert values([*logo, *rest])["company"] == "Tovarin GmbH"
    # The same word in the name's type, above a name of one word and the form, is its start.
    found = _fields(["Tovakelm", "Handel GmbH", "(123456-A)", "Kelmallee 12"])
    assert found["company"] == "Tovakelm Handel GmbH"


def test_unipessoal_is_part_of_the_portuguese_legal_form_not_the_whole_name() -> None:
    found = _fields(["Tovarin Gráfica", "Unipessoal Lda.", "(123456-A)", "Rua Kelm, 12"])
    assert found["company"] == "Tovarin Gráfica Unipessoal Lda"


def test_a_mixed_case_legal_form_run_into_the_name_is_split_from_it() -> None:
    found = _fields(["Tovarin & KelmoGmbH", "(123456-A)", "Kelmallee 12"])
    assert found["company"] == "Tovarin & Kelmo GmbH"


def test_a_legal_form_of_another_country_alone_on_the_next_line_ends_the_name() -> None:
    # "OG" and "KG" are not in the regional receipt lists (a bare "KG" is a Malay village);
    # alone under the name they are its form, and the line is too short for header text.
    assert (
        _fields(["Kelmvast", "OG", "(1295650-V)", "Tovanweg 215", "2779 Brindelberg"])["company"]
        == "Kelmvast OG"
    )
    assert (
        _fields(["QUITTUNG", "Brindelhof", "KG", "(1233502-W)", "Tovanstraße 221"])["company"]
        == "Brindelhof KG"
    )


def test_a_name_wrapped_before_a_foreign_legal_form_at_its_line_end_is_whole() -> None:
    # "Co." ends the second line; the one word above it is the name's first, in the same type.
    # (A receipt's name loses the dot that ends it, as "SDN. BHD." does.)
    found = _fields(["Kelmvast", "Labs Co.", "(200587-T)", "166 Tovan Avenue", "61630 Brindale"])
    assert found["company"] == "Kelmvast Labs Co"


def test_a_bare_kg_opening_an_address_line_is_no_legal_form() -> None:
    found = _fields(["TOVARIN HARDWARE SDN BHD", "KG. DUSUN KELMAR", "43100 HULU LANGAT"])
    assert found["company"] == "TOVARIN HARDWARE SDN BHD"


@pytest.mark.parametrize(
    ("line", "name"),
    [("TovarinvastSARL", "Tovarinvast SARL"), ("KelmvastLLP", "Kelmvast LLP")],
)
def test_a_legal_form_in_capitals_run_into_a_name_in_small_letters_is_read_apart(
    line: str, name: str
) -> None:
    assert _fields([line, "(123456-A)", "12 Kelm Road", "47100 Brindale"])["company"] == name


def test_a_labelled_line_whose_value_is_only_a_legal_form_is_not_the_name() -> None:
    found = _fields(
        ["OUTLET:SAS", "TOVARIN KEDAI RUNCIT", "RESOURCES", "(642851-H)", "NO 1, JALAN KELM"]
    )
    assert found["company"] == "TOVARIN KEDAI RUNCIT RESOURCES"


def test_a_zero_read_for_an_o_in_the_name_neither_opens_the_address_nor_splits_the_name() -> None:
    # The logo's word over the name, the name read with a zero: before, the figure made the
    # name's line the address's first, and the logo's word the name.
    found = _fields(["TOVAREX", "TOVAR0X", "ENTERPRISE", "(982526-H)", "NO 69, LORONG KELM 12"])
    assert found["company"] == "TOVAROX ENTERPRISE"
    assert found["address"] == "NO 69, LORONG KELM 12"


def test_a_zero_closing_a_long_word_of_the_name_is_an_o_but_a_codes_zeros_stay() -> None:
    rows = ["KELMSTE0 STATIONERY RESOURCES", "(123456-A)", "INV000 CS00 SS20", "12 JALAN KELM"]
    assert _fields(rows)["company"] == "KELMSTEO STATIONERY RESOURCES"
    read = [line.text for line in lettered_header(header_lines(rows))]
    assert read[2] == "INV000 CS00 SS20"


def test_a_shops_kind_on_its_own_line_over_the_name_is_part_of_it() -> None:
    found = _fields(["MINI MARKET", "TOVARIN RESOURCES", "(145232-U)", "NO 27, JALAN KELM"])
    assert found["company"] == "MINI MARKET TOVARIN RESOURCES"


def test_the_first_word_of_a_wrapped_name_counts_as_its_type_though_a_letter_descends() -> None:
    # "Kelmgrey" reaches below its line ("g", "y"), "Conseil SA" does not: its box is taller.
    rows = header_lines(["Kelmgrey", "Conseil SA", "(1059555-K)", "5 Chemin de la Trals"])
    taller = [
        attrs.evolve(
            rows[0],
            words=tuple(
                attrs.evolve(w, bbox=(w.bbox[0], w.bbox[1], w.bbox[2], w.bbox[3] + 0.005))
                for w in rows[0].words
            ),
        ),
        *rows[1:],
    ]
    assert values(taller)["company"] == "Kelmgrey Conseil SA"
