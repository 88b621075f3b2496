"""Invoices priced with their tax in: a factory option that leaves every seed's other sets as
they were, whose totals block prints the total first, then the tax it holds and the net."""

from __future__ import annotations

import html
import re
from decimal import Decimal

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.included import STYLES, included_tax
from renderkit.parsing.synth.render import invoice_html

from ._synth_options import drawn_invoices


def test_tax_included_pricing_leaves_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices(
        "tax_included", seed=90, count=60, drawn=lambda d: bool(d.layout.tax_included)
    )
    for plain, gross in pairs:
        assert not plain.layout.tax_included
        # The same lines, now gross: their sum is the total.
        assert gross.total == plain.subtotal
    assert 5 <= len(pairs) <= 40


def test_gross_invoices_print_the_total_first_and_their_sums_agree() -> None:
    docs = make_documents("invoice", 200, 91, Variations(tax_included=True))
    styles = set()
    for doc in (d for d in docs if d.layout.tax_included):
        styles.add(doc.layout.tax_included)
        assert doc.total == sum((li.amount for li in doc.lines), Decimal(0))
        assert doc.tax == included_tax(doc.total, doc.tax_rate)
        assert doc.subtotal + doc.tax == doc.total
        roles = [row["role"] for row in doc.summary_rows()]
        assert roles[:3] == ["total", "tax", "subtotal"]
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", invoice_html(doc))).split())
        order = [text.rindex(" ".join(doc.amount(v).split())) for v in (doc.tax, doc.subtotal)]
        assert text.rindex(" ".join(doc.amount(doc.total).split())) < order[0] < order[1]
    assert styles == set(STYLES)


def test_an_included_tax_is_the_rate_of_the_gross_total_rounded_to_cents() -> None:
    assert included_tax(Decimal("119.00"), Decimal(19)) == Decimal("19.00")
    assert included_tax(Decimal("8054.61"), Decimal(6)) == Decimal("455.92")
