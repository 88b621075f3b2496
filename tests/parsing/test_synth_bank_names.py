"""Invoices that name the seller's bank beside its IBAN: a factory option that leaves every
seed's other documents as they were, whose bank is an invented name printed in the foot with
the account, a decoy for the issuer, and whose holder's line names the seller."""

from __future__ import annotations

import html
import re

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.banks import STYLES
from renderkit.parsing.synth.render import invoice_html

from ._synth_options import drawn_invoices


def _foot(page: str) -> str:
    """The text of a page's foot, every run of space one space."""
    foot = page[page.index("<footer") :]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", foot)).split())


def test_bank_names_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices("bank_names", seed=84, count=60, drawn=lambda d: bool(d.layout.bank))
    for plain, named in pairs:
        assert not plain.layout.bank and named.iban
        assert plain.truth()["expected"] == named.truth()["expected"]
    assert 25 <= len(pairs) <= 50


def test_the_bank_is_named_in_the_foot_before_the_iban_and_is_a_decoy_never_the_issuer() -> None:
    docs = make_documents("invoice", 120, 85, Variations(bank_names=True, letters=True))
    seen: set[str] = set()
    for doc in (d for d in docs if d.layout.bank):
        seen.add(doc.layout.bank)
        bank, foot = doc.extras["bank_name"], _foot(invoice_html(doc))
        iban = " ".join(doc.printed["iban"].split())
        assert bank in foot and foot.index(bank) < foot.index(iban)
        label = doc.extras.get("bank_label")
        assert (f"{label}: {bank}" in foot) == (doc.layout.bank != "alone")
        assert [d.text for d in doc.decoys if d.role == "bank"] == [bank]
        assert doc.truth()["expected"]["issuer"] == doc.issuer.name != bank
        if doc.layout.bank == "holder":
            assert f"{doc.extras['holder_label']}: {doc.issuer.name}" in foot
        else:
            assert "holder" not in doc.extras
    assert seen == set(STYLES)


def test_no_bank_is_named_where_no_iban_is_printed() -> None:
    docs = make_documents("invoice", 80, 86, Variations(bank_names=True, far_locales=True))
    assert not [d.id for d in docs if d.layout.bank and not d.iban]
    assert [d.id for d in docs if d.iban is None]  # the option meets locales without IBANs
