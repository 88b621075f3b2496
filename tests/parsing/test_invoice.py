from renderkit.parsing._protocol import Document, Page
from renderkit.parsing.extract.invoice import invoice_fields, invoice_issuer_candidates
from renderkit.parsing.layout.model import build_layout

from ._pages import page


def _page(cells: list[tuple[float, float, str]]) -> Page:
    """A page of words at (x, y) fractions; each string is split into words 0.012 apart."""
    return page(cells)


PAGE = _page(
    [
        (0.05, 0.05, "Supplier Trading GmbH"),
        (0.60, 0.05, "Invoice No: INV-2024-17"),
        (0.60, 0.07, "Invoice date: 03.03.2024"),
        (0.60, 0.09, "Due date: 02.04.2024"),
        (0.05, 0.15, "Bill to:"),
        (0.05, 0.17, "Contoso Ltd"),
        (0.05, 0.30, "Description"), (0.50, 0.30, "Qty"), (0.62, 0.30, "Unit price"),
        (0.80, 0.30, "Amount"),
        (0.05, 0.32, "Consulting"), (0.50, 0.32, "1,5"), (0.62, 0.32, "1.200,00"),
        (0.80, 0.32, "1.800,00"),
        (0.60, 0.40, "Subtotal"), (0.80, 0.40, "1.800,00"),
        (0.60, 0.42, "VAT 19 %"), (0.80, 0.42, "342,00"),
        (0.60, 0.44, "Total"), (0.80, 0.44, "2.142,00 EUR"),
        (0.05, 0.60, "IBAN DE08 7009 0100 1234 5678 90 VAT ID DE136695976"),
    ]
)  # fmt: skip


def test_rows_are_cut_into_segments_at_wide_gaps() -> None:
    layout = build_layout(PAGE)
    row = next(r for r in layout.rows if "Subtotal" in r.text)
    assert [s.text for s in row.segments] == ["Subtotal", "1.800,00"]


def test_invoice_fields_come_from_labels_tables_and_checked_arithmetic() -> None:
    document = Document(mime_type="application/pdf", content=b"", pages=(PAGE,))
    result = invoice_fields(document)
    values = {name: found.value for name, found in result.fields.items()}
    assert values["number"] == "INV-2024-17"
    assert values["date"] == "2024-03-03"
    assert values["due_date"] == "2024-04-02"
    assert values["customer"] == "Contoso Ltd"
    assert values["company"] == "Supplier Trading GmbH"
    assert (values["subtotal"], values["tax"], values["total"]) == ("1800.00", "342.00", "2142.00")
    assert values["iban"] == "DE08700901001234567890"
    assert values["vat_id"] == "DE136695976"
    assert values["line_items"] == [
        {"description": "Consulting", "quantity": 1.5, "unit_price": 1200.0, "amount": 1800.0}
    ]
    assert result.fields["total"].confidence >= 0.9
    assert result.warnings == ()


def _fields(cells: list[tuple[float, float, str]]) -> dict[str, object]:
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    return {name: found.value for name, found in invoice_fields(document).fields.items()}


def test_the_issuer_is_the_name_in_the_seller_block_not_its_label_nor_the_buyer() -> None:
    values = _fields(
        [
            (0.05, 0.05, "Rechnung Nr. RE-42 vom 03.03.2024"),
            (0.05, 0.15, "Verkäufer"),
            (0.05, 0.17, "Nummer:"), (0.40, 0.17, "5511"),
            (0.05, 0.19, "Name:"), (0.40, 0.19, "Holzbau Kramer GmbH"),
            (0.05, 0.21, "USt-IdNr.:"), (0.40, 0.21, "DE136695976"),
            (0.05, 0.30, "Käufer"),
            (0.05, 0.32, "Nummer:"), (0.40, 0.32, "7788"),
            (0.05, 0.34, "Name:"), (0.40, 0.34, "Bäckerei Sommer KG"),
            (0.05, 0.36, "USt-IdNr.:"), (0.40, 0.36, "DE234567890"),
        ]
    )  # fmt: skip
    assert values["company"] == "Holzbau Kramer GmbH"
    assert values["customer"] == "Bäckerei Sommer KG"
    assert values["vat_id"] == "DE136695976"
    # The numbers in the party blocks are the parties', the title's is the invoice's.
    assert values["number"] == "RE-42"


def test_a_compound_title_word_gives_the_invoice_number() -> None:
    values = _fields([(0.05, 0.05, "Handelsrechnung (380) Nr. E2024-0815 vom 03.03.2024")])
    assert values["number"] == "E2024-0815"


