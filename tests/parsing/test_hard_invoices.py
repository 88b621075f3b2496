"""Invoices built to trip the hard constraints of issue #26: a date label naming an earlier
document, a total labelled as a count of items, and the like. Each page is made up here (no
document of any set is copied); each assertion fails with its constraint switched off."""

from __future__ import annotations

import pytest

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.constraints import (
    amount_refusal,
    issue_date_refusal,
    issuer_refusal,
    print_stamp,
)
from renderkit.parsing.extract.documents import extract_invoice
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.numbers import find_money
from renderkit.parsing.rank.switches import Rankers

from .test_invoice import _page


def _document(cells: list[tuple[float, float, str]]) -> Document:
    return Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))


@pytest.mark.parametrize(
    "label",
    [
        "Original invoice date:",
        "Datum der Ursprungsrechnung:",
        "Date de la facture d'origine:",
        "Fecha de la factura original:",
        "Data fattura originale:",
        "Datum oorspronkelijke factuur:",
        "Tarikh invois asal:",
    ],
)
def test_a_date_label_naming_an_earlier_document_is_refused_as_the_issue_date(label: str) -> None:
    assert issue_date_refusal(label) is not None


@pytest.mark.parametrize("label", ["Invoice date:", "Rechnungsdatum:", "Date de facture:"])
def test_an_ordinary_issue_date_label_is_not_refused(label: str) -> None:
    assert issue_date_refusal(label) is None


# A corrected invoice: the original's date comes first under an issue-date label, the
# document's own date under a wording no lexicon holds.
CORRECTED = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-2024-31"),
    (0.60, 0.07, "Original invoice date: 13/01/2024"),
    (0.60, 0.09, "Drawn up: 10/02/2024"),
    (0.60, 0.40, "Subtotal"), (0.80, 0.40, "100.00"),
    (0.60, 0.42, "VAT 20 %"), (0.80, 0.42, "20.00"),
    (0.60, 0.44, "Total"), (0.80, 0.44, "120.00"),
]  # fmt: skip


@pytest.mark.parametrize("date_ranker", [False, True])
def test_the_original_invoices_date_is_not_the_corrected_invoices_date(date_ranker: bool) -> None:
    fields = invoice_fields(_document(CORRECTED), date_ranker=date_ranker).fields
    assert fields["date"].value == "2024-02-10"


# The same with the document's own date under a label the lexicon knows, printed after it.
CORRECTED_LABELLED = [
    (0.05, 0.05, "Lieferant Handels GmbH"),
    (0.60, 0.05, "Rechnungsnummer: RE-2019-77"),
    (0.60, 0.07, "Datum der Ursprungsrechnung: 22.06.2019"),
    (0.60, 0.09, "Rechnungsdatum: 23.08.2019"),
    (0.60, 0.40, "Nettobetrag"), (0.80, 0.40, "100,00"),
    (0.60, 0.42, "MwSt 19 %"), (0.80, 0.42, "19,00"),
    (0.60, 0.44, "Gesamtbetrag"), (0.80, 0.44, "119,00"),
]  # fmt: skip


@pytest.mark.parametrize("date_ranker", [False, True])
def test_an_issue_date_label_after_the_original_invoices_date_is_the_issue_date(
    date_ranker: bool,
) -> None:
    fields = invoice_fields(_document(CORRECTED_LABELLED), date_ranker=date_ranker).fields
    assert fields["date"].value == "2019-08-23"


