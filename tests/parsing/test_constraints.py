"""The document's own consistency as hard constraints, each tripped by a synthetic document."""

from decimal import Decimal

from renderkit.parsing._protocol import Document, Line, Page, Word
from renderkit.parsing.extract.constraints import (
    amount_refusal,
    amounts_agree,
    by_checksum,
    issuer_refusal,
    lines_agree,
    number_refusal,
)
from renderkit.parsing.extract.documents import extract_fields
from renderkit.parsing.extract.identifiers import vat_checksum_ok
from renderkit.parsing.extract.invoice import (
    InvoiceFields,
    invoice_fields,
    invoice_issuer_candidates,
)
from renderkit.parsing.extract.numbers import DOT_DECIMAL, find_money

from .test_invoice import _fields, _page

Cells = list[tuple[float, float, str]]


def _document(cells: Cells) -> Document:
    """A one-page document of words at (x, y) fractions (test_invoice's page builder)."""
    return Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))


def _invoice(cells: Cells) -> InvoiceFields:
    return invoice_fields(_document(cells))


def _refusal(
    text: str, quantities: frozenset[Decimal] = frozenset(), *, index: int = -1
) -> str | None:
    amount = find_money(text, DOT_DECIMAL)[index]
    return amount_refusal(text, amount, quantities=quantities)


# (b) number roles


def test_a_bare_year_date_part_phone_or_postcode_is_no_amount() -> None:
    assert _refusal("2024") == "2024 is a year"
    assert _refusal("14 March 2024", index=0) == "14 is part of a date"
    assert _refusal("14.03.2024 31") is None
    assert _refusal("Tel. 030 1234 5678") == "5678 is part of a phone number"
    assert _refusal("10115 Berlin").startswith("10115 is a postcode")
    assert _refusal("Total Page 2", index=0) == "2 is a page number"
    assert _refusal("3", frozenset({Decimal(3)})) == "3 is a quantity of the line items"


def test_decimals_or_a_currency_mark_make_any_number_an_amount() -> None:
    assert _refusal("2024.00") is None
    assert _refusal("EUR 2024") is None
    assert _refusal("3.00", frozenset({Decimal(3)})) is None


def test_a_count_after_a_quantity_label_is_no_amount_even_with_decimals() -> None:
    # Hours and weights are printed with decimals: only a currency mark makes them money.
    assert _refusal("Total hours: 47.50") == "47.50 is a count"
    assert _refusal("Summe Stunden 12.25") == "12.25 is a count"
    assert _refusal("Total hours: EUR 47.50") is None
    # The unit of a number before it prices that many: money.
    assert _refusal("Total (2 hours): 150.00") is None
    assert _refusal("Total (2 hours): 150") is None
    values = _fields(
        [
            (0.05, 0.05, "Invoice No: A-17"),
            (0.05, 0.30, "Total hours: 47.00"),
            (0.60, 0.40, "Sum to pay"), (0.80, 0.40, "£1,190.00"),
            (0.60, 0.44, "Amount due"), (0.80, 0.44, "£1,190.00"),
        ]
    )  # fmt: skip
    assert values["total"] == "1190.00"


def test_a_year_beside_a_total_label_is_not_the_total() -> None:
    values = _fields(
        [
            (0.05, 0.05, "Invoice No: A-17"),
            (0.60, 0.40, "Total"), (0.80, 0.40, "2024"),
            (0.60, 0.44, "Amount due"), (0.80, 0.44, "1,190.00"),
        ]
    )  # fmt: skip
    assert values["total"] == "1190.00"


def test_a_quantity_printed_on_the_total_row_is_not_the_total() -> None:
    values = _fields(
        [
            (0.05, 0.05, "Invoice No: A-17"),
            (0.05, 0.30, "Description"), (0.50, 0.30, "Qty"), (0.62, 0.30, "Unit price"),
            (0.80, 0.30, "Amount"),
            (0.05, 0.32, "Widgets"), (0.50, 0.32, "3"), (0.62, 0.32, "50.00"),
            (0.80, 0.32, "150.00"),
            (0.40, 0.40, "Total"), (0.50, 0.40, "3"),
        ]
    )  # fmt: skip
    # Nothing else labels a total: none is better than the item count.
    assert "total" not in values
    assert values["subtotal"] == "150.00"


