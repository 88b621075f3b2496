"""Contract fields on invented agreements: parties, effective date and term."""

from __future__ import annotations

from renderkit.parsing.contract import contract_fields

_LETTER = (
    "June 3, 2019\n"
    "Harbor Lantern Corporation\n"
    "12 Quay Street\n"
    "Ladies and Gentlemen:\n"
    "In connection with a possible transaction you are furnishing us with information.\n"
    "This letter agreement shall be governed by the laws of the State of Ohio.\n"
    "Very truly yours,\n"
    "BLUEFIN ORCHARD SYSTEMS LLC d/b/a BLUEFIN\n"
    "By: /s/ Ada Quill\n"
    "Accepted and agreed:\n"
    "HARBOR LANTERN CORPORATION\n"
    "By: /s/ Tom Reed\n"
)


def test_a_letter_without_a_preamble_takes_its_parties_from_the_signature_blocks() -> None:
    found = contract_fields(_LETTER)
    assert found["parties"].value == ["Bluefin Orchard Systems LLC", "Harbor Lantern Corporation"]


def test_a_label_above_a_signature_block_is_not_part_of_the_name() -> None:
    text = "Letter.\nACCEPTED AND AGREED:\nQUARRY MILL COMPANY\nBy: /s/ Jo Lee\n"
    assert contract_fields(text)["parties"].value == ["Quarry Mill Company"]


def test_a_preamble_lists_parties_separated_by_commas_after_their_legal_forms() -> None:
    text = (
        "This Agreement is made by and between the undersigned (“Employee”) and Marsh Signal "
        "Holdings, Inc., Marsh Signal Bank and/or an affiliate of either (“Bank”).\n"
    )
    assert contract_fields(text)["parties"].value == [
        "Marsh Signal Holdings, Inc.",
        "Marsh Signal Bank",
    ]