def _wrapped(label: str, wrapped: str, own: str) -> list[tuple[float, float, str]]:
    """A page whose date column wraps ``wrapped`` onto the line under ``label`` and prints
    the document's own date after ``own``, a wording no lexicon holds."""
    return [
        (0.05, 0.05, "Lieferant Handels GmbH"),
        (0.60, 0.05, "Rechnungsnummer: RE-2019-77"),
        (0.60, 0.07, label),
        (0.60, 0.09, wrapped),
        (0.60, 0.11, own),
        (0.60, 0.40, "Nettobetrag"), (0.80, 0.40, "100,00"),
        (0.60, 0.42, "MwSt 19 %"), (0.80, 0.42, "19,00"),
        (0.60, 0.44, "Gesamtbetrag"), (0.80, 0.44, "119,00"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("label", "wrapped", "own", "date"),
    [
        # A period's end wrapped under its start.
        ("Zeitraum: 01.04.2019 bis", "30.04.2019", "Erstellt am: 09.05.2019", "2019-05-09"),
        # An earlier document's date wrapped under its label.
        ("Datum der Ursprungsrechnung:", "12.11.2018", "Erstellt am: 24.01.2019", "2019-01-24"),
        # The document's own date wrapped under its own label stays the issue date.
        ("Erstellt am:", "24.01.2019", "Lieferdatum: 14.01.2019", "2019-01-24"),
    ],
)
@pytest.mark.parametrize("date_ranker", [False, True])
def test_a_date_wrapped_under_the_words_that_say_what_it_is_keeps_their_meaning(
    label: str, wrapped: str, own: str, date: str, date_ranker: bool
) -> None:
    document = _document(_wrapped(label, wrapped, own))
    assert invoice_fields(document, date_ranker=date_ranker).fields["date"].value == date


@pytest.mark.parametrize("text", ["Total quantity: 89", "Summe Menge: 12", "Total quantité: 89"])
def test_a_bare_number_after_a_quantity_label_is_a_count_not_an_amount(text: str) -> None:
    assert _refusal(text) is not None


def test_a_money_amount_after_a_quantity_label_is_not_refused() -> None:
    # Decimals alone do not make money of a count ("Total quantity: 89.00" counts items); a
    # currency mark does.
    assert _refusal("Total quantity: 89.00") is not None
    assert _refusal("Total quantity: EUR 89.00") is None


# The item count is printed beside a "Total" label, the goods value and the total under
# wordings no lexicon holds and the tax without its rate. The count is never the total (nor
# the goods value derived from it as 89 - 200); the summary's own column, where the amounts
# add up around the labelled tax, names the goods value and the total.
COUNTED = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-2024-32"),
    (0.60, 0.07, "Invoice date: 10/02/2024"),
    (0.05, 0.36, "Total quantity: 89"),
    (0.60, 0.40, "Merchandise"), (0.80, 0.40, "1,000.00"),
    (0.60, 0.42, "VAT"), (0.80, 0.42, "200.00"),
    (0.60, 0.44, "To settle"), (0.80, 0.44, "1,200.00"),
]  # fmt: skip


@pytest.mark.parametrize("ranker", [False, True])
def test_an_item_count_beside_a_total_label_is_not_the_total(ranker: bool) -> None:
    fields = invoice_fields(_document(COUNTED), ranker=ranker).fields
    assert fields["tax"].value == "200.00"
    assert fields["total"].value == "1200.00"
    assert fields["subtotal"].value == "1000.00"


# A tax-free invoice whose subtotal was misread (a line's amount under a subtotal label): the
# difference to the total is no tax, being larger than the subtotal itself.
MISREAD_SUBTOTAL = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-2024-33"),
    (0.60, 0.07, "Invoice date: 10/02/2024"),
    (0.60, 0.40, "Net amount"), (0.60, 0.42, "554.98"),
    (0.60, 0.46, "Total 5,418.44"),
]  # fmt: skip


def test_a_difference_larger_than_the_subtotal_is_not_reported_as_the_tax() -> None:
    fields = invoice_fields(_document(MISREAD_SUBTOTAL)).fields
    assert fields["total"].value == "5418.44"
    assert "tax" not in fields


def _refusal(text: str) -> str | None:
    amounts = find_money(text)
    assert amounts
    return amount_refusal(text, amounts[-1])


@pytest.mark.parametrize("text", ["billing@supplier.example", "www.supplier.example"])
def test_an_e_mail_or_web_address_is_refused_as_the_issuer(text: str) -> None:
    assert issuer_refusal(text) is not None


def test_a_company_name_is_not_refused_as_the_issuer() -> None:
    assert issuer_refusal("Supplier Trading Ltd") is None


