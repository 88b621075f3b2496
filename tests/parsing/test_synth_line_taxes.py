"""Invoices that print each line's tax in the item table: a factory option that leaves every
seed's other sets as they were."""

from __future__ import annotations

import html
import re
from decimal import Decimal

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.line_taxes import WORDS, line_tax
from renderkit.parsing.synth.render import invoice_html

from ._synth_options import drawn_invoices


def _cells(page: str) -> tuple[list[str], list[list[str]]]:
    """The item tables' header cells and their rows' cells (a carried-forward block splits
    the items into two tables)."""
    tables = [t.split("</table>", 1)[0] for t in page.split("<table class='items'>")[1:]]

    def texts(row: str, tag: str) -> list[str]:
        cells = re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", row, flags=re.S)
        return [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in cells]

    rows = [r for t in tables for r in re.findall(r"<tr>(.*?)</tr>", t, flags=re.S)]
    return texts(rows[0], "th"), [texts(r, "td") for r in rows if "<td" in r]


def test_line_taxes_leave_a_seeds_documents_as_they_were_without_the_option() -> None:
    pairs = drawn_invoices(
        "line_taxes", seed=38, count=40, drawn=lambda d: bool(d.layout.line_taxes)
    )
    for plain, taxed in pairs:
        assert not plain.layout.line_taxes
        assert taxed.layout.rates == 1 and not taxed.layout.discount and not taxed.layout.shipping
        assert plain.truth()["expected"] == taxed.truth()["expected"]
    assert 5 <= len(pairs) <= 30


def test_each_line_prints_its_own_rounded_tax_and_gross_under_local_headers() -> None:
    docs = make_documents("invoice", 60, 39, Variations(line_taxes=True))
    full = [d for d in docs if len(d.layout.line_taxes) == 3]
    assert full
    for doc in full:
        header, rows = _cells(invoice_html(doc))
        rate, tax, gross = WORDS[doc.layout.locale.language]
        assert header[-3:] == [rate, tax, gross]
        taxes = []
        for li, row in zip(doc.lines, rows, strict=True):
            own = line_tax(li.amount, doc.tax_rate)
            taxes.append(own)
            assert row[-3:] == [
                f"{doc.tax_rate} %",
                doc.amount(own, mark=False),
                doc.amount(li.amount + own, mark=False),
            ]
        # Rounded line by line, the taxes add up to the summary's within a cent a line.
        assert abs(sum(taxes, Decimal(0)) - doc.tax) <= Decimal("0.01") * len(doc.lines)
