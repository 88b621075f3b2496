"""One Rankers value decides which fields the learned rankers choose, end to end."""

from __future__ import annotations

import pytest

from renderkit.parsing import RULES_ONLY, LocalExtractor, Rankers
from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.documents import extract_contract, extract_general
from tests.parsing.test_invoice import _page
from tests.parsing.test_issuer_ranker import SLOGAN, _document

pytestmark = pytest.mark.anyio


async def _company(extractor: LocalExtractor) -> object:
    extraction = await extractor.extract(_document(SLOGAN), schema=None, hints=None)
    return extraction.data.get("issuer", extraction.data.get("company"))


async def test_the_default_rankers_choose_the_issuer_and_rules_only_keeps_the_rules_choice() -> (
    None
):
    ranked = await _company(LocalExtractor())
    rules = await _company(LocalExtractor(rankers=RULES_ONLY))
    issuer_off = await _company(LocalExtractor(rankers=Rankers(issuer=False)))

    assert ranked == "KELVORA TRADING"
    assert rules == issuer_off == "Fresh ideas for every garden"


def test_the_default_is_the_rankers_that_passed_the_decision_rule() -> None:
    default = Rankers()

    assert (default.total, default.date, default.issuer, default.term) == (True,) * 4
    assert (default.party, default.spans, default.term_end_date) == (False, (), False)


def test_the_end_date_switch_reaches_the_contract_extractor() -> None:
    text = (
        "THIS AGREEMENT is made as of May 3, 2022 by and between Glimmer Vale Inc. and "
        "Otterby Loom LLC. This Agreement shall terminate on May 2, 2025."
    )
    document = Document(
        mime_type="application/pdf", content=b"", pages=(_page([(0.05, 0.05, text)]),)
    )
    on = extract_contract(document, day_first=False, rankers=Rankers(term_end_date=True))
    off = extract_contract(document, day_first=False, rankers=Rankers())
    assert on.fields["term"].value == "3 years"
    assert "term" not in off.fields


def test_a_span_field_no_ranker_knows_is_refused() -> None:
    with pytest.raises(ValueError, match="spans must be among"):
        Rankers(spans=("phone",))

    assert Rankers(spans=["address"]).spans == ("address",)


def test_a_document_not_known_to_be_an_agreement_gets_no_party_from_its_opening() -> None:
    text = "Curriculum vitae. Analyst at Copperfield Lantern Corporation since 2019."
    document = Document(
        mime_type="application/pdf", content=b"", pages=(_page([(0.05, 0.05, text)]),)
    )
    assert "parties" not in extract_general(document, day_first=False).fields
    assert extract_contract(document, day_first=False).fields["parties"].value == [
        "Copperfield Lantern Corporation"
    ]