# The buyer's block printed atop the page, the seller's letterhead right below it in the same
# type and column (no gap, as a photo's OCR lines come out): the buyer's block ends at the
# second company name, which is the issuer.
BUYER_ON_TOP = [
    (0.05, 0.030, "Customer"),
    (0.05, 0.045, "Harbour Holdings Ltd"),
    (0.05, 0.060, "12 Harbour Road"),
    (0.05, 0.075, "12345 Porttown"),
    (0.05, 0.090, "Kestrel Printing GmbH"),
    (0.05, 0.105, "8 Mill Lane"),
    (0.05, 0.120, "54321 Milltown"),
    (0.05, 0.135, "billing@kestrelprinting.example"),
    (0.05, 0.180, "INVOICE"),
    (0.05, 0.200, "Invoice No: INV-2025-7"),
    (0.05, 0.215, "Invoice date: 03.03.2025"),
    (0.05, 0.300, "Consulting hours"), (0.80, 0.300, "1,000.00"),
    (0.60, 0.40, "Subtotal"), (0.80, 0.40, "1,000.00"),
    (0.60, 0.42, "VAT 19 %"), (0.80, 0.42, "190.00"),
    (0.60, 0.44, "Total"), (0.80, 0.44, "1,190.00"),
]  # fmt: skip


@pytest.mark.parametrize("issuer_ranker", [False, True])
def test_a_company_name_right_below_the_buyers_block_is_the_issuer(issuer_ranker: bool) -> None:
    fields = invoice_fields(_document(BUYER_ON_TOP), issuer_ranker=issuer_ranker).fields
    assert fields["customer"].value == "Harbour Holdings Ltd"
    assert fields["company"].value == "Kestrel Printing GmbH"


# No invoice number printed (or it is lost: a photo's party block took it in), the order's
# number after an order label and a number mark ("Pedido n.°"): the mark makes no invoice
# number of the order's.
ORDER_MARKED = [
    (0.05, 0.05, "Suministros Ejemplo S.L."),
    (0.05, 0.10, "Factura"),
    (0.05, 0.14, "Fecha de factura: 31-10-2019"),
    (0.05, 0.16, "Pedido n.°: PO-14769 del 10-09-2019"),
    (0.60, 0.40, "Subtotal"), (0.80, 0.40, "100,00"),
    (0.60, 0.42, "IVA 21 %"), (0.80, 0.42, "21,00"),
    (0.60, 0.44, "Total"), (0.80, 0.44, "121,00"),
]  # fmt: skip


def test_an_order_labels_number_mark_does_not_make_the_invoice_number() -> None:
    assert "number" not in invoice_fields(_document(ORDER_MARKED)).fields


# The invoice's number under its label in the header column, and a sentence naming the order
# it bills: the invoice word opens the sentence, the order's label and number mark follow.
ORDER_IN_SENTENCE = [
    (0.05, 0.05, "Lieferant Handel GmbH"),
    (0.70, 0.05, "Rechnungsnummer"), (0.70, 0.07, "471102"),
    (0.70, 0.09, "Rechnungsdatum: 05.03.2013"),
    (0.05, 0.20, "Rechnung gemäß Bestellung Nr. 2013-471331"),
    (0.60, 0.44, "Gesamtbetrag"), (0.80, 0.44, "121,00"),
]  # fmt: skip


def test_an_order_label_between_the_invoice_word_and_the_number_owns_the_number() -> None:
    assert invoice_fields(_document(ORDER_IN_SENTENCE)).fields["number"].value == "471102"
    # A figure before the order's label: the invoice label's own number, kept.
    cells = [(0.05, 0.05, "Invoice No. INV-77 Order No. PO-12"), (0.60, 0.44, "Total")]
    assert invoice_fields(_document(cells)).fields["number"].value == "INV-77"


