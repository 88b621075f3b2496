"""Invoices at several tax rates: a factory option that leaves every seed's other sets as they
were, whose rows add up and whose truth's tax is their sum, printed whole only in a sum row."""

from __future__ import annotations

import html
from decimal import Decimal

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.render import invoice_html


def test_several_rates_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    plain = make_documents("invoice", 40, 33)
    rated = make_documents("invoice", 40, 33, Variations(tax_rates=True))
    several = 0
    for a, b in zip(plain, rated, strict=True):
        assert not a.rate_taxes
        if b.rate_taxes:
            several += 1
        elif (a.layout.discount, a.layout.shipping) == (b.layout.discount, b.layout.shipping):
            # Drawn at one rate (or with too few items for several: then, like the documents
            # at several rates, without a discount or charge to share out).
            assert a.truth() == b.truth()
            assert invoice_html(a) == invoice_html(b)
    assert several >= 10


def test_the_rates_rows_add_up_to_the_tax_and_the_tax_to_the_total() -> None:
    docs = make_documents("invoice", 60, 33, Variations(tax_rates=True))
    rated = [d for d in docs if d.rate_taxes]
    assert {len(d.rate_taxes) for d in rated} >= {2}
    assert any(d.layout.rate_sum for d in rated) and not all(d.layout.rate_sum for d in rated)
    for doc in rated:
        assert doc.tax == sum((tax for _, _, tax in doc.rate_taxes), Decimal(0))
        assert sum((base for _, base, _ in doc.rate_taxes), Decimal(0)) == doc.subtotal
        assert doc.total == doc.subtotal + doc.tax
        assert doc.expected["tax"] == f"{doc.tax:.2f}"
        rates = [rate for rate, _, _ in doc.rate_taxes]
        assert rates == sorted(rates, reverse=True) and len(set(rates)) == len(rates)
        page = html.unescape(invoice_html(doc))
        for rate, _, tax in doc.rate_taxes:
            assert f"{doc.labels['tax']} {rate} %" in page
            assert doc.amount(tax) in page
        # The whole tax is printed only in a row of the rates' sum.
        assert ("tax" in doc.printed) == doc.layout.rate_sum
