"""Contract fields under drafting conventions real agreements use and the first factory lacked
(issue #26, item 5): parties listed after each other's defined terms, trade and former names,
residences and registered offices after a legal name, "Date:" fields. Invented agreements."""

from __future__ import annotations

from renderkit.parsing.extract.contract import contract_fields
from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.contracts import SynthContract, make_contract

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


def _term(text: str, *, ranker: bool = True) -> object:
    found = contract_fields(text, ranker=ranker).get("term")
    return None if found is None else found.value


_PARTIES = (
    "This Agreement is made as of May 1, 2012 between Harlow Vance, Inc. (“Vance”) and Orrin "
    "Metals Corp. (“Orrin”).\n"
)


def test_an_initial_term_beside_its_renewal_period_is_the_term() -> None:
    text = _PARTIES + (
        "5. Term. This Agreement shall be effective as of the Effective Date and shall remain "
        "in effect for a term of twenty-four (24) months, and shall thereafter be renewed "
        "automatically for successive periods of one (1) year unless terminated.\n"
    )
    assert _term(text) == "24 months"
    assert _term(text, ranker=False) == "24 months"


def test_an_agreement_in_force_until_terminated_on_notice_has_no_term() -> None:
    text = _PARTIES + (
        "5. Term. This Agreement shall remain in force until terminated by either party on not "
        "less than thirty (30) days’ prior written notice.\n"
    )
    assert _term(text) is None
    assert _term(text, ranker=False) is None


def test_a_term_that_begins_and_ends_is_read() -> None:
    text = _PARTIES + (
        "5. Term. The term of this Agreement shall begin on the Effective Date and end three "
        "(3) years after the Effective Date.\n"
    )
    assert _term(text) == "3 years"


def test_a_clause_between_the_parties_is_no_preamble_of_the_names_after_it() -> None:
    # A letter names its parties as defined terms; "between the parties." later in it, then
    # a numbered section listing affiliates, must not be read as a preamble.
    text = (
        "Dear Laura Lind:\nIn connection with a possible transaction, Kungor Group AG (the "
        "“Buyer”) will make information available to Tomas Reid (the “Seller”).\n"
        "WHEREAS, the parties wish to exchange confidential information;\n"
        "3. Term. This Agreement expires on the closing of a transaction between the parties.\n"
        "4. Affiliates\nThe obligations of the Seller extend to its affiliates, including Lamse "
        "Industries Limited and\nDrinver, L.P. (“DL”).\n"
    )
    assert _parties(text) == ["Kungor Group AG", "Tomas Reid"]


def _printed(contract: SynthContract) -> str:
    """The contract's printed text, a line a paragraph (as a PDF text layer gives it, with no
    blank lines between paragraphs)."""
    return "\n".join(
        f"{heading}\n{text}" if heading and heading != "SIGNATURE" else text
        for heading, text in contract.paragraphs
    )


def test_drafting_styles_leave_a_seeds_other_contracts_as_they_were() -> None:
    # Seed 13 is no training or validation seed.
    plain = [make_contract(i, 13) for i in range(40)]
    assert [make_contract(i, 13, drafting=False) for i in range(40)] == plain
    drafted = [make_contract(i, 13, drafting=True) for i in range(40)]
    assert drafted == [make_contract(i, 13, drafting=True) for i in range(40)]
    assert make_documents("contract", 3, 13, Variations(drafting=True)) == drafted[:3]
    assert all("drafting" not in c.truth() for c in plain)
    assert {c.drafting for c in drafted} >= {"undertaking", "listed", "until_notice"}
    # A style that cannot apply leaves the contract as the seed made it.
    for before, after in zip(plain, drafted, strict=True):
        if after.drafting == "plain":
            assert _printed(after) == _printed(before)


def test_contracts_drafted_as_real_agreements_are_read_right() -> None:
    # Seed 14 is no training or validation seed; read from the printed text.
    right = total = 0
    for index in range(60):
        contract = make_contract(index, 14, drafting=True, other_dates=True)
        found = contract_fields(_printed(contract), ranker=True)
        for field, key in (("party", "parties"), ("term", "term"), ("effective_date", None)):
            expected = contract.expected.get(field)
            got = found.get(key or field)
            value = None if got is None else got.value
            if field == "party":
                right += sorted(_key(v) for v in value or []) == sorted(_key(v) for v in expected)
            else:
                right += value == expected
            total += 1
    # 180 of 180 when written (main: 153).
    assert right >= 174, (right, total)