def test_a_line_number_below_a_number_label_is_not_the_invoice_number() -> None:
    values = _fields([(0.60, 0.05, "Invoice No."), (0.60, 0.07, "1"), (0.05, 0.20, "Widgets")])
    assert "number" not in values


def test_a_short_invoice_number_after_its_label_on_the_same_line_is_kept() -> None:
    assert _fields([(0.60, 0.05, "Invoice No: 12")])["number"] == "12"


def test_a_year_or_a_page_number_is_not_the_invoice_number() -> None:
    assert _fields([(0.60, 0.05, "Invoice No."), (0.60, 0.07, "2024")]).get("number") is None
    assert number_refusal("1", "Page 1 of 2", inline=True) == "1 is a page number"
    assert number_refusal("2024", "Invoice No: 2024", inline=True) is None
    assert number_refusal("INV-2024-1", "No. INV-2024-1", inline=False) is None
    assert number_refusal("12345678", "Tel. 030 12345678", inline=False) is not None


def test_a_number_opening_a_street_line_beside_a_number_label_is_not_the_invoice_number() -> None:
    # A remittance slip: the label's value wrapped below it, the buyer's street in the column
    # beside on the label's row.
    values = _fields(
        [
            (0.05, 0.80, "Account no.: 967326"),
            (0.05, 0.82, "Invoice no.:"), (0.50, 0.82, "101 Harbour Street"),
            (0.05, 0.84, "2022/52097"), (0.50, 0.84, "Porttown"),
        ]
    )  # fmt: skip
    assert values["number"] == "2022/52097"
    assert number_refusal("101", "Invoice no.: 101 Harbour Street", inline=False) is not None
    assert number_refusal("101", "Invoice no.: 101", inline=False) is None


def test_a_tax_number_or_an_iban_under_a_label_naming_a_number_is_not_the_invoice_number() -> None:
    values = _fields(
        [
            (0.60, 0.05, "Invoice code: INV001352"),
            (0.05, 0.90, "VAT registration number: GB859071108"),
            (0.05, 0.92, "Account number: DE89370400440532013000"),
        ]
    )
    assert values.get("number") != "GB859071108"
    assert number_refusal("GB859071108", "VAT number: GB859071108", inline=True) is not None
    assert number_refusal(
        "DE89370400440532013000", "Account no DE89370400440532013000", inline=True
    )
    # The same shape with a wrong check digit is some other number.
    assert number_refusal("GB859071109", "Invoice number: GB859071109", inline=True) is None


# (c) issuer refusals


def test_stamps_titles_and_table_headers_are_refused_as_issuer_in_any_language() -> None:
    for text in ("COPY", "KOPIE", "Duplicata", "PAID", "ORIGINAL", "Rechnung", "INVOICE COPY"):
        assert issuer_refusal(text) is not None, text
    assert issuer_refusal("Description Qty Amount") is not None
    for name in ("Blue Harbor Studio", "Copy Corner Ltd", "Original Bakery GmbH"):
        assert issuer_refusal(name) is None, name


def test_a_watermark_above_the_seller_is_not_the_issuer() -> None:
    cells = [
        (0.40, 0.02, "COPY"),
        (0.05, 0.05, "Blue Harbor Studio"),
        (0.05, 0.07, "12 Quay Street"),
        (0.60, 0.10, "Invoice No: BH-88"),
        (0.05, 0.20, "Bill to:"),
        (0.05, 0.22, "Northwind Traders"),
    ]
    assert _fields(cells)["company"] == "Blue Harbor Studio"
    found = extract_fields("invoice", _document(cells), day_first=True).fields
    assert found["company"].value == "Blue Harbor Studio"