def test_a_longer_label_ending_in_a_colon_is_not_the_invoice_number() -> None:
    values = _fields(
        [
            (0.50, 0.05, "FACTURE N° :"), (0.80, 0.05, "F2024001"),
            (0.05, 0.20, "N° DE CLIENT : CLI-77"),
            (0.05, 0.22, "N° DE FACTURE ASSOCIÉE : F2023999"),
        ]
    )  # fmt: skip
    assert values["number"] == "F2024001"


def test_the_buyer_vat_id_is_not_the_seller_s() -> None:
    values = _fields(
        [
            (0.05, 0.05, "Invoice INV-9"),
            (0.05, 0.10, "Your VAT ID: DE234567890"),
            (0.05, 0.60, "Our VAT ID: DE136695976"),
        ]
    )
    assert values["vat_id"] == "DE136695976"


def test_the_due_date_follows_from_payment_terms_in_days() -> None:
    for terms in ("Payable within 30 days", "Zahlbar innerhalb 30 Tagen", "Paiement à 30 jours"):
        values = _fields([(0.05, 0.05, "Invoice date: 01.03.2024"), (0.05, 0.50, terms)])
        assert values["due_date"] == "2024-03-31", terms


def test_no_total_is_made_up_from_a_tax_as_large_as_the_subtotal() -> None:
    # invoice._totals: with no total read, subtotal + tax was reported as the total even when
    # the "tax" was the subtotal read twice (no rate reaches 100 %).
    values = _fields(
        [
            (0.05, 0.05, "Invoice INV-9"),
            (0.50, 0.40, "Net amount"), (0.80, 0.40, "1,000.00"),
            (0.50, 0.42, "VAT"), (0.80, 0.42, "1,000.00"),
        ]
    )  # fmt: skip
    assert "total" not in values
    values = _fields(
        [
            (0.05, 0.05, "Invoice INV-9"),
            (0.50, 0.40, "Net amount"), (0.80, 0.40, "1,000.00"),
            (0.50, 0.42, "VAT"), (0.80, 0.42, "200.00"),
        ]
    )  # fmt: skip
    assert values["total"] == "1200.00"


def test_a_net_amount_is_no_payment_term_in_days() -> None:
    # lexicons._days_pattern: "net {n}" read "Net £16,232.69" as "net 16", a due date 16 days
    # after the issue date on an invoice that prints none.
    for net in ("Net £16,232.69", "Net 16 232,69 €", "Net 1,234.56"):
        values = _fields([(0.05, 0.05, "Invoice date: 01.03.2024"), (0.50, 0.50, net)])
        assert "due_date" not in values, net
    values = _fields([(0.05, 0.05, "Invoice date: 01.03.2024"), (0.05, 0.50, "Terms: Net 30")])
    assert values["due_date"] == "2024-03-31"


def test_a_net_column_over_the_first_rows_number_is_no_payment_term() -> None:
    # "Net" ends the table's last column header; the row under it opens with its position, 1:
    # read as "net 1", the due date was the day after the issue date.
    cells = [
        (0.05, 0.05, "Invoice date: 01.03.2024"),
        (0.05, 0.30, "Pos"), (0.40, 0.30, "Article"), (0.80, 0.30, "Amount net"),
        (0.05, 0.32, "1"), (0.40, 0.32, "Office chair"), (0.80, 0.32, "120.00"),
    ]  # fmt: skip
    assert "due_date" not in _fields(cells)
    # A longer phrase may still wrap onto the figure's line.
    wrapped = [cells[0], (0.05, 0.50, "Payable within"), (0.05, 0.52, "14 days")]
    assert _fields(wrapped)["due_date"] == "2024-03-15"


def test_a_labelled_iban_failing_its_checksum_is_reported_low_with_a_warning() -> None:
    cells = [(0.05, 0.05, "Invoice INV-9"), (0.05, 0.60, "IBAN: DE12 1234 5678 9012 3456 78")]
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    result = invoice_fields(document)
    assert result.fields["iban"].value == "DE12123456789012345678"
    assert result.fields["iban"].confidence <= 0.3
    assert any("checksum" in w for w in result.warnings)


def test_a_valid_iban_is_reported_confidently_without_a_warning() -> None:
    cells = [(0.05, 0.05, "Invoice INV-9"), (0.05, 0.60, "IBAN: DE08 7009 0100 1234 5678 90")]
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    result = invoice_fields(document)
    assert result.fields["iban"].value == "DE08700901001234567890"
    assert result.fields["iban"].confidence >= 0.9
    assert result.warnings == ()