# A tax-free invoice whose tax breakdown prints the base under a tax label and its tax of
# zero: subtotal = total, agreeing through the printed zero tax.
ZERO_TAX = [
    (0.05, 0.05, "Lieferant Handel GmbH"),
    (0.60, 0.05, "Rechnungsnummer: R-88"),
    (0.05, 0.40, "Umsatzsteuer bei"), (0.50, 0.40, "2000,00"), (0.65, 0.40, "0"),
    (0.80, 0.40, "0,00"),
    (0.45, 0.44, "Nettobetrag"), (0.80, 0.44, "2000,00"),
    (0.45, 0.46, "Rechnungssumme ohne USt."), (0.80, 0.46, "2000,00"),
    (0.45, 0.48, "Steuerbetrag"), (0.80, 0.48, "0,00"),
    (0.45, 0.50, "Bruttosumme"), (0.80, 0.50, "2000,00"),
]  # fmt: skip


def test_a_printed_zero_tax_lets_the_subtotal_equal_the_total() -> None:
    fields = invoice_fields(_document(ZERO_TAX)).fields
    assert (fields["tax"].value, fields["total"].value) == ("0.00", "2000.00")
    assert fields["tax"].confidence >= 0.9


# An item table whose header runs two cells into one segment ("Anzahl Beschreibung"), so no
# table is read; its amount column's header is a total word ("Gesamt") over the first line.
# The sum is under a wording no lexicon holds.
MERGED_HEADER = [
    (0.05, 0.05, "Lieferant Handel GmbH"),
    (0.60, 0.05, "Rechnungsnummer: R-9"),
    (0.05, 0.30, "Pos"), (0.12, 0.30, "Anzahl Beschreibung"), (0.55, 0.30, "Einzelpreis"),
    (0.80, 0.30, "Gesamt"),
    (0.05, 0.32, "1"), (0.12, 0.32, "20"), (0.20, 0.32, "Wartung"), (0.55, 0.32, "1.142,72"),
    (0.80, 0.32, "22.854,40"),
    (0.05, 0.34, "2"), (0.12, 0.34, "1"), (0.20, 0.34, "Kabelsatz"), (0.55, 0.34, "1.446,68"),
    (0.80, 0.34, "1.446,68"),
    (0.55, 0.40, "Zu begleichen"), (0.80, 0.40, "24.301,08 EUR"),
]  # fmt: skip


@pytest.mark.parametrize("ranker", [False, True])
def test_a_column_header_row_labels_no_total_even_when_its_table_is_not_read(ranker: bool) -> None:
    fields = invoice_fields(_document(MERGED_HEADER), ranker=ranker).fields
    assert fields.get("total") is None or fields["total"].value != "22854.40"


# A count of hours printed under a total word in French, a stamp's word read into its line,
# and the sums under wordings no lexicon holds: the receipt rules' "Total" line is a count too.
HOURS_FR = [
    (0.05, 0.05, "Fournisseur Services SARL"),
    (0.60, 0.05, "N° facture: F-2026-9"),
    (0.05, 0.40, "Total COPIE heures: 139,50"),
    (0.60, 0.46, "Somme à régler"), (0.80, 0.46, "30 091,08 €"),
]  # fmt: skip


@pytest.mark.parametrize("rankers", [Rankers(), Rankers(total=False)])
def test_hours_under_a_total_word_are_no_total_in_any_language_nor_for_the_receipt_rules(
    rankers: Rankers,
) -> None:
    assert _refusal("Total heures: 139,50") is not None
    assert _refusal("Totale ore: 12,25") is not None
    fields = extract_invoice(_document(HOURS_FR), day_first=True, rankers=rankers).fields
    assert fields.get("total") is None or fields["total"].value != "139.50"


# A page total under a total label, then the summary under wordings no lexicon holds: the
# tax's row prints its rate, rate x base = tax and base + tax = the amount printed below.
RATED_ROW = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-2024-34"),
    (0.60, 0.07, "Invoice date: 10/02/2024"),
    (0.05, 0.36, "Total per page:"), (0.80, 0.36, "£ 2,000.00"),
    (0.60, 0.40, "Goods"), (0.80, 0.40, "£ 2,000.00"),
    (0.60, 0.42, "Levy 5 %"), (0.80, 0.42, "£ 100.00"),
    (0.60, 0.44, "Sum to pay"), (0.80, 0.44, "£ 2,100.00"),
]  # fmt: skip


