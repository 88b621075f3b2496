"""Contract term and parties through candidate ranking: synthetic contracts built to trip each
decoy (a notice period, a survival clause, a confidentiality period outlasting the agreement,
an alias, a party named only in its signature block), the factory's determinism, and the
shipped model files."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from renderkit.parsing.extract.contract import (
    contract_fields,
    party_candidates_of,
    term_candidates_of,
)
from renderkit.parsing.rank.contract import PARTY_FEATURES, TERM_FEATURES
from renderkit.parsing.rank.model import load_ranker
from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.contracts import SynthContract, contract_fragment, make_contract

_PREAMBLE = (
    'This Mutual Non-Disclosure Agreement (the "Agreement") is made as of March 3, 2021 by and '
    'between Velmor Quarry Systems, Inc., a Delaware corporation ("Company"), and Dask Ferrow '
    'GmbH, a company organised under the laws of Germany ("Recipient").\n\n'
)
_SIGNATURES = (
    "IN WITNESS WHEREOF, the parties have executed this Agreement.\n"
    "VELMOR QUARRY SYSTEMS, INC.\nBy: ____\nName: Anna Lind\n"
    "DASK FERROW GMBH\nBy: ____\nName: Jonas Berg\n"
)


def _text(contract: SynthContract) -> str:
    """The contract's printed text, paragraph by paragraph (what a PDF text layer gives)."""
    return "\n\n".join(
        f"{heading}\n{text}" if heading and heading != "SIGNATURE" else text
        for heading, text in contract.paragraphs
    )


def test_a_notice_period_printed_first_is_not_the_term() -> None:
    text = (
        _PREAMBLE + "1. Termination\nEither party may terminate this Agreement at any time upon "
        "thirty (30) days' prior written notice to the other party.\n\n"
        "2. Term\nThis Agreement shall remain in effect for a period of two (2) years from the "
        "Effective Date.\n\n" + _SIGNATURES
    )
    values = [c.value for c in term_candidates_of(text)[0]]
    assert values == ["30 days", "2 years"]
    assert contract_fields(text, ranker=True)["term"].value == "2 years"


def test_every_duration_is_a_candidate_however_it_is_printed() -> None:
    text = (
        "For 2 days, then twenty-four (24) months and seventy-seven weeks; 1234 years is "
        "read as 234 years, 5years as 5 years, a 6-month period, x7 days and the holidays."
    )
    values = [c.value for c in term_candidates_of(text)[0]]
    assert values == [
        "2 days",
        "24 months",
        "77 weeks",
        "234 years",
        "234 years",
        "5 years",
        "5 years",
        "6 months",
        "7 days",
    ]


def test_a_written_out_number_broken_after_its_hyphen_is_read_whole() -> None:
    text = (
        _PREAMBLE + "2. Term\nThis Agreement shall terminate, and none of its provisions shall "
        "have any further effect, twenty-\nfour (24) months from the date of this Agreement.\n"
    )
    # PDFium gives a hyphen the browser broke a line at as U+0002.
    for printed in (text, text.replace("-\n", "\x02")):
        assert [c.value for c in term_candidates_of(printed)[0]] == ["24 months"]
        assert contract_fields(printed)["term"].value == "24 months"
        assert contract_fields(printed, ranker=True)["term"].value == "24 months"


def test_what_the_agreement_covers_is_not_how_long_it_lasts() -> None:
    text = (
        _PREAMBLE + "1. Scope\nThis Agreement shall apply to all information disclosed during "
        "the twelve (12) months following the Effective Date.\n\n" + _SIGNATURES
    )
    assert [c.value for c in term_candidates_of(text)[0]] == ["12 months"]
    assert "term" not in contract_fields(text, ranker=True)


def test_a_survival_period_is_not_a_term_when_the_agreement_has_none() -> None:
    text = (
        _PREAMBLE + "1. Term\nThis Agreement shall remain in effect until terminated by either "
        "party.\n\n2. Survival\nThe obligations of confidentiality shall survive any termination "
        "of this Agreement for a period of five (5) years.\n\n" + _SIGNATURES
    )
    assert "5 years" in [c.value for c in term_candidates_of(text)[0]]
    assert "term" not in contract_fields(text, ranker=True)


def test_a_confidentiality_period_outlasting_the_agreement_is_not_its_term() -> None:
    text = (
        _PREAMBLE + "1. Obligations\nThe Recipient's obligations with respect to Confidential "
        "Information shall continue for seven (7) years from the date of its disclosure.\n\n"
        "2. Term\nThe term of this Agreement shall be eighteen (18) months, commencing on the "
        "Effective Date.\n\n" + _SIGNATURES
    )
    found = contract_fields(text, ranker=True)["term"]
    assert found.value == "18 months"
    assert 0.5 <= found.confidence <= 1.0


def test_a_defined_alias_is_not_a_party_name() -> None:
    candidates, features = party_candidates_of(_PREAMBLE + _SIGNATURES)
    names = [c.name for c in candidates]
    assert "Velmor Quarry Systems, Inc." in names
    assert not any(n in ("Company", "Recipient") for n in names)
    assert all(len(row) == len(PARTY_FEATURES) for row in features)
    parties = contract_fields(_PREAMBLE + _SIGNATURES, party_ranker=True)["parties"].value
    assert "Company" not in parties
    assert "Velmor Quarry Systems, Inc." in parties


