"""Invoices printing other numbers beside their own (a delivery note's, a contract's, a
customer's), under wordings the lexicons know or not, and invoices with no tax whose total
stands under a wording no lexicon holds. Every page is made up here; each test fails without
the rule it names."""

from __future__ import annotations

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.documents import extract_invoice
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.rank.switches import DEFAULT_RANKERS

from .test_invoice import _page

ITEMS = [
    (0.05, 0.25, "Pos Artikel"), (0.62, 0.25, "Menge"), (0.80, 0.25, "Betrag"),
    (0.05, 0.27, "1 Wartung"), (0.62, 0.27, "1"), (0.80, 0.27, "623,31"),
    (0.05, 0.29, "2 Druck von Flyern"), (0.62, 0.29, "1"), (0.80, 0.29, "1.011,67"),
]  # fmt: skip


def _document(cells: list[tuple[float, float, str]]) -> Document:
    return Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))


def _number(cells: list[tuple[float, float, str]]) -> object:
    found = extract_invoice(_document(cells), True, rankers=DEFAULT_RANKERS).fields.get("number")
    return found.value if found is not None else None


def test_a_delivery_notes_number_below_the_title_is_not_the_invoice_number() -> None:
    # invoice._number: the title "RECHNUNG" reached the next row's value, the delivery note's;
    # a value read under another number's label is that number's.
    head = [
        (0.05, 0.05, "Feindal Bau KG"),
        (0.05, 0.10, "RECHNUNG"),
        (0.05, 0.12, "Lieferschein-Nr.: 2021/710"),
        (0.05, 0.14, "Rechnungskennung: 2021/3447"),
        (0.05, 0.16, "Datum: 27.05.2021"),
    ]
    assert _number(head + ITEMS) == "2021/3447"


def test_a_delivery_note_and_a_contract_under_their_own_labels_are_no_invoice_numbers() -> None:
    # The lexicons' other_number labels ("BL n°", "N° de contrat"): the receipt rules, filling
    # the number the layout reading did not find, took the first number after "n°".
    head = [
        (0.05, 0.05, "Trukzostis SAS"),
        (0.05, 0.10, "Facture"),
        (0.05, 0.12, "N° de contrat: V-2018-041 Référence pièce: 2020/76681 BL n°: DN35993"),
        (0.05, 0.14, "Datée du: 22.02.2020"),
    ]
    assert _number(head + ITEMS) == "2020/76681"


def test_with_no_tax_the_last_amount_that_is_all_the_lines_come_to_is_the_total() -> None:
    # invoice._totals: "Endsumme" is no lexicon wording, and an amount equal to the lines'
    # sum alone said nothing; as the document's last amount, with no tax printed, it is the
    # total.
    head = [(0.05, 0.05, "Feindal Bau KG"), (0.05, 0.10, "Rechnung Nr. 4711")]
    summary = [(0.60, 0.40, "Endsumme"), (0.80, 0.40, "1.634,98 €")]
    fields = invoice_fields(_document(head + ITEMS + summary)).fields
    assert fields["total"].value == "1634.98"
    # A sum that a tax's row follows is no total: the tax's is printed after it.
    taxed = [*summary, (0.60, 0.42, "MwSt 19 %"), (0.80, 0.42, "310,65 €")]
    fields = invoice_fields(_document(head + ITEMS + taxed)).fields
    assert fields.get("total") is None or fields["total"].value != "1634.98"
