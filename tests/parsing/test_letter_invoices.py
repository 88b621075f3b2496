"""Invoices laid out as business letters (DIN 5008 and its kin): a logo's word beside the name,
the seller's one-line return address over the buyer's window address, the document's title
right above it. Each page is made up here; each test fails without the rule it names (on the
rules path, the learned ranker or both)."""

from __future__ import annotations

import pytest

from renderkit.parsing._protocol import Word
from renderkit.parsing.extract.documents import extract_invoice
from renderkit.parsing.extract.found import without_logo_word
from renderkit.parsing.extract.invoice import invoice_fields
from renderkit.parsing.extract.parties import Window, letter_windows, top_names
from renderkit.parsing.layout.model import Segment, layout_document
from renderkit.parsing.rank.switches import DEFAULT_RANKERS

from ._pages import sized_document, sized_words


def _segment(*runs: tuple[str, float], text_layer: bool = True) -> Segment:
    words: list[Word] = []
    x = 0.05
    for text, height in runs:
        words += sized_words(x, 0.05, text, height)
        x = words[-1].bbox[2] + 0.01
    return Segment(words=tuple(words), page=1, row=0, text_layer=text_layer)


def test_a_segment_is_cut_into_runs_where_the_type_size_jumps() -> None:
    logo_beside = _segment(("KESTREL", 0.030), ("Kestrel Druck GmbH", 0.015))
    assert logo_beside.type_texts() == ("KESTREL", "Kestrel Druck GmbH")
    assert _segment(("Kestrel Druck GmbH", 0.015)).type_texts() == ("Kestrel Druck GmbH",)
    # Capitals and small letters of one type are one run.
    assert _segment(("ACME", 0.015), ("Acme Trading", 0.014)).type_texts() == ("ACME Acme Trading",)
    # OCR's word boxes vary with the letters: a legal form's bracket is no change of type,
    # so an OCR line stays whole.
    ocr = _segment(("Kestrel Druck UG", 0.0166), ("(haftungsbeschränkt)", 0.0272), text_layer=False)
    assert ocr.type_texts() == ("Kestrel Druck UG (haftungsbeschränkt)",)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Kestrel Druck GmbH · Hafenweg 12 · 20457 Hamburg", "Kestrel Druck GmbH"),
        ("Harbour Supplies Ltd | 4 Quay Street | Porttown PT1 2AB", "Harbour Supplies Ltd"),
        # A photo's OCR reads the middle dot as a dash, run into the name's last word.
        ("Harbour Supplies plc- 4 Quay Street", "Harbour Supplies plc"),
        ("Harbour Supplies Ltd", "Harbour Supplies Ltd"),
        # Read as a party's name: a legal form keeps its last dot, as printed.
        ("Kestrel Druck e.K. · Hafenweg 12 · 20457 Hamburg", "Kestrel Druck e.K."),
        ("Harbour Supplies Inc.", "Harbour Supplies Inc."),
    ],
)
def test_a_sender_lines_first_part_is_what_it_names(text: str, name: str) -> None:
    assert top_names(_segment((text, 0.012))) == [name]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("KESTREL Kestrel Druck GmbH", "Kestrel Druck GmbH"),
        ("Kestrel Druck GmbH KESTREL", "Kestrel Druck GmbH"),
        ("DRUCK Kestrel Druck GmbH", "Kestrel Druck GmbH"),
        # A name in capitals throughout keeps its repeated word.
        ("JOHNSON & JOHNSON LTD", "JOHNSON & JOHNSON LTD"),
        ("WALLA WALLA FARMS INC", "WALLA WALLA FARMS INC"),
        # A capital word that repeats nothing is the name's own.
        ("KDX Kestrel Druck GmbH", "KDX Kestrel Druck GmbH"),
    ],
)
def test_a_logo_word_repeated_beside_the_name_is_no_part_of_it(text: str, name: str) -> None:
    assert without_logo_word(text) == name


