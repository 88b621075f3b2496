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
