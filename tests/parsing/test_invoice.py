from renderkit.parsing._protocol import Document, Line, Page, Word
from renderkit.parsing.invoice import invoice_fields
from renderkit.parsing.layout import build_layout


def _page(cells: list[tuple[float, float, str]]) -> Page:
    """A page of words at (x, y) fractions; each string is split into words 0.012 apart."""
    lines = []
    for x, y, text in cells:
        words = []
        for part in text.split():
            width = 0.009 * len(part)
            words.append(Word(text=part, page=1, bbox=(x, y, x + width, y + 0.012)))
            x += width + 0.006
        lines.append(Line(words=tuple(words), page=1))
    return Page(number=1, lines=tuple(lines), source="text", width=600, height=800)


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
        (0.05, 0.60, "IBAN DE08 7009 0100 1234 5678 90 VAT ID DE123456789"),
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
    assert values["vat_id"] == "DE123456789"
    assert values["line_items"] == [
        {"description": "Consulting", "quantity": 1.5, "unit_price": 1200.0, "amount": 1800.0}
    ]
    assert result.fields["total"].confidence >= 0.9
    assert result.warnings == ()