# A letter: the logo's word in big type beside the name, the title, then the seller's
# return address (with a house number) over the buyer's window address, the document's
# numbers in a column beside it under a label no lexicon holds.
LETTER = [
    (0.05, 0.040, "KESTREL", 0.030),
    (0.22, 0.048, "Kestrel Druck GmbH", 0.015),
    (0.05, 0.110, "RECHNUNG", 0.022),
    (0.05, 0.150, "Kestrel Druck GmbH · Hafenweg 218 · 20457 Hamburg", 0.008),
    (0.60, 0.152, "Belegkennung: RE 20-55120", 0.012),
    (0.05, 0.170, "Harbour Holdings AG", 0.012),
    (0.60, 0.170, "Rechnungsdatum: 03.03.2025", 0.012),
    (0.05, 0.186, "Quaistraße 4", 0.012),
    (0.05, 0.202, "10115 Berlin", 0.012),
    (0.05, 0.300, "Beratung", 0.012), (0.80, 0.300, "1.000,00", 0.012),
    (0.60, 0.400, "Nettobetrag", 0.012), (0.80, 0.400, "1.000,00", 0.012),
    (0.60, 0.420, "MwSt 19 %", 0.012), (0.80, 0.420, "190,00", 0.012),
    (0.60, 0.440, "Gesamtbetrag", 0.012), (0.80, 0.440, "1.190,00", 0.012),
    (0.05, 0.900, "Kestrel Druck GmbH", 0.009),
    (0.30, 0.900, "IBAN: DE89 3704 0044 0532 0130 00", 0.009),
    (0.05, 0.912, "Hafenweg 218", 0.009), (0.30, 0.912, "USt-IdNr.: DE136695976", 0.009),
]  # fmt: skip


@pytest.mark.parametrize("issuer_ranker", [False, True])
def test_a_letters_issuer_is_the_name_without_the_logos_word_or_the_return_address(
    issuer_ranker: bool,
) -> None:
    fields = invoice_fields(sized_document(LETTER), issuer_ranker=issuer_ranker).fields
    assert fields["company"].value == "Kestrel Druck GmbH"


def test_the_receipt_rules_name_does_not_bring_the_logos_word_back() -> None:
    # extract_invoice weighs the receipt rules' reading of the same page against the layout's.
    fields = extract_invoice(sized_document(LETTER), True, rankers=DEFAULT_RANKERS).fields
    assert fields["company"].value == "Kestrel Druck GmbH"


def test_a_house_number_in_the_return_address_under_the_title_is_no_invoice_number() -> None:
    fields = invoice_fields(sized_document(LETTER)).fields
    assert fields["number"].value == "RE 20-55120"


# One line and the sums of a page, below its letterhead.
SUMS = [
    (0.05, 0.300, "Consulting", 0.012), (0.80, 0.300, "1,000.00", 0.012),
    (0.60, 0.400, "Subtotal", 0.012), (0.80, 0.400, "1,000.00", 0.012),
    (0.60, 0.420, "VAT 20 %", 0.012), (0.80, 0.420, "200.00", 0.012),
    (0.60, 0.440, "Total", 0.012), (0.80, 0.440, "1,200.00", 0.012),
]  # fmt: skip


# The name alone at the top right, the return address repeating it over the buyer's window
# address (no "Bill to" label: the window is the buyer's by its place).
WINDOW = [
    (0.62, 0.048, "Kestrel Joinery Ltd", 0.015),
    (0.05, 0.110, "INVOICE", 0.022),
    (0.05, 0.150, "Kestrel Joinery Ltd · 93 Mill Street · Kestfield KX5 9GZ", 0.008),
    (0.60, 0.152, "Invoice #: BL5404", 0.012),
    (0.05, 0.170, "Harbour Trading & Sons Ltd", 0.012),
    (0.60, 0.170, "Invoice date: 20 May 2023", 0.012),
    (0.05, 0.186, "11 Quay Road", 0.012),
    (0.60, 0.186, "Date due: 19 Jun 2023", 0.012),
    (0.05, 0.202, "Porttown PX5 4NQ", 0.012),
    *SUMS,
]  # fmt: skip


@pytest.mark.parametrize("issuer_ranker", [False, True])
def test_the_name_in_the_return_address_is_the_issuer_not_the_window_address_below_it(
    issuer_ranker: bool,
) -> None:
    fields = invoice_fields(sized_document(WINDOW), issuer_ranker=issuer_ranker).fields
    assert fields["company"].value == "Kestrel Joinery Ltd"
    assert fields["number"].value == "BL5404"


# The name only in the logo's pixels: the seller is named in the return address and the
# footer, the buyer (a legal name, no label) in the window right below the return address.
WINDOW_ONLY = [
    (0.05, 0.150, "Kestrel Joinery · 93 Mill Street · Kestfield KX5 9GZ", 0.008),
    (0.60, 0.152, "Invoice #: BL5404", 0.012),
    (0.05, 0.165, "Harbour Trading & Sons Ltd", 0.012),
    (0.60, 0.170, "Invoice date: 20 May 2023", 0.012),
    (0.05, 0.181, "11 Quay Road", 0.012),
    (0.05, 0.197, "Porttown PX5 4NQ", 0.012),
    *SUMS,
    (0.05, 0.900, "Kestrel Joinery · Est. 1990", 0.009),
]  # fmt: skip


