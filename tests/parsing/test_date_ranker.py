"""The learned issue-date ranker: the other dates the factory prints, the features, the shipped
model file, and invoices built so that a date label's first or strongest value is not the
issue date."""

from __future__ import annotations

import datetime as dt
import html
import json
from importlib import resources

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.invoice import invoice_date_candidates, invoice_fields
from renderkit.parsing.rank.dates import DATE_FEATURES, issue_date_choices
from renderkit.parsing.rank.model import load_ranker
from renderkit.parsing.synth import Variations, make_document, make_documents
from renderkit.parsing.synth.dates import KINDS
from renderkit.parsing.synth.render import invoice_html

from .test_invoice import _page


def _document(cells: list[tuple[float, float, str]]) -> Document:
    return Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))


def _named(document: Document) -> list[tuple[dt.date, dict[str, float]]]:
    candidates, rows = invoice_date_candidates(document)
    assert all(len(row) == len(DATE_FEATURES) for row in rows)
    return [
        (c.value, dict(zip(DATE_FEATURES, row, strict=True)))
        for c, row in zip(candidates, rows, strict=True)
    ]


# A service period, a referenced order with its date, the issue date and a print stamp with a
# clock time and a page number in the footer.
OTHERS = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-301"),
    (0.60, 0.07, "Service period: 01.02.2024 to 29.02.2024"),
    (0.60, 0.09, "Order no PO-4711 (12.01.2024)"),
    (0.60, 0.11, "Invoice date: 03.03.2024"),
    (0.60, 0.13, "Due date: 02.04.2024"),
    (0.05, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
    (0.05, 0.90, "Printed 05.03.2024 10:14:09 Page 1"),
]  # fmt: skip


def test_the_features_name_periods_print_stamps_qualified_labels_and_due_dates() -> None:
    named = _named(_document(OTHERS))
    by_value = {value: row for value, row in named}
    start, end = by_value[dt.date(2024, 2, 1)], by_value[dt.date(2024, 2, 29)]
    assert start["dates_in_segment"] == end["dates_in_segment"] == 2.0
    assert start["later_in_segment"] == 0.0 and end["later_in_segment"] == 1.0
    assert by_value[dt.date(2024, 3, 5)]["clock_in_row"] == 1.0
    assert by_value[dt.date(2024, 3, 5)]["latest"] == 0.0
    assert by_value[dt.date(2024, 4, 2)]["label_due_date"] == 1.0
    assert by_value[dt.date(2024, 4, 2)]["latest"] == 1.0
    issued = by_value[dt.date(2024, 3, 3)]
    assert issued["label_invoice_date"] == 1.0 and issued["extra_words"] == 0.0
    assert issued["before_due"] == 1.0 and issued["clock_in_row"] == 0.0
    assert by_value[dt.date(2024, 1, 12)]["value_prefix"] == 1.0
    assert by_value[dt.date(2024, 1, 12)]["earliest"] == 1.0


def test_the_ranker_chooses_only_among_the_dates_under_an_issue_date_label() -> None:
    candidates, _ = invoice_date_candidates(_document(OTHERS))
    chosen = {candidates[i].value for i in issue_date_choices(candidates)}
    assert dt.date(2024, 3, 3) in chosen
    assert dt.date(2024, 4, 2) not in chosen and dt.date(2024, 3, 5) not in chosen


# "Date" starts two rows: the date of an earlier invoice this one refers to, printed first
# and under the longer label, and the document's own date.
REFERENCE = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-302"),
    (0.60, 0.07, "Invoice date of the original invoice: 14.11.2023"),
    (0.60, 0.09, "Date: 03.03.2024"),
    (0.05, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
]  # fmt: skip


def test_a_referenced_invoices_date_under_a_longer_label_is_not_taken_for_the_issue_date() -> None:
    document = _document(REFERENCE)
    # The rules refuse the earlier document's date too (constraints.issue_date_refusal); they
    # read the first issue-date label, "of the original invoice", before it.
    assert invoice_fields(document).fields["date"].value == "2024-03-03"
    ranked = invoice_fields(document, date_ranker=True).fields["date"]
    assert ranked.value == "2024-03-03"
    assert 0.0 < ranked.confidence <= 1.0
    assert "03.03.2024" in " ".join(line.text for line in ranked.lines)


