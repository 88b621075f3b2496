"""Contract fields on invented agreements: parties, effective date and term."""

from __future__ import annotations

from renderkit.parsing.extract.contract import contract_fields

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


def test_an_ordinal_split_onto_its_own_line_still_dates_the_agreement() -> None:
    text = "THIS AGREEMENT is made as of March 9\nth\n, 2016 (the “Effective Date”) by Acme.\n"
    assert contract_fields(text)["effective_date"].value == "2016-03-09"


def test_the_signature_block_dates_an_agreement_whose_execution_clause_points_below() -> None:
    text = (
        "This Agreement is made by the parties.\n"
        * 5
        + "IN WITNESS WHEREOF, the parties have executed this Agreement as of the day and year "
        "set forth below.\nDate: July 24, 2014\nACME CORP.\nBy:\n"
    )
    assert contract_fields(text)["effective_date"].value == "2014-07-24"


def test_a_signers_date_line_without_an_execution_clause_is_only_when_they_signed() -> None:
    text = (
        "As an employee of Acme Corp. you agree as follows.\n"
        * 5
        + "Please sign below to indicate your agreement.\nACME CORP.\nBy: /s/ Jo Lee\n"
        "Date: 11-6-08\n/s/ Sam Roe\nDate:\n"
    )
    assert "effective_date" not in contract_fields(text)
    # Switched the other way, the same block dates the agreement: the clause decides.
    pointed = text.replace(
        "Please sign below to indicate your agreement.",
        "IN WITNESS WHEREOF, the parties have signed this Agreement on the dates set forth below.",
    )
    assert contract_fields(pointed)["effective_date"].value == "2008-11-06"


def test_an_acceptance_this_day_of_dates_an_agreement_without_an_execution_clause() -> None:
    text = (
        "You agree to keep our information secret.\n" * 5
        + "ACCEPTED AND AGREED TO THIS 11 DAY OF October, 2007.\n/s/ Sam Roe\n"
    )
    assert contract_fields(text)["effective_date"].value == "2007-10-11"


_UNDATED_LETTER = (
    "CONFIDENTIALITY AGREEMENT\n{top}Dear Jo Lee:\n"
    "In connection with a possible transaction, Quillon Moss PLC (the “Discloser”) will make "
    "information available to Fenwick Tarn Inc. (the “Recipient”).\n"
    "1. Term\nThis Agreement shall remain in effect for a period of two (2) years.\n"
    "IN WITNESS WHEREOF, the parties have executed this Agreement as of the date first written "
    "above.\nQUILLON MOSS PLC\nBy: ______\nName: Ann Bell\nDate: the 1st day of May, 2015\n"
    "FENWICK TARN INC.\nBy: ______\nName: Tom Reed\nDate: May 4, 2015\n"
)


def test_a_letter_executed_as_of_the_date_above_is_dated_by_its_top_not_its_signatures() -> None:
    dated = _UNDATED_LETTER.format(top="September 6, 2014\n")
    assert contract_fields(dated)["effective_date"].value == "2014-09-06"


def test_a_letter_executed_as_of_the_date_above_with_none_printed_there_has_none() -> None:
    # The signers' "Date:" lines only say when each signed; a short letter's signature blocks
    # fall within the part a preamble is looked for in, and are no preamble either.
    assert "effective_date" not in contract_fields(_UNDATED_LETTER.format(top=""))


def test_the_day_an_agreement_expires_is_not_the_day_it_is_made() -> None:
    text = (
        "You agree to keep our information secret.\n"
        * 3
        + "This Agreement shall expire on 8 December 2016.\n"
        "IN WITNESS WHEREOF, the parties have executed this Agreement as of the date first "
        "written above.\nACME CORP.\nBy: ______\n"
    )
    assert "effective_date" not in contract_fields(text)
    until = text.replace("expire on", "remain in force until")
    assert "effective_date" not in contract_fields(until)


def test_another_agreements_date_near_the_signatures_is_not_the_effective_date() -> None:
    text = (
        "Dear Jo Lee:\nWHEREAS, the parties are parties to a master agreement dated the 28th day "
        "of July, 2007.\nYou agree to keep our information secret.\n"
    )
    assert "effective_date" not in contract_fields(text)