def test_the_name_right_under_a_return_address_is_the_buyers() -> None:
    layouts = layout_document(sized_document(WINDOW_ONLY))
    assert letter_windows(layouts) == [Window(tail=None, addressee="Harbour Trading & Sons Ltd")]
    fields = extract_invoice(sized_document(WINDOW_ONLY), True, rankers=DEFAULT_RANKERS).fields
    assert fields["company"].value == "Kestrel Joinery"


# The return address too long for its line, wrapped after a comma; the invoice's details in
# the column beside interleave with the window's rows.
WRAPPED = [
    (0.05, 0.110, "TAX INVOICE", 0.022),
    (0.05, 0.150, "Kestrel Joinery · 93 Mill Street · Kestfield - 414736,", 0.008),
    (0.50, 0.150, "Order ref: V-2020-850", 0.012),
    (0.05, 0.161, "Westshire", 0.008),
    (0.50, 0.170, "Service period: 01-01-2024", 0.012),
    (0.05, 0.186, "Harbour Trading & Sons Ltd", 0.012),
    (0.50, 0.186, "Invoice no: 0051607", 0.012),
    (0.05, 0.202, "11 Quay Road", 0.012),
    (0.50, 0.202, "Invoice date: 03-12-2023", 0.012),
    (0.05, 0.218, "Porttown - 326371, Eastshire", 0.012),
    *SUMS,
]  # fmt: skip


def _wrapped(comma: str, tail_height: float) -> list[tuple[float, float, str, float]]:
    return [
        (x, y, text.replace(" - 414736,", comma), tail_height if text == "Westshire" else h)
        for x, y, text, h in WRAPPED
    ]


@pytest.mark.parametrize(
    ("comma", "tail_height", "window"),
    [
        # Wrapped after its comma.
        (" - 414736,", 0.008, Window(tail="Westshire", addressee="Harbour Trading & Sons Ltd")),
        (" - 414736,", 0.012, Window(tail="Westshire", addressee="Harbour Trading & Sons Ltd")),
        # Wrapped without one, in the return address's small type over the window's larger.
        (" 414736", 0.008, Window(tail="Westshire", addressee="Harbour Trading & Sons Ltd")),
        # Finished on its line: the line under it in the window's type is the window's first.
        (" 414736", 0.012, Window(tail=None, addressee="Westshire")),
    ],
)
def test_the_window_name_is_found_under_a_wrapped_return_address_and_another_columns_rows(
    comma: str, tail_height: float, window: Window
) -> None:
    layouts = layout_document(sized_document(_wrapped(comma, tail_height)))
    assert letter_windows(layouts) == [window]


@pytest.mark.parametrize("issuer_ranker", [False, True])
def test_a_wrapped_return_address_names_the_issuer_not_the_window_name_below(
    issuer_ranker: bool,
) -> None:
    for page in (WRAPPED, _wrapped(" 414736", 0.008)):
        fields = invoice_fields(sized_document(page), issuer_ranker=issuer_ranker).fields
        assert fields["company"].value == "Kestrel Joinery"


# The buyer's block first, the seller's under it: the last line of an address ("Porttown -
# 165583, Westshire") is no return address, and the name under it no window's.
BUYER_FIRST = [
    (0.05, 0.060, "Bill to", 0.012),
    (0.05, 0.074, "Harbour Trading & Sons", 0.012),
    (0.05, 0.088, "55 Quay Nagar", 0.012),
    (0.05, 0.102, "Porttown - 165583, Westshire", 0.012),
    (0.05, 0.133, "Kestrel Joinery Pvt. Ltd.", 0.015),
    (0.05, 0.151, "97 Mill Road", 0.012),
    (0.05, 0.165, "Kestfield - 346820, Westshire", 0.012),
    (0.05, 0.179, "Tel +91 79687 28681", 0.012),
    (0.05, 0.224, "Tax Invoice", 0.022),
    (0.05, 0.257, "Invoice code: INV027524", 0.012),
    *SUMS,
]  # fmt: skip


@pytest.mark.parametrize("issuer_ranker", [False, True])
def test_an_address_blocks_last_line_is_no_return_address(issuer_ranker: bool) -> None:
    assert letter_windows(layout_document(sized_document(BUYER_FIRST))) == []
    fields = invoice_fields(sized_document(BUYER_FIRST), issuer_ranker=issuer_ranker).fields
    assert fields["company"].value == "Kestrel Joinery Pvt. Ltd."
