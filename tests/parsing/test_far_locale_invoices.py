"""Invoices from outside the euro area, the UK and the US: Indian lakh groupings, local
currency signs ("Rs.", "Fr.", "A$"), a bare "$" placed by the page's tax words, national tax
numbers in place of a VAT id, and taxes split in two on the same base (CGST and SGST). Every
page is made up here; each test fails without the rule it names."""

from __future__ import annotations

from decimal import Decimal

import pytest

from renderkit.parsing._protocol import Document, Word
from renderkit.parsing.extract.documents import extract_invoice
from renderkit.parsing.extract.identifiers import find_vat_ids
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.keyvalues import find_labels
from renderkit.parsing.extract.numbers import detect_format, find_money
from renderkit.parsing.extract.sums import at_tax_rate
from renderkit.parsing.extract.values import find_currency
from renderkit.parsing.layout.model import Segment
from renderkit.parsing.lexicons import load_lexicon
from renderkit.parsing.rank.switches import DEFAULT_RANKERS

from .test_invoice import _page


def test_an_amount_grouped_in_lakhs_is_read_whole() -> None:
    # numbers._NUM: "24,18,301.32" was three numbers, the first of them 24.
    amounts = find_money("Total ₹24,18,301.32 and Rs. 1,23,456", detect_format(["24,18,301.32"]))
    assert [(a.value, a.currency) for a in amounts] == [
        (Decimal("2418301.32"), "₹"),
        (Decimal("123456"), "Rs."),
    ]


@pytest.mark.parametrize(
    ("text", "currency"),
    [
        ("Amount payable Rs. 1,250.00", "INR"),
        ("Total Fr. 1'369.06", "CHF"),
        ("Total A$ 228.31", "AUD"),
        ("Total C$ 9,238.22", "CAD"),
        # A bare dollar is placed by the page's tax number (values._dollar), or by a tax only
        # Canada levies; a sales tax's name other countries use too, or a time zone's
        # ("PST"), does not place it.
        ("ABN 51 824 753 556\nTotal $228.31", "AUD"),
        ("GST/HST No. 123456782 RT0001\nTotal $50.00", "CAD"),
        ("HST 13 % $1,067.51\nTotal $9,279.30", "CAD"),
        ("GST 5 % $50.00\nQST 9.975 % $99.75\nTotal $1,149.75", "CAD"),
        ("GST 10 % $20.00\nTotal $220.00", "USD"),
        ("Ordered 10:40 PST\nSales tax $6.60\nTotal $86.60", "USD"),
        ("Sales tax $6.60\nTotal $86.60", "USD"),
        # Other ISO codes, but none that is a word a page prints in capitals.
        ("Total AED 1,234.00", "AED"),
        ("Gesamt 500.00 SAR", "SAR"),
        ("1 BALL PEN 2.50", None),
    ],
)
def test_local_currency_signs_and_a_placed_dollar_give_the_currency(
    text: str, currency: str | None
) -> None:
    assert find_currency(text) == currency


def test_national_tax_numbers_are_found_by_their_shape_and_check() -> None:
    text = (
        "GSTIN: 27AAPFU0939F1ZV\n"
        "ABN 51 824 753 556\n"
        "GST/HST No. 123456782 RT0001\n"
        # Wrong check characters, and an ABN's digits without its label, are not ids.
        "GSTIN 27AAPFU0939F1ZW\nABN 51 824 753 557\nAccount 51 824 753 556\n"
    )
    assert [value for value, _ in find_vat_ids(text)] == [
        "27AAPFU0939F1ZV",
        "51824753556",
        "123456782RT0001",
    ]


HEAD = [
    (0.05, 0.05, "Kavera Textiles Pvt. Ltd."),
    (0.05, 0.07, "14 Station Road, Pune - 411001, Maharashtra"),
    (0.05, 0.09, "GSTIN: 27AAPFU0939F1ZV"),
    (0.60, 0.12, "Invoice No: KT/2024/118"),
    (0.60, 0.14, "Invoice Date: 14/03/2024"),
    (0.05, 0.25, "Description"), (0.50, 0.25, "Qty"), (0.62, 0.25, "Rate"),
    (0.80, 0.25, "Amount"),
    (0.05, 0.27, "Cotton fabric rolls"), (0.50, 0.27, "40"), (0.62, 0.27, "3,120.00"),
    (0.80, 0.27, "1,24,800.00"),
    (0.05, 0.29, "Dyeing charges"), (0.50, 0.29, "1"), (0.62, 0.29, "18,450.00"),
    (0.80, 0.29, "18,450.00"),
]  # fmt: skip