def test_a_name_in_the_buyer_block_is_not_the_issuer() -> None:
    values = _fields(
        [
            (0.05, 0.05, "Bill to:"),
            (0.05, 0.07, "Northwind Traders Ltd"),
            (0.60, 0.05, "Invoice No: BH-88"),
            (0.60, 0.30, "Blue Harbor Studio GmbH"),
        ]
    )
    assert values["company"] == "Blue Harbor Studio GmbH"


def test_the_region_ending_the_sellers_address_is_not_the_issuer() -> None:
    # A letterhead of an address alone (its name in a logo), the seller's legal name only in
    # the footer: the state under "Town - 465852," goes on from that line.
    cells = [
        (0.60, 0.02, "54 Pim Road"),
        (0.60, 0.04, "Pliseirtpur - 465852,"),
        (0.60, 0.06, "Maharashtra"),
        (0.05, 0.12, "INVOICE"),
        (0.05, 0.15, "Invoice no: INV 26-93744"),
        (0.60, 0.15, "Customer"),
        (0.60, 0.17, "Hemgantruk Pvt. Limited"),
        (0.60, 0.19, "40 Plaist Street"),
        (0.05, 0.80, "House of Kleolein Pvt. Ltd. · Est. 1999"),
    ]
    candidates, _ = invoice_issuer_candidates(_document(cells))
    assert "Maharashtra" not in [c.value for c in candidates]
    assert "House of Kleolein Pvt. Ltd." in [c.value for c in candidates]
    # Set tight, the lines overlap by a hair: still the line under it.
    tight = [*cells[:2], (0.60, 0.0515, "Maharashtra"), *cells[3:]]
    candidates, _ = invoice_issuer_candidates(_document(tight))
    assert "Maharashtra" not in [c.value for c in candidates]
    # After a line that does not end in a comma it is a line of its own.
    cells[1] = (0.60, 0.04, "Pliseirtpur - 465852")
    candidates, _ = invoice_issuer_candidates(_document(cells))
    assert "Maharashtra" in [c.value for c in candidates]


# (d) checksums


def test_vat_check_digits_are_checked_by_their_countrys_rule() -> None:
    for valid in ("DE136695976", "FR40303265045", "IT00743110157", "NL004495445B01",
                  "BE0403019261", "ESA28015865", "ES12345678Z", "ATU13585627", "PT501964843",
                  "EL094259216", "HU12892312", "GB980780684", "CHE116281710MWST"):  # fmt: skip
        assert vat_checksum_ok(valid) is True, valid
    for invalid in ("DE136695977", "FR41303265045", "IT00743110158", "BE0403019262",
                    "ATU13585628", "PT501964842", "GB980780685", "CHE116281711MWST"):  # fmt: skip
        assert vat_checksum_ok(invalid) is False, invalid
    # A tax number that is no VAT id (an Indian GSTIN) has no VAT check digits to check.
    assert vat_checksum_ok("27AAPFU0939F1ZV") is None


def test_a_vat_id_with_valid_check_digits_wins_over_one_printed_first() -> None:
    values = _fields(
        [
            (0.05, 0.05, "Invoice No: A-17"),
            (0.05, 0.60, "DE136695977"),
            (0.05, 0.62, "DE136695976"),
        ]
    )
    assert values["vat_id"] == "DE136695976"


def test_a_vat_id_failing_its_check_digits_is_reported_low_with_a_warning() -> None:
    result = _invoice([(0.05, 0.05, "Invoice No: A-17"), (0.05, 0.60, "VAT ID: DE136695977")])
    assert result.fields["vat_id"].value == "DE136695977"
    assert result.fields["vat_id"].confidence <= 0.3
    assert any(w.startswith("vat_id:") for w in result.warnings)


def test_candidates_are_ordered_valid_then_unchecked_then_failing() -> None:
    ids = ["DE136695977", "27AAPFU0939F1ZV", "DE136695976"]
    assert by_checksum(ids, vat_checksum_ok) == ["DE136695976", "27AAPFU0939F1ZV", "DE136695977"]


