"""Invoices that end with a payment slip: a transfer block naming the payee under a
recipient's label, a payment reference quoting the invoice, a payee's name after its label.
Every page is made up here; each test fails without the rule it names."""

from __future__ import annotations

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.documents import extract_invoice
from renderkit.parsing.extract.invoice import invoice_issuer_candidates
from renderkit.parsing.rank.switches import DEFAULT_RANKERS

from .test_invoice import _page

ITEMS = [
    (0.05, 0.30, "Artikel"), (0.62, 0.30, "Menge"), (0.80, 0.30, "Betrag"),
    (0.05, 0.32, "Wartung"), (0.62, 0.32, "1"), (0.80, 0.32, "623,31"),
    (0.05, 0.34, "Druck von Flyern"), (0.62, 0.34, "1"), (0.80, 0.34, "1.011,67"),
    (0.62, 0.38, "Gesamtbetrag"), (0.80, 0.38, "1.634,98 EUR"),
]  # fmt: skip


EN_ITEMS = [
    (0.05, 0.30, "Item"), (0.62, 0.30, "Qty"), (0.80, 0.30, "Amount"),
    (0.05, 0.32, "Maintenance"), (0.62, 0.32, "1"), (0.80, 0.32, "623.31"),
    (0.62, 0.38, "Total"), (0.80, 0.38, "623.31 GBP"),
]  # fmt: skip


def _fields(cells: list[tuple[float, float, str]]) -> dict[str, object]:
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    found = extract_invoice(document, True, rankers=DEFAULT_RANKERS).fields
    return {name: f.value for name, f in found.items()}


def test_a_transfer_blocks_recipient_with_an_iban_is_the_payee_not_the_buyer() -> None:
    # parties.parties: "Empfänger" labels a buyer's block, so the payee's name in the
    # transfer block was taken for the buyer's and refused as the issuer; the logo's word
    # won. A recipient's block that gives an IBAN is the one paid.
    cells = [
        (0.05, 0.04, "TRAMBEX"),
        (0.05, 0.10, "Rechnung"),
        (0.05, 0.12, "Rechnungsnummer: 2024-0412"),
        (0.05, 0.14, "Datum: 03.04.2024"),
        *ITEMS,
        (0.05, 0.50, "Zahlungsinformationen"),
        (0.05, 0.53, "Empfänger: Trambex Anlagenbau GmbH"),
        (0.05, 0.55, "IBAN: DE89 3704 0044 0532 0130 00"),
        (0.05, 0.57, "BIC: COBADEFFXXX"),
    ]
    assert _fields(cells)["company"] == "Trambex Anlagenbau GmbH"


def test_a_payees_name_after_its_label_is_read_without_the_label() -> None:
    # parties.legal_names: "Payee: Trambex Ltd" was one legal name, label and all, and
    # outranked the name it repeats.
    cells = [
        (0.05, 0.04, "TRAMBEX"),
        (0.05, 0.10, "Invoice"),
        (0.05, 0.12, "Invoice no: 2024-0412"),
        (0.05, 0.14, "Date: 03/04/2024"),
        *EN_ITEMS,
        (0.05, 0.50, "Payment details"),
        (0.05, 0.53, "Payee: Trambex Engineering Ltd"),
        (0.05, 0.55, "Sort code: 20-00-00"),
    ]
    assert _fields(cells)["company"] == "Trambex Engineering Ltd"


def test_a_payment_reference_quoting_the_invoice_leaves_it_the_invoice_number() -> None:
    # invoice.other_number_values: "reference" labels another document's number, so the
    # invoice's own number, quoted in the payment reference, was refused everywhere.
    cells = [
        (0.05, 0.04, "Trambex Engineering Ltd"),
        (0.05, 0.10, "Invoice"),
        (0.05, 0.12, "Invoice no: INV064253"),
        (0.05, 0.14, "Date: 03/04/2024"),
        *EN_ITEMS,
        (0.05, 0.53, "Payment reference: Inv INV064253 Cust 25325"),
    ]
    assert _fields(cells)["number"] == "INV064253"


def test_a_qr_bills_payer_block_is_the_buyers_never_the_issuer() -> None:
    # A Swiss QR-bill repeats the buyer under "Zahlbar durch" ("Payable par", "Pagabile da"),
    # in the block that gives the seller's IBAN: the payer's name was a legal name vouched
    # for by that block, and outranked a seller printed only in the logo's picture and the
    # slip.
    for label in ("Zahlbar durch", "Payable par", "Pagabile da"):
        cells = [
            (0.05, 0.10, "Rechnung"),
            (0.05, 0.12, "Rechnungsnummer: 2024-0412"),
            (0.05, 0.14, "Datum: 03.04.2024"),
            *ITEMS,
            (0.05, 0.70, "Konto / Zahlbar an"),
            (0.05, 0.72, "CH44 3199 9123 0008 8901 2"),
            (0.05, 0.74, "Trambex Treuhand AG"),
            (0.05, 0.76, "Bahnhofstrasse 1, 8001 Zürich"),
            (0.05, 0.78, label),
            (0.05, 0.80, "Kestrel Handel SAGL"),
            (0.05, 0.82, "Seeweg 4, 6900 Lugano"),
        ]
        document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
        names = [c.value for c in invoice_issuer_candidates(document)[0]]
        assert "Trambex Treuhand AG" in names and "Kestrel Handel SAGL" not in names, label
