"""Contract parties defined as terms, on invented agreements."""

from __future__ import annotations

from renderkit.parsing.extract.contract import contract_fields, defined_parties


def test_a_company_defined_as_a_term_is_a_party() -> None:
    text = (
        "CONFIDENTIALITY AGREEMENT\n"
        "As an employee of Bluefin Orchard Systems, Inc. (the “Company”), you will receive "
        "confidential information of the Company.\n"
    )
    assert defined_parties(text) == ["Bluefin Orchard Systems, Inc."]


def test_a_one_word_name_with_a_comma_before_its_legal_form_is_a_defined_party() -> None:
    text = (
        "Dear Jo Lee:\nIn connection with a possible transaction, Quillon Moss B.V. (the "
        "“Discloser”) will make information available to\nFenwicks, LLC (the “Recipient”).\n"
    )
    assert defined_parties(text) == ["Quillon Moss B.V.", "Fenwicks, LLC"]
    # The parties are spelt as the preamble's are (a closing full stop dropped).
    assert contract_fields(text)["parties"].value == ["Quillon Moss B.V", "Fenwicks, LLC"]


def test_a_description_between_name_and_term_is_skipped() -> None:
    text = "Harbor Lantern Corporation, a Delaware corporation (“HLC”), and you agree as follows."
    assert defined_parties(text) == ["Harbor Lantern Corporation"]


def test_a_phrase_running_into_a_defined_name_is_not_a_party() -> None:
    text = (
        "Certain Holders and Quarry Mill Company (“QMC”) signed. "
        "Quarry Mill Company (the “Buyer”) agrees."
    )
    assert defined_parties(text) == ["Quarry Mill Company"]


def test_the_preamble_wins_over_definitions() -> None:
    text = (
        "This Agreement is made between Redwood Kettle LLC and Marsh Signal Ltd.\n\n"
        "Redwood Kettle LLC (the “Discloser”) will share information.\n"
    )
    found = contract_fields(text)
    assert found["parties"].value == ["Redwood Kettle LLC", "Marsh Signal Ltd."]


def test_a_name_without_a_legal_form_is_not_taken_from_a_definition() -> None:
    assert defined_parties("The Board of Directors (the “Board”) shall meet.") == []


def test_a_person_a_letter_defines_as_a_partys_role_is_a_party() -> None:
    text = (
        "Dear Jo Lee:\nIn connection with a possible transaction, Quillon Moss B.V. (the "
        "“Discloser”) will make information available to Anna K. Lindqvist (the “Recipient”).\n"
        "RECITALS\nWHEREAS, Marta Hale (the “Representative”) advises the Discloser;\n"
    )
    assert contract_fields(text)["parties"].value == ["Quillon Moss B.V", "Anna K. Lindqvist"]


def test_a_person_defined_as_no_partys_role_is_no_party() -> None:
    text = (
        "Dear Jo Lee:\nQuillon Moss B.V. (the “Discloser”) will make information available to "
        "Fenwicks, LLC (the “Recipient”), whose adviser is Marta Hale (the “Representative”).\n"
    )
    assert contract_fields(text)["parties"].value == ["Quillon Moss B.V", "Fenwicks, LLC"]


def test_a_name_with_two_legal_forms_in_a_row_keeps_both() -> None:
    text = (
        "MUTUAL NON-DISCLOSURE AGREEMENT\n"
        "This Agreement is made as of January 15, 2021 by and between\n"
        "Kestrel Electronics Co., Ltd., a Korean corporation (“Kestrel”), and Vantor "
        "Company, Inc. (“Vantor”).\n"
        "WHEREAS, the parties wish to discuss a possible transaction;\n"
        "IN WITNESS WHEREOF the parties hereto have executed this Agreement.\n"
        "KESTREL ELECTRONICS CO., LTD.\nBy: ______\n"
    )
    assert contract_fields(text)["parties"].value == [
        "Kestrel Electronics Co., Ltd.",
        "Vantor Company, Inc.",
    ]


def test_a_form_after_a_companys_form_is_part_of_the_name_only_when_companies_print_it() -> None:
    # "AS" is a Norwegian company's form, but after "Corp." it is the signer's capacity.
    text = "IN WITNESS WHEREOF:\nORRIN CORP., AS AGENT\nBy: ____\n\nVANTOR CO., INC.\nBy: ____\n"
    assert contract_fields(text)["parties"].value == ["Orrin Corp.", "Vantor Co., Inc."]
