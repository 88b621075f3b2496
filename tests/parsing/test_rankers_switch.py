"""One Rankers value decides which fields the learned rankers choose, end to end."""

from __future__ import annotations

import pytest

from renderkit.parsing import RULES_ONLY, LocalExtractor, Rankers
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
    assert (default.party, default.spans) == (False, ())


def test_a_span_field_no_ranker_knows_is_refused() -> None:
    with pytest.raises(ValueError, match="spans must be among"):
        Rankers(spans=("phone",))

    assert Rankers(spans=["address"]).spans == ("address",)