# CGST and SGST: two taxes on the same base, the tax is their sum.
SPLIT = [
    (0.55, 0.40, "Taxable value"), (0.80, 0.40, "₹1,43,250.00"),
    (0.55, 0.42, "CGST 9 %"), (0.80, 0.42, "₹12,892.50"),
    (0.55, 0.44, "SGST 9 %"), (0.80, 0.44, "₹12,892.50"),
    (0.55, 0.48, "Grand Total"), (0.80, 0.48, "₹1,69,035.00"),
]  # fmt: skip


def test_split_taxes_in_lakhs_add_up_to_the_tax_and_the_total() -> None:
    # The lexicon's CGST and SGST rows, summed by invoice._rate_sums, in lakh-grouped amounts.
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(HEAD + SPLIT),))
    for fields in (
        invoice_fields(document).fields,
        extract_invoice(document, True, rankers=DEFAULT_RANKERS).fields,
    ):
        assert fields["subtotal"].value == "143250.00"
        assert fields["tax"].value == "25785.00"
        assert fields["total"].value == "169035.00"
        assert fields["currency"].value == "INR"
        assert fields["vat_id"].value == "27AAPFU0939F1ZV"


@pytest.mark.parametrize(
    ("number", "currency"),
    [
        ("GSTIN: 27AAPFU0939F1ZV", "INR"),
        ("ABN 51 824 753 556", "AUD"),
        ("USt-IdNr.: DE136695976", "EUR"),
        ("VAT No: GB980780684", "GBP"),
    ],
)
def test_a_page_without_a_currency_mark_takes_its_tax_numbers_country(
    number: str, currency: str
) -> None:
    # invoice._currency: an OCR model without the rupee sign reads amounts with no mark.
    summary = [(0.55, 0.40, "Subtotal"), (0.80, 0.40, "1,43,250.00"),
               (0.55, 0.48, "Total"), (0.80, 0.48, "1,43,250.00")]  # fmt: skip
    head = [(x, y, number if "GSTIN" in text else text) for x, y, text in HEAD]
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(head + summary),))
    found = invoice_fields(document).fields["currency"]
    assert (found.value, found.confidence) == (currency, 0.5)


def test_a_sign_glued_to_the_next_amount_is_that_amounts() -> None:
    # numbers._MONEY: "Fr." after 2069.77 was read as its trailing sign, and 81676.26, left
    # behind a dot, was no amount at all.
    amounts = find_money("Fr. 79606.49 Fr. 2069.77 Fr.81676.26", detect_format(["79606.49"]))
    assert [a.value for a in amounts] == [
        Decimal("79606.49"),
        Decimal("2069.77"),
        Decimal("81676.26"),
    ]
    assert amounts[-1].currency == "Fr."


@pytest.mark.parametrize(("tax", "net"), [("732.36", "9041.48"), ("5412.65", "54262.15")])
def test_a_tax_at_a_rate_in_force_that_is_no_half_percent_is_a_tax_of_its_net(
    tax: str, net: str
) -> None:
    # sums.TAX_RATES: Switzerland's 8.1 % and Quebec's 9.975 %.
    assert at_tax_rate(Decimal(tax), Decimal(net))
    assert not at_tax_rate(Decimal("700.00"), Decimal(net))


def test_a_short_tax_word_after_a_totals_word_is_one_tax_label() -> None:
    # keyvalues.find_labels: "GST" after the word "Total" was skipped as a short label in
    # running text, so "Total GST" was read as a total's label.
    words = tuple(
        Word(text=t, page=1, bbox=(0.1 * i, 0.1, 0.1 * i + 0.05, 0.12))
        for i, t in enumerate(["Total", "GST"])
    )
    hits = find_labels(Segment(words=words, page=1, row=0), load_lexicon())
    assert [(h.concept, h.start, h.end) for h in hits] == [("tax", 0, 9)]