def test_a_party_named_only_in_its_signature_block_is_a_candidate_and_a_party() -> None:
    text = (
        "Dear Ms. Lind:\n\nIn connection with a possible transaction, we will share certain "
        "information with you. Please confirm your agreement below.\n\n" + _SIGNATURES
    )
    candidates, _ = party_candidates_of(text)
    signed = [c for c in candidates if "signature" in c.sources]
    assert [c.name for c in signed] == ["Velmor Quarry Systems, Inc.", "Dask Ferrow GmbH"]
    assert contract_fields(text)["parties"].value == [
        "Velmor Quarry Systems, Inc.",
        "Dask Ferrow GmbH",
    ]


def test_an_affiliate_in_a_list_ranks_below_the_parties() -> None:
    text = (
        _PREAMBLE + "1. Affiliates\nThe obligations of the Recipient extend to its affiliates, "
        "including Norrel Tand Holdings LLC, Pirog Lumen Ltd and Hask Verity B.V.\n\n" + _SIGNATURES
    )
    candidates, features = party_candidates_of(text)
    ranker = load_ranker("contract_party", PARTY_FEATURES)
    score = {c.name: ranker.score(f) for c, f in zip(candidates, features, strict=True)}
    parties = ("Velmor Quarry Systems, Inc.", "Dask Ferrow GmbH")
    assert min(score[p] for p in parties) > score["Norrel Tand Holdings LLC"]


def test_the_contract_factory_is_deterministic_and_its_labels_are_printed() -> None:
    first = [make_contract(i, 7) for i in range(20)]
    assert first == [make_contract(i, 7) for i in range(20)]
    assert first != [make_contract(i, 8) for i in range(20)]
    assert make_documents("contract", 3, 7, Variations(photos=True)) == first[:3]
    for contract in first:
        text = _text(contract)
        html = contract_fragment(contract)
        assert contract_fragment(contract) == html
        for party in contract.parties:
            assert party.name in text
            assert json.dumps(contract.expected)  # labels are plain JSON
        assert contract.term_text is not None and contract.term_text in text
        for decoy in contract.decoys:
            assert decoy in text
        if contract.term is None:
            assert "term" not in contract.expected


def test_contracts_dated_in_other_ways_keep_the_rest_of_their_seed_and_are_read_right() -> None:
    # Seed 13 is no training or validation seed.
    plain = [make_contract(i, 13) for i in range(60)]
    dated = [make_contract(i, 13, other_dates=True) for i in range(60)]
    assert make_documents("contract", 3, 13, Variations(other_dates=True)) == dated[:3]
    assert [c.parties for c in plain] == [c.parties for c in dated]
    assert [c.term_text for c in plain] == [c.term_text for c in dated]
    texts = [_text(c) for c in dated]
    assert any("set forth below" in t for t in texts)
    assert any("DAY OF" in t for t in texts)
    assert any("Dated:" in t for t in texts)
    assert any(
        "WITNESS" not in t and "effective_date" not in c.expected
        for c, t in zip(dated, texts, strict=True)
    )

    def effective(text: str) -> object:
        found = contract_fields(text).get("effective_date")
        return None if found is None else found.value

    right = sum(
        effective(t) == c.expected.get("effective_date") for c, t in zip(dated, texts, strict=True)
    )
    # 60 of 60 when written (31 before the execution clause decided a signature's date).
    assert right >= 57


def test_the_factory_varies_how_parties_are_named_and_where_the_term_sits() -> None:
    contracts = [make_contract(i, 11) for i in range(120)]
    families = {c.layout.family for c in contracts}
    assert len(families) == 9
    assert any(c.term is None for c in contracts)
    assert any(p.individual for c in contracts for p in c.parties)
    assert any(c.decoy_names for c in contracts)


def test_the_term_ranker_never_takes_a_decoy_duration_on_synthetic_contracts() -> None:
    # Seed 5 is neither a training seed (31) nor the validation seed (9001).
    right = 0
    for index in range(40):
        contract = make_contract(index, 5)
        found = contract_fields(_text(contract), ranker=True).get("term")
        expected = contract.expected.get("term")
        assert found is None or found.value == expected, contract.id
        right += found is not None
    # 17 of the 40 when written; the others word their term in ways the term rules' cue does
    # not accept (the ranker chooses among those only), or print no term.
    assert right >= 15


@pytest.mark.parametrize(
    ("name", "features"), [("contract_term", TERM_FEATURES), ("contract_party", PARTY_FEATURES)]
)
def test_a_shipped_contract_ranker_loads_with_its_training_command_and_seed(
    name: str, features: tuple[str, ...]
) -> None:
    ranker = load_ranker(name, features)
    assert ranker.features == features
    assert ranker.training["seed"] == 0
    assert ranker.training["command"].startswith("python scripts/train_ranker.py")
    assert "--field" in ranker.training["command"]
    # Trained on synthetic contracts only, never on the validation or the first seed.
    assert all("seed 9001" not in s and "seed 1 " not in s + " " for s in ranker.training["sets"])
    data = json.loads(
        resources.files("renderkit.parsing.models").joinpath(f"{name}.json").read_text()
    )
    assert data["name"] == name
    assert 0.0 < ranker.probability(0.0) < 1.0
