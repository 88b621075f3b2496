"""Invoices with goods at several tax rates: a tax row per rate, with or without a row of their
sum; the tax is their sum. Each page is made up here; each test but the sum row's and the one
rate's fails without the rule it names (``invoice._rate_sums``, ``invoice._rate_row_sums``,
``keyvalues._sums_up``)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.documents import extract_invoice
from renderkit.parsing.extract.found import Found
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.keyvalues import find_labels
from renderkit.parsing.layout.model import build_layout
from renderkit.parsing.lexicons import load_lexicon
from renderkit.parsing.rank.switches import DEFAULT_RANKERS

from .test_invoice import _page

HEAD = [
    (0.05, 0.05, "Beispiel Handels GmbH"),
    (0.05, 0.07, "Hafenweg 12, 20457 Hamburg"),
    (0.60, 0.12, "Rechnungsnummer: RE-2024-118"),
    (0.60, 0.14, "Rechnungsdatum: 14.03.2024"),
    (0.05, 0.25, "Pos Artikel"), (0.50, 0.25, "Menge"), (0.62, 0.25, "Preis"),
    (0.80, 0.25, "Betrag"),
    (0.05, 0.27, "1 Mineralwasser"), (0.50, 0.27, "20"), (0.62, 0.27, "5,49"),
    (0.80, 0.27, "109,80"),
    (0.05, 0.29, "2 Kabelsatz"), (0.50, 0.29, "2"), (0.62, 0.29, "32,23"), (0.80, 0.29, "64,46"),
]  # fmt: skip

ROWS_ONLY = [
    (0.55, 0.40, "Nettobetrag"), (0.80, 0.40, "174,26"),
    (0.55, 0.42, "MwSt 7 %"), (0.80, 0.42, "7,69"),
    (0.55, 0.44, "MwSt 19 %"), (0.80, 0.44, "12,25"),
    (0.55, 0.48, "Gesamtbetrag"), (0.80, 0.48, "194,20"),
]  # fmt: skip

# Each rate's row prints its base too: which of a row's amounts counts is the arithmetic's.
ROWS_WITH_BASES = [
    (0.55, 0.40, "Nettobetrag"), (0.80, 0.40, "174,26"),
    (0.45, 0.42, "MwSt 7 % von"), (0.65, 0.42, "109,80"), (0.80, 0.42, "7,69"),
    (0.45, 0.44, "MwSt 19 % von"), (0.65, 0.44, "64,46"), (0.80, 0.44, "12,25"),
    (0.55, 0.48, "Gesamtbetrag"), (0.80, 0.48, "194,20"),
]  # fmt: skip

# And a row of their sum, whose "Summe" is no total.
WITH_SUM_ROW = [
    (0.55, 0.40, "Nettobetrag"), (0.80, 0.40, "174,26"),
    (0.55, 0.42, "MwSt 7 %"), (0.80, 0.42, "7,69"),
    (0.55, 0.44, "MwSt 19 %"), (0.80, 0.44, "12,25"),
    (0.55, 0.46, "Summe MwSt"), (0.80, 0.46, "19,94"),
    (0.55, 0.48, "Gesamtbetrag"), (0.80, 0.48, "194,20"),
]  # fmt: skip

# Three rates, in English.
THREE = [
    (0.55, 0.40, "Subtotal"), (0.80, 0.40, "174,26"),
    (0.55, 0.42, "VAT 20%"), (0.80, 0.42, "8,00"),
    (0.55, 0.44, "VAT 5%"), (0.80, 0.44, "3,49"),
    (0.55, 0.46, "VAT 0%"), (0.80, 0.46, "0,00"),
    (0.55, 0.48, "Total"), (0.80, 0.48, "185,75"),
]  # fmt: skip


def _document(summary: list[tuple[float, float, str]]) -> Document:
    return Document(mime_type="application/pdf", content=b"", pages=(_page(HEAD + summary),))


@pytest.mark.parametrize(
    ("summary", "tax", "total"),
    [
        (ROWS_ONLY, "19.94", "194.20"),
        (ROWS_WITH_BASES, "19.94", "194.20"),
        (WITH_SUM_ROW, "19.94", "194.20"),
        (THREE, "11.49", "185.75"),
    ],
)
def test_the_tax_at_several_rates_is_the_sum_of_their_rows(
    summary: list[tuple[float, float, str]], tax: str, total: str
) -> None:
    for fields in (
        invoice_fields(_document(summary)).fields,
        extract_invoice(_document(summary), True, rankers=DEFAULT_RANKERS).fields,
    ):
        assert fields["subtotal"].value == "174.26"
        assert fields["tax"].value == tax
        assert fields["total"].value == total


def test_one_rates_row_that_adds_up_alone_is_the_tax() -> None:
    # One rate: its row is the tax, as before there were sums of rows.
    one = [
        (0.55, 0.40, "Nettobetrag"), (0.80, 0.40, "174,26"),
        (0.55, 0.42, "MwSt 19 %"), (0.80, 0.42, "33,11"),
        (0.55, 0.48, "Gesamtbetrag"), (0.80, 0.48, "207,37"),
    ]  # fmt: skip
    fields = invoice_fields(_document(one)).fields
    assert (fields["tax"].value, fields["total"].value) == ("33.11", "207.37")


#: The subtotal, the tax at 7 % and 19 % and the total of the summaries below.
BASE_TAXES_TOTAL = ("174.26", "19.94", "194.20")


def _sums(fields: Mapping[str, Found]) -> tuple[object, object, object]:
    return (fields["subtotal"].value, fields["tax"].value, fields["total"].value)


# Rates under a wording no lexicon holds, the items' sum under another, and a page total that
# equals that sum: "no tax" agrees with the page total, the rates' rows say otherwise.
UNKNOWN_WORDING = [
    (0.05, 0.33, "Total per page: 174,26"),
    (0.55, 0.40, "Sum of items"), (0.80, 0.40, "174,26"),
    (0.55, 0.42, "Levy 7 %"), (0.80, 0.42, "7,69"),
    (0.55, 0.44, "Levy 19 %"), (0.80, 0.44, "12,25"),
    (0.55, 0.48, "Total charge"), (0.80, 0.48, "194,20"),
]  # fmt: skip


def test_rows_printing_a_rate_under_an_unknown_wording_add_up_to_the_tax() -> None:
    assert _sums(invoice_fields(_document(UNKNOWN_WORDING)).fields) == BASE_TAXES_TOTAL


# The summary in columns: the labels side by side on one row, their amounts on the next.
IN_COLUMNS = [
    (0.20, 0.40, "Nettobetrag"), (0.40, 0.40, "MwSt 7 %"), (0.58, 0.40, "MwSt 19 %"),
    (0.76, 0.40, "Gesamtbetrag"),
    (0.20, 0.42, "174,26"), (0.40, 0.42, "7,69"), (0.58, 0.42, "12,25"), (0.76, 0.42, "194,20"),
]  # fmt: skip


def test_a_summary_in_columns_adds_up_its_rates_columns() -> None:
    assert _sums(invoice_fields(_document(IN_COLUMNS)).fields) == BASE_TAXES_TOTAL


# A row of the rates' sum under a total's word and a tax word the lexicons hold apart
# ("Summe" + "Umsatzsteuer"): the tax's sum, not the invoice total.
SUMMED_UNDER_TOTAL_WORD = [
    (0.55, 0.40, "Warenwert netto"), (0.80, 0.40, "174,26"),
    (0.55, 0.42, "Umsatzsteuer 7 %"), (0.80, 0.42, "7,69"),
    (0.55, 0.44, "Umsatzsteuer 19 %"), (0.80, 0.44, "12,25"),
    (0.55, 0.46, "Summe Umsatzsteuer"), (0.80, 0.46, "19,94"),
    (0.55, 0.48, "Endsumme"), (0.80, 0.48, "194,20"),
]  # fmt: skip


def test_a_totals_word_before_a_tax_word_labels_the_taxes_sum() -> None:
    layout = build_layout(_page(SUMMED_UNDER_TOTAL_WORD))
    row = next(r for r in layout.rows if r.text.startswith("Summe"))
    assert {h.concept for h in find_labels(row.segments[0], load_lexicon())} == {"tax"}
    fields = invoice_fields(_document(SUMMED_UNDER_TOTAL_WORD)).fields
    assert (fields["tax"].value, fields["total"].value) == ("19.94", "194.20")


# The summary in columns under wordings no lexicon holds, the taxes' sum in a column of its
# own beside them, and a page total equal to the items' sum above it.
LEVIES_AND_THEIR_SUM = [
    (0.05, 0.33, "Total per page: 174,26"),
    (0.10, 0.40, "Goods value"), (0.28, 0.40, "Levy 7 %"), (0.44, 0.40, "Levy 19 %"),
    (0.60, 0.40, "All levies"), (0.78, 0.40, "Sum to settle"),
    (0.10, 0.42, "174,26"), (0.28, 0.42, "7,69"), (0.44, 0.42, "12,25"), (0.60, 0.42, "19,94"),
    (0.78, 0.42, "194,20"),
]  # fmt: skip


def test_a_row_of_the_taxes_and_their_sum_says_the_tax_and_the_total() -> None:
    # Neither levy is at a rate of the whole net: each taxes some of the lines.
    for fields in (
        invoice_fields(_document(LEVIES_AND_THEIR_SUM)).fields,
        extract_invoice(_document(LEVIES_AND_THEIR_SUM), True, rankers=DEFAULT_RANKERS).fields,
    ):
        assert _sums(fields) == BASE_TAXES_TOTAL


# The summary in rows under wordings no lexicon holds but a total's word on the levies' sum
# ("Total Levy"), and the total under a wording of its own ("Sum to pay").
TOTAL_OF_THE_LEVIES = [
    (0.55, 0.40, "Goods value"), (0.80, 0.40, "174,26"),
    (0.55, 0.42, "Levy 7 %"), (0.80, 0.42, "7,69"),
    (0.55, 0.44, "Levy 19 %"), (0.80, 0.44, "12,25"),
    (0.55, 0.46, "Total Levy"), (0.80, 0.46, "19,94"),
    (0.55, 0.48, "Sum to pay"), (0.80, 0.48, "194,20"),
]  # fmt: skip


def test_the_levies_sum_under_a_totals_word_is_the_tax_the_subtotal_completes() -> None:
    assert _sums(invoice_fields(_document(TOTAL_OF_THE_LEVIES)).fields) == BASE_TAXES_TOTAL