# The letter's place and date, unlabelled, and a print stamp whose date, time and page number
# are three segments of one row, the page number written "Seite: 1".
STAMP_SPLIT = [
    (0.05, 0.05, "Lieferant Handel GmbH"),
    (0.60, 0.05, "Rechnungsnummer: 2024-88"),
    (0.60, 0.07, "Bergstadt, den 01.11.2024"),
    (0.05, 0.40, "Gesamtbetrag"), (0.80, 0.40, "1.200,00 EUR"),
    (0.05, 0.90, "Datum: 30.10.2024"), (0.40, 0.90, "Zeit: 04:59:13"), (0.80, 0.90, "Seite: 1"),
]  # fmt: skip


def test_a_print_stamp_spread_over_its_row_is_no_issue_date_for_the_rules_or_the_ranker() -> None:
    document = _document(STAMP_SPLIT)
    candidates, _ = invoice_date_candidates(document)
    (stamp,) = [c for c in candidates if c.value == dt.date(2024, 10, 30)]
    assert stamp.stamp and issue_date_choices(candidates) == []
    for ranker in (False, True):
        assert invoice_fields(document, date_ranker=ranker).fields["date"].value == "2024-11-01"


# The issue date under a wording no lexicon holds, and a payments table below the totals whose
# bare "Date" column header is the only issue-date label of the page.
PAYMENTS = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-304"),
    (0.60, 0.07, "Dated: 03.03.2024"),
    (0.60, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
    (0.05, 0.50, "Date"), (0.40, 0.50, "Bank transfer"),
    (0.05, 0.52, "05.04.2024"), (0.40, 0.52, "1,200.00 EUR"),
]  # fmt: skip

# A box at the top: the date and the amount due under their headers, the only date printed.
DATE_AND_DUE = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Date"), (0.80, 0.05, "Amount due"),
    (0.60, 0.07, "03.03.2024"), (0.80, 0.07, "1,200.00 EUR"),
]  # fmt: skip


def test_a_payments_tables_date_column_is_no_issue_date_label() -> None:
    for ranker in (False, True):
        fields = invoice_fields(_document(PAYMENTS), date_ranker=ranker).fields
        assert fields["date"].value == "2024-03-03", ranker
        # Its label gone, the top box's date is still the first date of the page.
        fields = invoice_fields(_document(DATE_AND_DUE), date_ranker=ranker).fields
        assert fields["date"].value == "2024-03-03", ranker


def test_without_an_issue_date_label_the_rules_reading_stays() -> None:
    document = _document(
        [
            (0.05, 0.05, "Supplier Trading Ltd"),
            (0.60, 0.05, "Invoice No: INV-303"),
            (0.60, 0.07, "03.03.2024"),
            (0.05, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
        ]
    )  # fmt: skip
    rules = invoice_fields(document).fields["date"]
    assert invoice_fields(document, date_ranker=True).fields["date"] == rules


def test_the_shipped_date_model_loads_and_says_how_it_was_trained() -> None:
    ranker = load_ranker("invoice_date", DATE_FEATURES)
    assert ranker.features == DATE_FEATURES
    data = json.loads(
        resources.files("renderkit.parsing.models").joinpath("invoice_date.json").read_text()
    )
    training = data["training"]
    assert "--field date" in training["command"] and training["seed"] == 0
    assert "grouped by language" in training["model"]
    assert all("seed 1" not in s and "seed 9001" not in s for s in training["sets"])
    assert 0.8 < training["top1_held_out_folds"] <= 1.0


def test_other_dates_are_printed_only_when_asked_and_sets_without_them_are_unchanged() -> None:
    plain = make_documents("invoice", 20, 17)
    assert all(not d.layout.other_dates for d in plain)
    dated = [make_document("invoice", i, 17, Variations(other_dates=True)) for i in range(20)]
    kinds = {k for d in dated for k in d.layout.other_dates}
    assert kinds == set(KINDS)
    for before, doc in zip(plain, dated, strict=True):
        # The same document otherwise: same parties, numbers and dates.
        assert doc.expected == before.expected
        page = invoice_html(doc)
        shown = [d.text for d in doc.decoys if d.role == "other_date"]
        assert len(shown) == len(doc.layout.other_dates)
        for text in shown:
            assert html.escape(text, quote=True) in page, (doc.id, text)
            assert doc.printed["date"] != text


# The issue date under a wording no lexicon holds, after a delivery date whose label claims
# the row's dates to its right, an order's date, a period and before a due date's.
UNKNOWN_WORDING = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.05, 0.20, "Delivery date: 03.08.2024"),
    (0.40, 0.20, "Doc code: 2024/29717"),
    (0.70, 0.20, "Drawn up on: 13.08.2024"),
    (0.05, 0.22, "Order no: PO-67426 of 10.08.2024"),
    (0.05, 0.24, "Service 01.07.2024 - 31.07.2024"),
    (0.05, 0.26, "Settle by: 27.08.2024"),
    (0.05, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
]  # fmt: skip