def test_an_iban_wrapped_in_its_table_cell_is_read_whole_from_its_column() -> None:
    # A bank-details table: the IBAN column wraps its value, and the next column's number sits
    # on the row between its two parts.
    cells = [
        (0.05, 0.05, "Invoice INV-9"),
        (0.05, 0.80, "Bank"), (0.40, 0.80, "IBAN"), (0.75, 0.80, "Account"),
        (0.05, 0.82, "Example Bank"), (0.40, 0.82, "DE89 3704 0044 0532"), (0.75, 0.82, "555-0100"),
        (0.40, 0.84, "0130 00"),
    ]  # fmt: skip
    assert _fields(cells)["iban"] == "DE89370400440532013000"
    # Lines that only pass the checksum when joined, of a country whose length is unknown,
    # are no IBAN ("QX52 3456 7890 1234 56" passes mod 97, but no country has that length).
    cells[5:] = [(0.40, 0.82, "QX52 3456 7890 1234"), (0.75, 0.82, "555-0100"), (0.40, 0.84, "56")]
    # (the labelled cell is still reported as a misread, capped, with its warning).
    assert _fields(cells).get("iban") != "QX5234567890123456"


def test_an_iban_its_footer_column_wrapped_is_finished_from_the_next_column_s_line() -> None:
    # A letter's foot in narrow columns: the IBAN's last groups wrapped under its label, and
    # OCR read them into the line of the contacts column beside them.
    cells = [
        (0.05, 0.05, "Invoice INV-9"),
        (0.05, 0.80, "Voramek GmbH"), (0.22, 0.80, "Tel. 089 950 62509"),
        (0.42, 0.80, "IBAN: DE89 3704 0044 0532"), (0.75, 0.80, "USt-IdNr."),
        (0.05, 0.82, "Hauptstr. 5"), (0.22, 0.82, "office@voramek.de 0130 00"),
        (0.75, 0.82, "DE136695976"),
    ]  # fmt: skip
    assert _fields(cells)["iban"] == "DE89370400440532013000"
    # Groups that do not make its checksum pass are no part of it: the misread is reported.
    cells[6] = (0.22, 0.82, "office@voramek.de 0131 00")
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    result = invoice_fields(document)
    assert result.fields["iban"].value == "DE89370400440532"
    assert result.fields["iban"].confidence < 0.5
    # Groups below that do not reach under the label are another column's.
    cells[6] = (0.22, 0.82, "0130 00")
    assert _fields(cells)["iban"] != "DE89370400440532013000"


def test_a_bank_named_beside_the_sellers_iban_is_not_the_seller_wherever_it_stands() -> None:
    # A letter whose seller's name is small in the return line, while the foot names the bank
    # with a legal form in the IBAN's column: the block that would vouch for the seller.
    for bank in ("Volksbank Kestrel eG", "Bank: Kestrel Savings Bank plc", "Caixa Kestrel S.A."):
        cells = [
            (0.05, 0.05, "Logistik an der Kias GbR · Hauptstr. 5 · 10115 Berlin"),
            (0.05, 0.08, "Harzunteik OHG"), (0.60, 0.08, "Rechnung Nr: RE-1001"),
            (0.05, 0.10, "Nikweg 84"), (0.60, 0.10, "Datum: 03.03.2024"),
            (0.05, 0.30, "Beschreibung"), (0.80, 0.30, "Betrag"),
            (0.05, 0.32, "Beratung"), (0.80, 0.32, "1.800,00"),
            (0.60, 0.40, "Gesamt"), (0.80, 0.40, "1.800,00 EUR"),
            (0.05, 0.80, "Logistik an der Kias GbR"), (0.42, 0.80, bank),
            (0.42, 0.82, "IBAN: DE89 3704 0044 0532 0130 00"), (0.05, 0.82, "Hauptstr. 5"),
        ]  # fmt: skip
        assert _fields(cells)["company"] == "Logistik an der Kias GbR", bank
    # A bank's own invoice still names it: its name stands apart from the account too.
    cells[0] = (0.05, 0.05, "Volksbank Kestrel eG · Hauptstr. 5 · 10115 Berlin")
    cells[11] = (0.05, 0.80, "Volksbank Kestrel eG")
    cells[12] = (0.42, 0.80, "BIC: GENODEF1XXX")
    assert _fields(cells)["company"] == "Volksbank Kestrel eG"