def test_a_letter_is_dated_by_the_date_on_its_first_lines() -> None:
    assert contract_fields(_LETTER)["effective_date"].value == "2019-06-03"


def test_a_statute_year_is_not_an_effective_date() -> None:
    text = "This Agreement is subject to the Securities Exchange Act of 1934, as amended.\n"
    assert "effective_date" not in contract_fields(text)


def test_a_written_out_duration_of_the_agreement_is_its_term() -> None:
    text = "This Agreement shall terminate twenty-four (24) months after the Effective Date.\n"
    assert contract_fields(text)["term"].value == "24 months"


def test_how_long_obligations_under_the_agreement_survive_is_not_its_term() -> None:
    text = (
        "Your obligations of confidentiality under this Agreement shall continue for "
        "ten (10) years after your employment ends.\n"
    )
    assert "term" not in contract_fields(text)


def test_an_agreement_lasting_until_an_anniversary_of_its_start_has_that_many_years() -> None:
    text = "This Agreement shall be in effect until the fourth anniversary of the Effective Date."
    assert contract_fields(text)["term"].value == "4 years"
    assert contract_fields(text, ranker=True)["term"].value == "4 years"
    text = "This Agreement shall continue until the 1st anniversary of the date hereof.\n"
    assert contract_fields(text, ranker=True)["term"].value == "1 year"


def test_an_agreement_called_an_nda_is_the_subject_of_its_term() -> None:
    text = "This NDA shall continue in effect for two (2) years from the Effective Date.\n"
    assert contract_fields(text, ranker=True)["term"].value == "2 years"
    text = "This NDA will remain in effect until the second anniversary of the date of this NDA.\n"
    assert contract_fields(text)["term"].value == "2 years"


def test_an_anniversary_that_bounds_only_obligations_under_the_agreement_is_not_its_term() -> None:
    text = (
        "Your obligations of confidentiality under this Agreement shall continue until the "
        "second anniversary of the Effective Date.\n"
    )
    assert "term" not in contract_fields(text, ranker=True)


_ENDS_ON_A_DATE = (
    "THIS AGREEMENT is made as of April 2, 2021 by and between Tallow Reef Inc. and "
    "Pebble Kiln LLC.\n"
    "5. Term. The obligations set out above shall apply at all times until the earlier of "
    "(i) the closing of the transaction or (ii) 5:00 p.m. on {end}, whereupon this Agreement "
    "shall terminate.\n"
)


def test_an_agreement_ending_on_a_date_lasts_from_its_effective_date_through_that_day() -> None:
    text = _ENDS_ON_A_DATE.format(end="April 20, 2021")
    for ranker in (False, True):
        # April 2 through April 20: nineteen days, both counted.
        assert contract_fields(text, ranker=ranker, end_date=True)["term"].value == "19 days"


def test_an_end_date_gives_no_term_unless_asked_for() -> None:
    assert "term" not in contract_fields(_ENDS_ON_A_DATE.format(end="April 20, 2021"))


def test_an_end_date_on_or_before_an_anniversary_gives_the_term_in_years_or_months() -> None:
    def term(end: str) -> object:
        return contract_fields(_ENDS_ON_A_DATE.format(end=end), end_date=True)["term"].value

    assert term("April 1, 2023") == "2 years"
    assert term("April 2, 2022") == "1 year"
    assert term("October 2, 2021") == "6 months"
    # The 31st moved on a month is the shorter month's last day.
    text = _ENDS_ON_A_DATE.replace("April 2, 2021", "January 31, 2021").format(
        end="February 28, 2021"
    )
    assert contract_fields(text, end_date=True)["term"].value == "1 month"


def test_a_printed_duration_wins_over_an_end_date() -> None:
    text = _ENDS_ON_A_DATE.format(end="April 20, 2021") + (
        "This Agreement shall terminate two (2) years after the Effective Date.\n"
    )
    assert contract_fields(text, end_date=True)["term"].value == "2 years"


def test_a_date_outside_a_sentence_about_the_agreement_ending_is_no_term() -> None:
    text = (
        "THIS AGREEMENT is made as of April 2, 2021 by and between Tallow Reef Inc. and "
        "Pebble Kiln LLC.\n"
        "The Recipient shall return all documents by June 30, 2021.\n"
        "Payment is due on May 1, 2021. Nothing else is agreed.\n"
    )
    assert "term" not in contract_fields(text, end_date=True)