def test_an_issue_date_under_an_unknown_wording_is_the_first_date_no_other_label_claims() -> None:
    for ranker in (False, True):
        fields = invoice_fields(_document(UNKNOWN_WORDING), date_ranker=ranker).fields
        assert fields["date"].value == "2024-08-13", ranker
        assert fields["date"].confidence == 0.5


def test_this_invoices_own_number_before_its_date_does_not_claim_the_date() -> None:
    document = _document(
        [
            (0.05, 0.05, "Supplier Trading Ltd"),
            (0.05, 0.20, "Invoice # RE-20240813/508 drawn up on 13.08.2024"),
            (0.05, 0.22, "Delivery date: 03.08.2024"),
            (0.05, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
        ]
    )  # fmt: skip
    assert invoice_fields(document).fields["date"].value == "2024-08-13"


def test_a_print_stamp_of_the_issue_day_does_not_refuse_the_issue_date_printed_above() -> None:
    document = _document(
        [
            (0.05, 0.05, "Supplier Trading Ltd"),
            (0.60, 0.05, "Doc code: INV-2024-89432"),
            (0.60, 0.07, "Drawn up on: 16.02.2024"),
            (0.60, 0.09, "Settle by: 17.03.2024"),
            (0.05, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
            (0.05, 0.90, "Date: 16.02.2024 Time: 01:56:05 Page: 1"),
        ]
    )  # fmt: skip
    assert invoice_fields(document).fields["date"].value == "2024-02-16"


def test_a_date_with_its_own_wording_beside_an_earlier_documents_date_is_the_issue_date() -> None:
    # "Original invoice date" names an earlier document; the date to its right has a label of
    # its own, which no lexicon holds.
    document = _document(
        [
            (0.05, 0.05, "Supplier Trading Ltd"),
            (0.05, 0.20, "Doc code: 0022414"),
            (0.30, 0.20, "Original invoice date: 02.12.2024"),
            (0.65, 0.20, "Drawn up on: 24.02.2025"),
            (0.05, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
        ]
    )  # fmt: skip
    assert invoice_fields(document).fields["date"].value == "2025-02-24"


def test_a_due_date_whose_label_says_so_by_its_words_is_no_issue_date_printed_first() -> None:
    # "Settle by" is a word of paying and a deadline word, no lexicon label.
    document = _document(
        [
            (0.05, 0.05, "Supplier Trading Ltd"),
            (0.60, 0.05, "Doc code: INV-2025-118"),
            (0.60, 0.07, "Settle by: 26.03.2025"),
            (0.60, 0.09, "Drawn up on: 24.02.2025"),
            (0.05, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
        ]
    )  # fmt: skip
    fields = invoice_fields(document).fields
    assert fields["date"].value == "2025-02-24"
    assert fields["due_date"].value == "2025-03-26"


# A narrow column of details beside the buyer's address wraps each date before its year, and a
# row of the address stands between a date and its year.
WRAPPED_YEARS = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.50, 0.10, "Invoice number: INV031170"),
    (0.50, 0.12, "Date of invoice: November 6,"),
    (0.05, 0.13, "240 High Street"),
    (0.50, 0.14, "2024"),
    (0.50, 0.16, "Payment due: November 20, 2024"),
    (0.50, 0.18, "Delivery date: November 5,"),
    (0.50, 0.20, "2024"),
    (0.05, 0.40, "Total"), (0.80, 0.40, "1,200.00 EUR"),
]  # fmt: skip


def test_a_date_whose_year_wrapped_onto_the_next_line_is_read_whole() -> None:
    document = _document(WRAPPED_YEARS)
    candidates, _ = invoice_date_candidates(document)
    assert {(c.value, c.concept) for c in candidates} == {
        (dt.date(2024, 11, 6), "invoice_date"),
        (dt.date(2024, 11, 20), "due_date"),
        (dt.date(2024, 11, 5), "delivery_date"),
    }
    fields = invoice_fields(document).fields
    assert fields["date"].value == "2024-11-06"
    # A year under a line that ends in no date joins nothing.
    alone = [(x, y, t.replace("November 6,", "see below")) for x, y, t in WRAPPED_YEARS]
    assert dt.date(2024, 11, 6) not in {
        c.value for c in invoice_date_candidates(_document(alone))[0]
    }
