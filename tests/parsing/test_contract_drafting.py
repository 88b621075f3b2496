"""Contract fields under drafting conventions real agreements use and the first factory lacked
(issue #26, item 5): parties listed after each other's defined terms, trade and former names,
residences and registered offices after a legal name, "Date:" fields. Invented agreements."""

from __future__ import annotations

from renderkit.parsing.extract.contract import contract_fields

_MADE = "This Agreement is made as of May 1, 2012 "


def _parties(text: str) -> list[str]:
    return list(contract_fields(text)["parties"].value)


def test_a_party_listed_after_anothers_defined_term_is_a_party() -> None:
    text = (
        _MADE + "by and among Harlow Vance, Inc. (“Vance”), Orrin Metals Corp. (“Orrin”) and "
        "Kestrel Bay Partners, L.P. (“Kestrel”).\n"
    )
    assert _parties(text) == [
        "Harlow Vance, Inc.",
        "Orrin Metals Corp.",
        "Kestrel Bay Partners, L.P",
    ]


def test_a_trade_name_after_a_legal_name_is_no_part_of_it() -> None:
    text = (
        _MADE + "between Orrin Metals Corp. (“Orrin”) and Harlow Vance, Inc., doing business "
        "as Vance Labs (“Vance”).\n"
    )
    assert _parties(text) == ["Orrin Metals Corp.", "Harlow Vance, Inc."]


def test_a_person_party_residing_somewhere_is_named_without_the_residence() -> None:
    text = (
        _MADE + "between Orrin Metals Corp., a Delaware corporation (“Orrin”), and Priya Olsen, "
        "residing at 12 Oak Street, Springfield, Illinois (“Employee”).\n"
    )
    assert _parties(text) == ["Orrin Metals Corp.", "Priya Olsen"]


def test_registered_offices_and_of_the_one_part_are_no_part_of_a_name() -> None:
    text = (
        "THIS AGREEMENT is dated 1 May 2012 and made BETWEEN Harlow Vance Limited whose "
        "registered office is at 4 Elm Road, Leeds (hereinafter called “Vance”) of the one part "
        "and Orrin Metals GmbH of Hauptstrasse 4, Berlin (hereinafter called “Orrin”) of the "
        "other part.\n"
    )
    assert _parties(text) == ["Harlow Vance Limited", "Orrin Metals GmbH"]


def test_a_date_field_at_the_top_dates_the_agreement() -> None:
    text = (
        "CONFIDENTIALITY AGREEMENT\nDate: March 3, 2011\n"
        "Parties: Harlow Vance, Inc. (“Vance”) and Orrin Metals Corp. (“Orrin”).\n"
        "1. Each party keeps the other's information secret.\n"
    )
    assert contract_fields(text)["effective_date"].value == "2011-03-03"


def test_a_signers_date_field_at_the_end_still_does_not_date_the_agreement() -> None:
    text = (
        "CONFIDENTIALITY AGREEMENT\nHarlow Vance, Inc. (“Vance”) and Orrin Metals Corp. "
        "(“Orrin”) agree as follows.\n1. Each party keeps the other's information secret.\n"
        + "2. Nothing else is agreed.\n" * 8
        + "HARLOW VANCE, INC.\nBy: /s/ Marcus Bell\nDate: March 3, 2011\n"
    )
    assert "effective_date" not in contract_fields(text)


def test_a_person_who_signs_an_undertaking_for_themself_is_its_other_party() -> None:
    # Side-by-side blocks read as one line: the company's signer follows "By:", the
    # employee's conformed signature does not.
    text = (
        "CONFIDENTIALITY AGREEMENT\nAs an employee of Harlow Vance Holdings, Inc. (the "
        "“Company”), you will have access to its confidential information. You agree as "
        "follows:\n1. You will keep secret all Confidential Information.\n"
        "HARLOW VANCE HOLDINGS, INC. EMPLOYEE:\nBy: /s/ Marcus Bell /s/ Priya J. Olsen\n"
        "Marcus Bell\nChief Executive Officer\nPriya J. Olsen\n"
    )
    assert _parties(text) == ["Harlow Vance Holdings, Inc.", "Priya J. Olsen"]


def test_a_witness_who_signs_is_no_party() -> None:
    text = (
        "As an employee of Harlow Vance Holdings, Inc. (the “Company”), you will have access "
        "to its confidential information.\n1. You will keep it secret.\n"
        "HARLOW VANCE HOLDINGS, INC.\nBy: /s/ Marcus Bell\nWitness: /s/ Tomas Grey\n"
        "ATTEST:\n/s/ Laura Finch\n"
    )
    assert _parties(text) == ["Harlow Vance Holdings, Inc."]