# (a) arithmetic agreement


def test_amounts_agree_within_a_cent_and_lines_within_a_cent_each() -> None:
    assert amounts_agree(Decimal("100.00"), Decimal("19.00"), Decimal("119.01"))
    assert not amounts_agree(Decimal("100.00"), Decimal("19.00"), Decimal("119.50"))
    assert amounts_agree(Decimal("100"), Decimal("19"), Decimal("109"), Decimal("-10"))
    assert lines_agree([Decimal("33.33"), Decimal("33.33"), Decimal("33.33")], Decimal("100.00"))
    assert not lines_agree([Decimal("50.00"), Decimal("40.00")], Decimal("100.00"))


def test_amounts_that_do_not_agree_are_flagged_and_named() -> None:
    result = _invoice(
        [
            (0.05, 0.05, "Invoice No: A-17"),
            (0.60, 0.40, "Subtotal"), (0.80, 0.40, "100.00"),
            (0.60, 0.42, "VAT"), (0.80, 0.42, "19.00"),
            (0.60, 0.44, "Total"), (0.80, 0.44, "129.00"),
        ]
    )  # fmt: skip
    for name in ("subtotal", "tax", "total"):
        assert result.fields[name].confidence <= 0.3, name
    assert any(w.startswith("subtotal, tax, total:") for w in result.warnings)


def test_the_one_assignment_that_agrees_is_preferred_over_the_stronger_label() -> None:
    values = _fields(
        [
            (0.05, 0.05, "Invoice No: A-17"),
            (0.60, 0.40, "Subtotal"), (0.80, 0.40, "100.00"),
            (0.60, 0.42, "VAT"), (0.80, 0.42, "19.00"),
            (0.60, 0.44, "Total"), (0.80, 0.44, "150.00"),
            (0.60, 0.46, "Amount due"), (0.80, 0.46, "119.00"),
        ]
    )  # fmt: skip
    assert values["total"] == "119.00"


def test_line_items_that_do_not_sum_to_the_subtotal_are_flagged() -> None:
    result = _invoice(
        [
            (0.05, 0.05, "Invoice No: A-17"),
            (0.05, 0.30, "Description"), (0.50, 0.30, "Qty"), (0.62, 0.30, "Unit price"),
            (0.80, 0.30, "Amount"),
            (0.05, 0.32, "Widgets"), (0.50, 0.32, "2"), (0.62, 0.32, "20.00"),
            (0.80, 0.32, "40.00"),
            (0.60, 0.40, "Subtotal"), (0.80, 0.40, "100.00"),
            (0.60, 0.42, "VAT"), (0.80, 0.42, "19.00"),
            (0.60, 0.44, "Total"), (0.80, 0.44, "119.00"),
        ]
    )  # fmt: skip
    assert result.fields["total"].value == "119.00"
    assert any(w.startswith("line_items:") for w in result.warnings)


def test_a_stamp_printed_above_a_receipt_s_merchant_is_not_the_merchant() -> None:
    rows = ["DUPLICATE", "KEDAI RUNCIT MAJU", "12 JALAN BESAR", "BREAD 2.50", "TOTAL 2.50"]
    lines = tuple(
        Line(words=tuple(_words(text, 0.03 * index + 0.02)), page=1)
        for index, text in enumerate(rows)
    )
    page = Page(number=1, lines=lines, source="text", width=400, height=900)
    document = Document(mime_type="image/png", content=b"", pages=(page,))
    company = extract_fields("receipt", document, day_first=True).fields["company"]
    assert company.value == "KEDAI RUNCIT MAJU"
    assert all(r.value != "DUPLICATE" for r in company.alternatives)


def _words(text: str, y: float) -> list[Word]:
    out, x = [], 0.1
    for part in text.split():
        width = 0.02 * len(part)
        out.append(Word(text=part, page=1, bbox=(x, y, x + width, y + 0.02)))
        x += width + 0.01
    return out