CH_HEAD = [
    (0.05, 0.05, "Alpentechnik AG"),
    (0.05, 0.07, "Bahnhofstrasse 12, 8001 Zürich"),
    (0.60, 0.12, "Rechnungsnummer: RE-2024-118"),
    (0.60, 0.14, "Rechnungsdatum: 14.03.2024"),
    (0.05, 0.25, "Artikel"), (0.80, 0.25, "Betrag"),
    (0.05, 0.27, "Holzpalette"), (0.80, 0.27, "9'517.37"),
]  # fmt: skip

# A summary in columns whose labels wrap over three staggered rows, as the column reader
# cannot take them: the tax's label keeps its rate ("MWST 8.1", its "%" on the next row).
CH_STAGGERED = [
    (0.30, 0.39, "MWST 8.1"), (0.55, 0.39, "Vorheriger"),
    (0.05, 0.40, "Positionssumme"), (0.30, 0.40, "Endsumme"),
    (0.33, 0.41, "%"), (0.55, 0.41, "Saldo"),
    (0.05, 0.43, "Fr. 9'517.37"), (0.30, 0.43, "Fr. 770.91"), (0.55, 0.43, "Fr. 1'000.00"),
    (0.30, 0.445, "10'288.28"),
]  # fmt: skip


def test_a_rate_printed_with_other_decimals_than_the_sums_is_no_tax() -> None:
    # invoice._totals: "8.1" after the tax label was the tax where the sums print cents, and
    # the balance less it (991.90) the subtotal.
    document = Document(
        mime_type="application/pdf", content=b"", pages=(_page(CH_HEAD + CH_STAGGERED),)
    )
    fields = invoice_fields(document).fields
    assert "tax" not in fields or fields["tax"].value != "8.1"
    assert "subtotal" not in fields


def test_payments_below_an_unknown_total_wording_say_the_total_beside_an_amount_due() -> None:
    # invoice._totals: an amount-due label counted as a total's, so the rounding below the
    # unknown "Sum to pay" never confirmed it, and the amount due was taken.
    summary = [
        (0.55, 0.40, "Goods value"), (0.80, 0.40, "₹1,43,250.00"),
        (0.55, 0.42, "IGST 18 %"), (0.80, 0.42, "₹25,785.00"),
        (0.55, 0.44, "Sum to pay"), (0.80, 0.44, "₹1,69,035.00"),
        (0.55, 0.46, "Rounding"), (0.80, 0.46, "₹-0.01"),
        (0.55, 0.48, "Amount due"), (0.80, 0.48, "₹1,69,034.99"),
    ]  # fmt: skip
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(HEAD + summary),))
    assert invoice_fields(document).fields["total"].value == "169035.00"


# A Swiss seller's footer in narrow columns: the VAT id's "MWST" wrapped onto the next line,
# under the id, beside the other columns' second lines.
SWISS_FOOTER = [
    (0.05, 0.05, "Kestrel Holzbau GmbH"),
    (0.60, 0.10, "Rechnungsnummer: RE-2024-118"),
    (0.60, 0.12, "Rechnungsdatum: 14.03.2024"),
    (0.05, 0.30, "Beratung"), (0.80, 0.30, "1'000.00"),
    (0.55, 0.40, "Total"), (0.80, 0.40, "Fr. 1'081.00"),
    (0.05, 0.90, "Kestrel Holzbau"), (0.30, 0.90, "Tel. +41 83 1263 7186"),
    (0.62, 0.90, "MWST: CHE-184.035.401"),
    (0.05, 0.915, "GmbH"), (0.30, 0.915, "office@kestrel.ch"), (0.62, 0.915, "MWST"),
]  # fmt: skip


@pytest.mark.parametrize("printed", ["wrapped", "one line"])
def test_a_swiss_vat_id_keeps_its_mwst_wrapped_onto_the_next_line(printed: str) -> None:
    cells = SWISS_FOOTER
    if printed == "one line":
        cells = [c for c in SWISS_FOOTER if c[2] != "MWST"]
        cells = [(x, y, "MWST: CHE-184.035.401 MWST" if t.startswith("MWST:") else t)
                 for x, y, t in cells]  # fmt: skip
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    assert invoice_fields(document).fields["vat_id"].value == "CHE184035401MWST"
