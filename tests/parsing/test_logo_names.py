"""Invoices whose letterhead prints the seller's name only inside the logo image: the text at
the top is the seller's address, and a place is no name; and a legal form OCR read with a
look-alike letter. Each page is made up here."""

from __future__ import annotations

import pytest

from renderkit.parsing._protocol import Document
from renderkit.parsing.extract.constraints import issuer_refusal
from renderkit.parsing.extract.documents import extract_invoice
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.parties import party_name, repaired_forms
from renderkit.parsing.rank.switches import DEFAULT_RANKERS

from .test_invoice import _page


@pytest.mark.parametrize(
    "text",
    [
        "Kajang, Selangor",
        "BANDAR BARU, KEDAH.",
        "PERAK",
        "NO 12, JALAN MAWAR 3",
        "12 High Street",
        "77 Kestrel Marg",
        "14 Ocean Parade",
        "Fax: ...",
        "TEL 03-8734 1190",
    ],
)
def test_a_place_a_street_line_or_a_contact_label_is_refused_as_the_issuer(text: str) -> None:
    assert issuer_refusal(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Selangor Hardware Sdn Bhd",
        "Perak Trading",
        "Kedah Rice Mill",
        "No. 5 Trading",
        "7-Eleven Malaysia Sdn Bhd",
        "Telstar Ltd",
        "Fax Express GmbH",
    ],
)
def test_a_name_holding_a_regions_word_is_not_refused(text: str) -> None:
    assert issuer_refusal(text) is None


# The name only in the logo's pixels: the letterhead's text is the address and contacts; the
# name is printed in the footer's legal line.
PICTURED = [
    (0.05, 0.040, "NO 12, JALAN MAWAR 3"),
    (0.05, 0.055, "TAMAN SERI, SELANGOR"),
    (0.05, 0.070, "Tel 03-8734 1190"),
    (0.05, 0.150, "INVOIS"),
    (0.05, 0.180, "Kepada"),
    (0.05, 0.195, "Harbour Supplies Sdn Bhd"),
    (0.05, 0.210, "No 4, Jalan Pelabuhan, 42000 Klang"),
    (0.05, 0.225, "Selangor"),
    (0.60, 0.180, "No invois: INV-2024-118"),
    (0.60, 0.195, "Tarikh: 14/03/2024"),
    (0.60, 0.210, "Tarikh akhir: 13/04/2024"),
    (0.60, 0.225, "No pesanan: PO-5521"),
    (0.60, 0.240, "Terma: 30 hari"),
    (0.05, 0.300, "Kerja pemasangan"), (0.80, 0.300, "1,000.00"),
    (0.60, 0.400, "Jumlah kecil"), (0.80, 0.400, "1,000.00"),
    (0.60, 0.420, "SST 8 %"), (0.80, 0.420, "80.00"),
    (0.60, 0.440, "Jumlah"), (0.80, 0.440, "1,080.00"),
    (0.05, 0.900, "KESTREL RENOVATION · Sejak 2011"),
]  # fmt: skip


def test_with_the_name_only_in_the_logo_the_address_is_no_issuer() -> None:
    # The issuer ranker's path, the default: the rules alone never read a footer's name.
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(PICTURED),))
    fields = invoice_fields(document, issuer_ranker=True).fields
    assert fields["company"].value == "KESTREL RENOVATION"
    merged = extract_invoice(document, False, rankers=DEFAULT_RANKERS).fields
    assert merged["company"].value == "KESTREL RENOVATION"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Rossi Costruzioni S.r.I", "Rossi Costruzioni S.r.l."),
        ("Rossi Costruzioni S.r.l", "Rossi Costruzioni S.r.l."),
        ("Harbour Supplies p1c", "Harbour Supplies plc"),
        ("Rossi S.r.I · Via Roma 1", "Rossi S.r.l. · Via Roma 1"),
        # Only a form at a name's end: a word inside a name is left as read.
        ("Sr1 Italia S.p.A.", "Sr1 Italia S.p.A."),
        ("Harbour Supplies plc", "Harbour Supplies plc"),
    ],
)
def test_a_legal_form_read_with_a_look_alike_letter_is_written_as_the_form(
    text: str, name: str
) -> None:
    assert repaired_forms(text) == name


# A photographed Italian invoice: OCR read the form's small "l" as a capital "I".
LOOK_ALIKE = [
    (0.05, 0.05, "Rossi Costruzioni S.r.I"),
    (0.05, 0.07, "Via Roma 12, 00184 Roma"),
    (0.60, 0.12, "Fattura n. 2024/118"),
    (0.60, 0.14, "Data: 14/03/2024"),
    (0.05, 0.30, "Montaggio"), (0.80, 0.30, "1.000,00"),
    (0.60, 0.40, "Imponibile"), (0.80, 0.40, "1.000,00"),
    (0.60, 0.42, "IVA 22 %"), (0.80, 0.42, "220,00"),
    (0.60, 0.44, "Totale"), (0.80, 0.44, "1.220,00"),
]  # fmt: skip


def test_an_issuers_look_alike_legal_form_is_read_as_the_form() -> None:
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(LOOK_ALIKE),))
    fields = extract_invoice(document, True, rankers=DEFAULT_RANKERS).fields
    assert fields["company"].value == "Rossi Costruzioni S.r.l."


def test_a_partys_name_is_read_with_its_legal_form_repaired() -> None:
    # A seller block's name and a legal name elsewhere then merge into one candidate.
    assert party_name("Rossi Costruzioni S.r.I") == "Rossi Costruzioni S.r.l."