@pytest.mark.parametrize("ranker", [False, True])
def test_a_tax_its_rows_rate_confirms_completes_the_sums(ranker: bool) -> None:
    fields = invoice_fields(_document(RATED_ROW), ranker=ranker).fields
    assert fields["subtotal"].value == "2000.00"
    assert fields["tax"].value == "100.00"
    assert fields["total"].value == "2100.00"


# The document's date under a wording no lexicon holds; the only issue-date label opens the
# print stamp in the footer (a clock time and a page number on its line).
STAMPED_FOOTER = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-2024-35"),
    (0.60, 0.07, "Drawn up: 10.07.2024"),
    (0.60, 0.40, "Subtotal"), (0.80, 0.40, "100.00"),
    (0.60, 0.42, "VAT 20 %"), (0.80, 0.42, "20.00"),
    (0.60, 0.44, "Total"), (0.80, 0.44, "120.00"),
    (0.05, 0.95, "Date: 13.07.2024 Time: 23:52:48 Page 1"),
]  # fmt: skip


def test_a_clock_time_and_a_page_number_on_one_line_make_a_print_stamp() -> None:
    assert print_stamp("Date: 13.07.2024 Time: 23:52:48 Page 1")
    assert not print_stamp("Invoice date: 13.07.2024")


@pytest.mark.parametrize("date_ranker", [False, True])
def test_a_print_stamps_date_is_not_the_issue_date(date_ranker: bool) -> None:
    fields = invoice_fields(_document(STAMPED_FOOTER), date_ranker=date_ranker).fields
    assert fields["date"].value == "2024-07-10"


# A German entrepreneurial company's legal form is "UG (haftungsbeschränkt)", the bracket its
# part: the letterhead prints the name without it, the footer with it.
UG_FOOTER = [
    (0.05, 0.03, "KESTREL DRUCK"),
    (0.05, 0.05, "Mühlweg 8"),
    (0.05, 0.07, "54321 Mühlstadt"),
    (0.05, 0.18, "RECHNUNG"),
    (0.05, 0.20, "Rechnungsnummer: RE-2025-71"),
    (0.05, 0.22, "Rechnungsdatum: 03.03.2025"),
    (0.60, 0.40, "Nettobetrag"), (0.80, 0.40, "1.000,00"),
    (0.60, 0.42, "MwSt. 19 %"), (0.80, 0.42, "190,00"),
    (0.60, 0.44, "Gesamtbetrag"), (0.80, 0.44, "1.190,00"),
    (0.05, 0.90, "Kestrel Druck UG (haftungsbeschränkt) · Gegründet 2011"),
]  # fmt: skip


@pytest.mark.parametrize("issuer_ranker", [False, True])
def test_a_legal_form_with_its_bracket_is_kept_whole_in_the_issuer(issuer_ranker: bool) -> None:
    fields = invoice_fields(_document(UG_FOOTER), issuer_ranker=issuer_ranker).fields
    assert fields["company"].value == "Kestrel Druck UG (haftungsbeschränkt)"


# The lines' sum printed as a page total, then a shipping charge and the invoice's total: the
# total ranker's agreement, which knows no charge, finds the page total agreeing with the
# lines, the rules' sums the total.
PAGE_TOTAL = [
    (0.05, 0.05, "Supplier Trading SARL"),
    (0.60, 0.05, "Invoice No: F-2026-893"),
    (0.60, 0.07, "Invoice date: 20/03/2026"),
    (0.05, 0.30, "Ref"), (0.20, 0.30, "Qty Description"), (0.62, 0.30, "Unit price"),
    (0.80, 0.30, "Amount"),
    (0.05, 0.32, "1"), (0.20, 0.32, "5"), (0.25, 0.32, "Freight"), (0.62, 0.32, "875,33"),
    (0.80, 0.32, "4376,65"),
    (0.05, 0.34, "2"), (0.20, 0.34, "1"), (0.25, 0.34, "Cable set"), (0.62, 0.34, "1167,66"),
    (0.80, 0.34, "1167,66"),
    (0.05, 0.36, "3"), (0.20, 0.36, "3"), (0.25, 0.36, "Office chair"), (0.62, 0.36, "463,94"),
    (0.80, 0.36, "1391,82"),
    (0.05, 0.40, "Total per page: 6936,13 €"),
    (0.60, 0.44, "Shipping"), (0.80, 0.44, "12,65 €"),
    (0.60, 0.46, "Grand total"), (0.80, 0.46, "6948,78 €"),
]  # fmt: skip


