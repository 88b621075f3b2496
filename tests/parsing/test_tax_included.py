"""Invoices priced with their tax in: the total first, then the tax it holds (in a short
label or a sentence) and the net, under wordings of their own. Every page is made up here;
each test fails without the rule it names."""

from __future__ import annotations

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.documents import extract_invoice
from renderkit.parsing.rank.switches import DEFAULT_RANKERS

from .test_invoice import _page

HEAD = [
    (0.05, 0.04, "Trambex Engineering Ltd"),
    (0.05, 0.10, "Invoice"),
    (0.05, 0.12, "Invoice no: INV081582"),
    (0.05, 0.14, "Date: 03/04/2024"),
    (0.05, 0.30, "Item"), (0.62, 0.30, "Qty"), (0.80, 0.30, "Amount"),
    (0.05, 0.32, "Maintenance"), (0.62, 0.32, "1"), (0.80, 0.32, "5,068.92"),
    (0.05, 0.34, "Cable set"), (0.62, 0.34, "3"), (0.80, 0.34, "2,985.69"),
]  # fmt: skip


def _sums(cells: list[tuple[float, float, str]]) -> dict[str, object]:
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(HEAD + cells),))
    found = extract_invoice(document, True, rankers=DEFAULT_RANKERS).fields
    return {n: found[n].value for n in ("subtotal", "tax", "total") if n in found}


def test_a_bracketed_rate_and_a_net_under_no_known_wording_complete_a_gross_total() -> None:
    # numbers.parse_percent read "(6 %)" as -6, so no printed amount was the rate of another:
    # the gross lines' sum, equal to the total, was taken for the subtotal as well.
    cells = [
        (0.50, 0.40, "Total (incl. Tax)"), (0.80, 0.40, "US$ 8,054.61"),
        (0.50, 0.42, "Tax included (6 %)"), (0.80, 0.42, "US$ 455.92"),
        (0.50, 0.44, "Amount excl. Tax"), (0.80, 0.44, "US$ 7,598.69"),
    ]  # fmt: skip
    assert _sums(cells) == {"subtotal": "7598.69", "tax": "455.92", "total": "8054.61"}


def test_a_tax_worded_as_a_sentence_is_the_rate_of_a_net_printed_under_no_known_wording() -> None:
    # invoice._rated_parts: "This total includes GST at 10 %" reads as a total and a tax, the
    # net's wording is no lexicon's, and the gross lines sum to the total: the lines' sum was
    # taken for the subtotal with no tax. The sentence's amount is 10 % of the amount printed
    # below it, and the two add up to the total.
    cells = [
        (0.50, 0.40, "Total (incl. GST)"), (0.80, 0.40, "8,054.61"),
        (0.50, 0.42, "This total includes GST at 10 %"), (0.80, 0.42, "732.24"),
        (0.50, 0.44, "Amount excl. GST"), (0.80, 0.44, "7,322.37"),
    ]  # fmt: skip
    assert _sums(cells) == {"subtotal": "7322.37", "tax": "732.24", "total": "8054.61"}


def test_a_tax_sentence_and_its_net_add_up_to_a_total_under_no_known_wording() -> None:
    # invoice._rated_parts: the amount the tax and its net add up to is printed under a
    # wording no lexicon holds; a payment below it makes a balance the only "total" read.
    cells = [
        (0.50, 0.40, "Montant final"), (0.80, 0.40, "8.054,61"),
        (0.50, 0.42, "Ce montant inclut une TVA de 2,6 %"), (0.80, 0.42, "204,11"),
        (0.50, 0.44, "Hors taxes"), (0.80, 0.44, "7.850,50"),
        (0.50, 0.46, "Déjà réglé"), (0.80, 0.46, "-1.000,00"),
        (0.50, 0.48, "Reste à payer"), (0.80, 0.48, "7.054,61"),
    ]  # fmt: skip
    assert _sums(cells) == {"subtotal": "7850.50", "tax": "204.11", "total": "8054.61"}


def test_a_summary_in_columns_gives_its_rate_in_the_label_above_the_tax() -> None:
    # invoice._rated_parts: a summary printed as columns puts the rate in the column's label,
    # not on the amount's row, which prints every amount of the summary.
    cells = [
        (0.30, 0.40, "Total incl. GST"),
        (0.52, 0.40, "This total includes GST at 10 %"),
        (0.80, 0.40, "Amount excl. GST"),
        (0.30, 0.42, "8,054.61"), (0.52, 0.42, "732.24"), (0.80, 0.42, "7,322.37"),
    ]  # fmt: skip
    assert _sums(cells) == {"subtotal": "7322.37", "tax": "732.24", "total": "8054.61"}


def test_a_row_of_labels_over_a_row_of_amounts_gives_the_rate_of_one_of_them() -> None:
    # invoice._rated_parts: the labels and the amounts each ran together into one segment, so
    # no column was read; the rate in the row above applies to whichever amount the
    # arithmetic makes that rate of another, the two adding up to the total.
    cells = [
        (0.30, 0.40, "Total (incl. GST) Included in the total: GST 10 % Amount excl. GST"),
        (0.30, 0.42, "A$ 8,054.61 A$ 732.24 A$ 7,322.37"),
    ]
    assert _sums(cells) == {"subtotal": "7322.37", "tax": "732.24", "total": "8054.61"}