def test_an_end_date_needs_an_effective_date_to_count_from() -> None:
    text = "This Agreement shall terminate on December 31, 2024.\n"
    assert "term" not in contract_fields(text, end_date=True)


def test_an_undertaking_without_a_preamble_names_the_company_it_opens_with() -> None:
    text = (
        "RESTRICTIVE COVENANT AGREEMENT\n"
        "THE UNDERSIGNED (“Employee”) has been offered employment with Copperfield Lantern "
        "Corporation or one of its divisions (Copperfield Lantern Corporation and its "
        "subsidiaries, including Copperfield Lantern Services Inc., are referred to as "
        "“Copperfield”).\n"
        "1. Employee agrees to keep all information confidential.\n"
    )
    assert contract_fields(text)["parties"].value == ["Copperfield Lantern Corporation"]


def test_an_offer_letter_takes_the_company_of_its_first_sentence() -> None:
    text = (
        "Dear Sam:\n"
        "Brindle Orchard Holdings, LLC is pleased to offer you the position of analyst.\n"
        "You agree to keep the company's information confidential.\n"
    )
    assert contract_fields(text)["parties"].value == ["Brindle Orchard Holdings, LLC"]


def test_a_legal_name_deep_in_the_body_is_not_taken_for_a_party() -> None:
    text = "You agree to keep all information confidential.\n" * 40 + "Acme Widgets Inc.\n"
    assert "parties" not in contract_fields(text)


def test_a_place_named_with_and_in_a_partys_description_is_no_party() -> None:
    text = (
        "This Agreement is made as of May 1, 2020 by and between Quillon Moss Ltd, a company "
        "incorporated in England and Wales (the “Discloser”) and Fenwick Tarn Inc. "
        "(the “Recipient”).\n"
    )
    assert contract_fields(text)["parties"].value == ["Quillon Moss Ltd.", "Fenwick Tarn Inc."]


def test_a_word_ending_in_and_does_not_start_another_party() -> None:
    text = (
        "This Agreement is made as of May 1, 2020 by and between Quillon Moss Ltd. "
        "(the “Discloser”) and Fenwick Tarn Inc., with offices at 12 Highland Street "
        "(the “Recipient”).\n"
    )
    assert contract_fields(text)["parties"].value == ["Quillon Moss Ltd.", "Fenwick Tarn Inc."]


def test_numbered_parties_of_a_between_list_keep_their_whole_names() -> None:
    text = (
        "THIS AGREEMENT is made on June 2, 2018\nBETWEEN:\n"
        "(1) Ferrow & Lisk GmbH (hereinafter “Company”); and\n"
        "(2) Dunmore Vale Inc., a Delaware corporation (the “Recipient”).\n"
        "WHEREAS the parties wish to talk.\n"
    )
    assert contract_fields(text)["parties"].value == ["Ferrow and Lisk GmbH", "Dunmore Vale Inc."]


def test_a_defined_partys_ampersand_is_spelt_as_the_preambles_are() -> None:
    text = (
        "Dear Ms Hale:\nIn connection with a possible transaction, Ferrow & Lisk Lda. "
        "(the “Disclosing Party”) will make information available to you.\n"
    )
    assert contract_fields(text)["parties"].value == ["Ferrow and Lisk Lda"]


def test_a_party_whose_legal_form_is_spelt_in_lower_case_is_still_a_party() -> None:
    text = (
        "This Agreement is entered into by and between Quillon Moss PLC (the “Company”) and "
        "Fenwick Tarn S.à r.l. (the “Recipient”).\n"
    )
    assert contract_fields(text)["parties"].value == ["Quillon Moss PLC", "Fenwick Tarn S.à r.l"]


_LETTER_WITH_RECITALS = (
    "Dear Ms Hale:\nIn connection with a possible transaction, Quillon Moss PLC (the "
    "“Discloser”) will make information available to Fenwick Tarn Inc. (the “Recipient”).\n"
    "RECITALS\nWHEREAS, the Discloser is a subsidiary of Brackley Ore Corporation (the "
    "“Parent”); and\nWHEREAS, the parties are parties to a master agreement dated 11 June 2013.\n"
)