@pytest.mark.parametrize("ranker", [False, True])
def test_a_page_total_equal_to_the_lines_does_not_beat_the_total_the_sums_confirm(
    ranker: bool,
) -> None:
    fields = invoice_fields(_document(PAGE_TOTAL), ranker=ranker).fields
    assert fields["total"].value == "6948.78"
    assert fields["subtotal"].value == "6936.13"


# A summary whose label row wrapped: the rate of the tax ("8" of "Sales tax 8 %") stands right
# of the total's label, and no amount with decimals follows any total label. The lines are
# printed as money, so a bare integer is no total.
BARE_RATE = [
    (0.05, 0.05, "Supplier Trading Ltd"),
    (0.60, 0.05, "Invoice No: INV-2024-58"),
    (0.60, 0.07, "Invoice date: 10/02/2024"),
    (0.05, 0.30, "Qty"), (0.15, 0.30, "Description"), (0.80, 0.30, "Amount"),
    (0.05, 0.32, "5"), (0.15, 0.32, "Office chair"), (0.80, 0.32, "5,202.85"),
    (0.05, 0.34, "5"), (0.15, 0.34, "Software licence"), (0.80, 0.34, "6,912.95"),
    (0.40, 0.40, "Total"), (0.55, 0.40, "8"),
]  # fmt: skip


@pytest.mark.parametrize("ranker", [False, True])
def test_a_bare_integer_after_a_total_label_is_no_total_where_the_lines_are_money(
    ranker: bool,
) -> None:
    fields = invoice_fields(_document(BARE_RATE), ranker=ranker).fields
    assert "total" not in fields
    assert fields["subtotal"].value == "12115.80"


# The payee's IBAN photographed: the "I" of the French account number read as "1".
MISREAD_IBAN = [
    (0.05, 0.05, "Supplier Trading SARL"),
    (0.60, 0.05, "Invoice No: F-2026-41"),
    (0.60, 0.07, "Invoice date: 20/03/2026"),
    (0.60, 0.40, "Total"), (0.80, 0.40, "1 200,00 EUR"),
    (0.05, 0.60, "IBAN: FR32 3000 4012 3410 1234 5678 900"),
]  # fmt: skip


def test_an_iban_read_with_one_look_alike_character_is_repaired_and_not_trusted_fully() -> None:
    extraction = invoice_fields(_document(MISREAD_IBAN))
    iban = extraction.fields["iban"]
    assert iban.value == "FR323000401234I012345678900"
    assert iban.confidence < 0.8
    assert any("FR323000401234101234567890" in w for w in extraction.warnings)


@pytest.mark.parametrize(
    ("first", "second", "number"),
    [
        ("Rechnungsnummer: RE-2026-", "08009", "RE-2026-08009"),
        ("Invoice no: INV/2026/", "0815", "INV/2026/0815"),
        # A number that ends its line whole keeps the next line out.
        ("Invoice no: INV-2026-0815", "Berlin", "INV-2026-0815"),
    ],
)
def test_an_invoice_number_broken_after_its_hyphen_goes_on_at_the_next_lines_start(
    first: str, second: str, number: str
) -> None:
    cells = [
        (0.05, 0.05, "Lieferant Handels GmbH"),
        (0.05, 0.20, first),
        (0.05, 0.214, second),
        (0.05, 0.228, "Rechnungsdatum: 14.03.2024"),
        (0.60, 0.40, "Gesamtbetrag"), (0.80, 0.40, "119,00"),
    ]  # fmt: skip
    assert invoice_fields(_document(cells)).fields["number"].value == number