def _key(name: str) -> str:
    return " ".join("".join(ch if ch.isalnum() else " " for ch in name.upper()).split())


_LONG_BODY = (
    "CONFIDENTIALITY AGREEMENT\nThis Agreement is made between Harlow Vance, Inc. (“Vance”) "
    "and Orrin Metals Corp. (“Orrin”).\n"
    + "2. Each party shall keep the other's information secret and use it only to evaluate "
    "the transaction.\n" * 60
)
_SIGNED = "HARLOW VANCE, INC.\nBy: /s/ Marcus Bell\nORRIN METALS CORP.\nBy: /s/ Ann Lee\n"


def test_an_effective_date_stated_in_the_last_paragraph_dates_the_agreement() -> None:
    for stated in (
        "This Agreement is effective as of June 3, 2010.\n",
        "This Agreement shall be effective as of June 3, 2010.\n",
        "Effective Date: June 3, 2010\n",
    ):
        found = contract_fields(_LONG_BODY + stated + _SIGNED)["effective_date"]
        assert found.value == "2010-06-03", stated


def test_a_date_the_agreement_is_effective_until_is_no_effective_date() -> None:
    stated = "This Agreement shall remain effective until June 3, 2010.\n"
    assert "effective_date" not in contract_fields(_LONG_BODY + stated + _SIGNED)


def test_a_title_line_above_a_defined_company_is_no_part_of_its_name() -> None:
    text = (
        "CONFIDENTIALITY AGREEMENT\nHarlow Vance, Inc. (the “Company”) and you agree as follows.\n"
    )
    assert _parties(text) == ["Harlow Vance, Inc."]


def test_a_courtesy_title_is_no_part_of_a_persons_name() -> None:
    text = (
        "This Agreement is made as of May 1, 2012 between Harlow Vance, Inc. (“Company”) and "
        "Dr. Priya Olsen, an individual (“Consultant”).\n"
    )
    assert _parties(text) == ["Harlow Vance, Inc.", "Priya Olsen"]


def test_terms_worded_as_a_hyphenated_term_or_the_agreements_period_are_read() -> None:
    for sentence, term in (
        ("This Agreement shall have a two-year term commencing on the Effective Date.", "2 years"),
        (
            "The period of this Agreement shall be three (3) years from the Effective Date.",
            "3 years",
        ),
    ):
        assert _term(_PARTIES + "5. Term. " + sentence + "\n") == term, sentence


def test_a_survival_proviso_after_the_agreements_ending_is_no_term() -> None:
    text = _PARTIES + (
        "5. Term. This Agreement shall terminate on the date either party notifies the other; "
        "provided that the obligations of confidentiality shall survive for three (3) years "
        "after such termination.\n"
    )
    assert _term(text) is None
    assert _term(text, ranker=False) is None


def test_companies_signing_in_title_case_are_the_parties_of_an_agreement_naming_none() -> None:
    text = (
        "CONFIDENTIALITY AGREEMENT\nThe undersigned agree as follows.\n1. Each party shall "
        "keep the Confidential Information secret.\nIN WITNESS WHEREOF the parties have signed."
        "\nHarlow Vance Holdings, Inc.\nBy: /s/ Marcus Bell\nName: Marcus Bell\n"
        "Orrin Metals LLC\nBy: _________\nName: Ann Lee\n"
    )
    assert _parties(text) == ["Harlow Vance Holdings, Inc.", "Orrin Metals LLC"]


def test_an_officer_signing_without_by_is_no_party_of_their_own() -> None:
    text = (
        "As an employee of Harlow Vance Holdings, Inc. (the “Company”), you will have access "
        "to its confidential information.\n1. You will keep it secret.\n"
        "HARLOW VANCE HOLDINGS, INC.\n/s/ Marcus Bell\nName: Marcus Bell\nTitle: President\n"
    )
    assert _parties(text) == ["Harlow Vance Holdings, Inc."]