def test_a_name_a_letters_recitals_define_is_no_party_when_parties_are_defined_before() -> None:
    parties = contract_fields(_LETTER_WITH_RECITALS)["parties"].value
    assert parties == ["Quillon Moss PLC", "Fenwick Tarn Inc."]


def test_the_date_of_another_agreement_is_not_the_effective_date() -> None:
    assert "effective_date" not in contract_fields(_LETTER_WITH_RECITALS)
    text = (
        "This Agreement is dated as of 11 June 2013 between Quillon Moss PLC and Fenwick Tarn Inc."
    )
    assert contract_fields(text)["effective_date"].value == "2013-06-11"


def test_a_term_worded_as_the_agreements_initial_term_or_its_commencement_is_read() -> None:
    texts = {
        "This Agreement shall have an initial term of three (3) years, renewable by the parties.": (
            "3 years"
        ),
        "The term of this Agreement is eighteen (18) months.": "18 months",
        "This Agreement shall commence on the Effective Date and continue for two (2) years.": (
            "2 years"
        ),
        "This Agreement expires on the earlier of (a) five (5) years from the date hereof and "
        "(b) the closing.": "5 years",
    }
    for text, term in texts.items():
        assert contract_fields(text)["term"].value == term, text
        assert contract_fields(text, ranker=True)["term"].value == term, text


_TERM_SECTION = (
    "MUTUAL NON-DISCLOSURE AGREEMENT\nThe parties agree as follows.\n"
    "{heading}\nThis Agreement shall apply to information disclosed before the Closing. Unless "
    "otherwise stated herein, the obligations set forth in this Agreement shall {verb}.\n"
    "6. Notices\nNotices shall be given in writing.\n"
)


def test_the_obligations_of_this_agreement_under_a_term_heading_give_its_term() -> None:
    for heading in ("Section 5. Term.", "5. Term", "5. Term and Termination", "5. Duration"):
        text = _TERM_SECTION.format(
            heading=heading, verb="continue until the third anniversary of the Effective Date"
        )
        assert contract_fields(text)["term"].value == "3 years", heading
        assert contract_fields(text, ranker=True)["term"].value == "3 years", heading
    text = _TERM_SECTION.format(heading="5. Term", verb="remain in effect for two (2) years")
    assert contract_fields(text, ranker=True)["term"].value == "2 years"


def test_the_obligations_of_this_agreement_elsewhere_bound_only_themselves() -> None:
    # Under another heading, or surviving the agreement, the same words give no term.
    for heading, verb in (
        ("5. Termination", "continue until the third anniversary of the Effective Date"),
        ("5. Survival", "remain in effect for two (2) years"),
        ("5. Term", "survive for two (2) years"),
    ):
        text = _TERM_SECTION.format(heading=heading, verb=verb)
        assert "term" not in contract_fields(text, ranker=True), heading
    # A term section ends at the next numbered heading.
    text = _TERM_SECTION.format(heading="5. Term", verb="be binding") + (
        "The obligations set forth in this Agreement shall continue for two (2) years.\n"
    )
    assert "term" not in contract_fields(text, ranker=True)


def test_a_governing_place_broken_over_two_lines_is_read_whole() -> None:
    text = (
        "This Agreement is made as of May 1, 2020 by and between Quillon Moss Ltd. (the "
        "“Discloser”) and Fenwick Tarn Inc. (the “Recipient”).\n"
        "This Agreement shall be governed by and construed in accordance with the laws of England\n"
        "and Wales, without regard to its conflict of laws principles.\n"
    )
    assert contract_fields(text)["jurisdiction"].value == "England and Wales"


def test_a_signature_block_wrapping_a_long_name_adds_no_party_of_its_last_line() -> None:
    text = (
        "In connection with a possible transaction, Harbor Lantern LLC (the “Disclosing "
        "Party”) is prepared to make available to Quillon Moss Systems\nSystems AG (the "
        "“Receiving Party”) certain information.\n"
        "Harbor Lantern LLC\nBy: ______________\nName: Ada Quill\n\n"
        "Quillon Moss Systems\nSystems AG\nBy: ______________\nName: Tom Reed\n"
    )
    assert contract_fields(text)["parties"].value == [
        "Harbor Lantern LLC",
        "Quillon Moss Systems Systems AG",
    ]