def test_a_word_heading_an_item_column_is_never_the_issuer() -> None:
    # The seller is named only low on the page; the item table's header, high up, holds a
    # column word no lexicon lists ("Gross") beside ones it does.
    cells = [
        (0.05, 0.05, "Tax Invoice"),
        (0.60, 0.08, "Invoice number: DE78419"), (0.60, 0.10, "Invoice date: 21.11.2025"),
        (0.05, 0.20, "Pos"), (0.12, 0.20, "Quantity"), (0.25, 0.20, "Items"),
        (0.55, 0.20, "Unit price"), (0.70, 0.20, "Amount"), (0.88, 0.20, "Gross"),
        (0.05, 0.22, "1"), (0.12, 0.22, "40"), (0.25, 0.22, "Maintenance visit"),
        (0.55, 0.22, "906.58"), (0.70, 0.22, "36,263.20"), (0.88, 0.22, "39,889.52"),
        (0.60, 0.30, "Total"), (0.80, 0.30, "39,889.52"),
        (0.05, 0.90, "The prustial works Pty Limited"), (0.45, 0.90, "ABN: 34 260 050 893"),
    ]  # fmt: skip
    assert _fields(cells)["company"] == "The prustial works Pty Limited"
    document = Document(mime_type="application/pdf", content=b"", pages=(_page(cells),))
    names = [c.value for c in invoice_issuer_candidates(document)[0]]
    assert "The prustial works Pty Limited" in names and "Gross" not in names


def test_an_invoice_number_its_column_wrapped_after_a_hyphen_is_read_whole() -> None:
    cells = [
        (0.05, 0.05, "Fattura"),
        (0.05, 0.10, "Rif. documento: FT-2024-"), (0.55, 0.10, "Spett.le"),
        (0.05, 0.12, "08020"), (0.55, 0.12, "Heindji Forniture S.a.p.a."),
        (0.05, 0.14, "Data: 10.07.2024"),
        (0.60, 0.40, "Totale"), (0.80, 0.40, "3.205,80 EUR"),
    ]  # fmt: skip
    assert _fields(cells)["number"] == "FT-2024-08020"
    # The next row's first text under it is words, not the number's rest.
    cells[3] = (0.05, 0.12, "Ordine 08020")
    assert _fields(cells)["number"] == "FT-2024"


def test_without_a_schema_an_invoice_reports_customer_due_date_and_bank_ids_when_found() -> None:
    from renderkit.parsing import LocalExtractor

    document = Document(mime_type="application/pdf", content=b"", pages=(PAGE,))
    extraction = LocalExtractor().extract_sync(document, schema=None, hints=None)
    assert extraction.document_type == "invoice"
    assert extraction.data["customer"] == "Contoso Ltd"
    assert extraction.data["due_date"] == "2024-04-02"
    assert extraction.data["iban"] == "DE08700901001234567890"
    assert extraction.data["vat_id"] == "DE136695976"


DISCOUNTED = _page(
    [
        (0.05, 0.05, "Supplier Trading GmbH"),
        (0.60, 0.05, "Invoice No: INV-2024-18"),
        (0.05, 0.30, "Description"), (0.50, 0.30, "Qty"), (0.62, 0.30, "Unit price"),
        (0.80, 0.30, "Amount"),
        (0.05, 0.32, "Consulting"), (0.50, 0.32, "2"), (0.62, 0.32, "500.00"),
        (0.80, 0.32, "1,000.00"),
        (0.60, 0.40, "Subtotal"), (0.80, 0.40, "1,000.00"),
        (0.60, 0.42, "Discount"), (0.80, 0.42, "-100.00"),
        (0.60, 0.44, "VAT 20 %"), (0.80, 0.44, "180.00"),
        (0.60, 0.46, "Total"), (0.80, 0.46, "1,080.00"),
    ]
)  # fmt: skip


def test_a_discount_confirmed_by_the_totals_fills_a_discount_property_in_any_language() -> None:
    from renderkit.parsing import LocalExtractor

    document = Document(mime_type="application/pdf", content=b"", pages=(DISCOUNTED,))
    schema = {"type": "object", "properties": {"rabatt": {"type": "number"}}}
    extraction = LocalExtractor().extract_sync(document, schema=schema, hints=None)
    assert extraction.data == {"rabatt": 100.0}
    generic = LocalExtractor().extract_sync(document, schema=None, hints=None)
    assert (generic.data["subtotal"], generic.data["discount"], generic.data["total"]) == (
        1000.0,
        100.0,
        1080.0,
    )
