"""Pure tests of the built-in PDF documents: invoice maths, formatting, fragments (no browser)."""

from __future__ import annotations

import re
from decimal import Decimal
from html.parser import HTMLParser

import attrs
import pytest

from renderkit.pdf._templates import (
    DEFAULT_BRAND_COLOR,
    TEMPLATES,
    RenderedDocument,
    brand_palette,
    format_document_date,
    format_money,
    invoice_totals,
    paragraphs,
    pdf_css,
    render_document,
)

LOGO = "https://cdn.test/logo.png"
SIGNATURE = "https://cdn.test/signature.png"

FULL: dict[str, dict[str, object]] = {
    "invoice": {
        "company_name": "Northwind Studio Ltd",
        "company_address": "12 Wharf Street\nLondon SE1 2AB",
        "company_email": "billing@northwind.test",
        "company_logo": LOGO,
        "client_name": "Acme Corporation",
        "client_address": "500 Market Street\nSan Francisco, CA 94105",
        "client_email": "ap@acme.test",
        "invoice_number": "INV-0042",
        "invoice_date": "2026-11-22",
        "due_date": "2026-12-22",
        "currency": "USD",
        "line_items": [
            {"description": "Design workshop", "quantity": 2, "unit_price": 1850},
            {"description": "Hosting, monthly", "quantity": 12, "unit_price": 49.5},
        ],
        "tax_rate": 8.25,
        "discount": 100,
        "notes": "Pay within 30 days.\n\nThank you!",
        "brand_color": "#0f766e",
    },
    "certificate": {
        "recipient_name": "Amelia Rodríguez",
        "title": "Certificate of Achievement",
        "course_name": "Advanced Data Visualisation",
        "issued_by": "Northwind Academy",
        "issued_date": "2026-11-22",
        "signatory_name": "Dr. Jonathan Hale",
        "signatory_title": "Director of Learning",
        "description": "For completing 40 hours of instruction.",
        "brand_color": "#1e3a8a",
        "logo_url": LOGO,
        "signature_url": SIGNATURE,
    },
    "report": {
        "title": "Quarterly Business Review",
        "subtitle": "Q3 2026",
        "author": "Priya Natarajan",
        "date": "2026-10-14",
        "company_name": "Northwind Studio",
        "logo_url": LOGO,
        "brand_color": "teal",
        "sections": [
            {
                "heading": "Summary",
                "body": "Revenue grew.\n\nMargins too.",
                "bullets": ["MRR up 18%", "Churn down"],
            },
            {"heading": "Outlook", "body": "Steady.", "bullets": []},
        ],
    },
    "letter": {
        "sender_name": "Eleanor Whitfield",
        "sender_address": "12 Wharf Street\nLondon",
        "sender_email": "eleanor@northwind.test",
        "recipient_name": "David Chen",
        "recipient_title": "Head of Procurement",
        "recipient_company": "Acme Corporation",
        "recipient_address": "500 Market Street\nSan Francisco",
        "date": "2026-11-22",
        "subject": "Design retainer",
        "body": "Dear David,\n\nThank you for meeting us.\n\nBest,\nEleanor",
        "closing": "Kind regards",
        "company_name": "Northwind Studio",
        "logo_url": LOGO,
        "brand_color": "rgb(55, 48, 163)",
    },
}

VOID = {"img", "br", "hr", "meta", "input"}


class _Tree(HTMLParser):
    """Collects elements with their attributes and text content; checks nesting."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[dict] = []
        self.elements: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = {"tag": tag, "attrs": dict(attrs), "text": "", "children": 0}
        if self.stack:
            self.stack[-1]["children"] += 1
        self.elements.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        element = self.stack.pop()
        assert element["tag"] == tag, f"mismatched </{tag}>"
        if self.stack:
            self.stack[-1]["text"] += element["text"]

    def handle_data(self, data: str) -> None:
        if self.stack:
            self.stack[-1]["text"] += data


def parse(fragment: str) -> _Tree:
    tree = _Tree()
    tree.feed(fragment)
    tree.close()
    assert not tree.stack, "unclosed elements"
    return tree


def text_of(fragment: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", fragment).split())


# Elements that are empty on purpose: the root of an empty document, ornaments, the
# certificate's layout columns and middle, and table cells.
DECORATIVE = re.compile(r"^rkd\s|cert-(corner|divider|seal|line|col|main)|inv-desc")


def empty_elements(fragment: str) -> list[dict]:
    return [
        e
        for e in parse(fragment).elements
        if e["tag"] not in VOID
        and not e["text"].strip()
        and not e["children"]
        and not DECORATIVE.search(e["attrs"].get("class") or "")
    ]


# --------------------------------------------------------------------------------------------
# Invoice maths


def test_line_totals_round_half_up_to_the_cent() -> None:
    totals = invoice_totals(
        [{"description": "Widget", "quantity": 3, "unit_price": 0.335}],
        currency="USD",
        tax_rate=None,
        discount=None,
    )
    # 3 x 0.335 = 1.005: half-up gives 1.01 (banker's rounding or binary floats give 1.00)
    assert totals.lines[0].total == Decimal("1.01")
    assert totals.subtotal == Decimal("1.01")
    assert totals.total == Decimal("1.01")
    assert totals.precision == 2


def test_yen_amounts_are_rounded_to_whole_yen() -> None:
    totals = invoice_totals(
        [{"quantity": 3, "unit_price": 1980.5}, {"quantity": 1, "unit_price": 0.4}],
        currency="JPY",
        tax_rate=10,
        discount=None,
    )
    assert totals.precision == 0
    assert [line.total for line in totals.lines] == [Decimal("5942"), Decimal("0")]
    assert totals.subtotal == Decimal("5942")
    assert totals.tax == Decimal("594")  # 594.2
    assert totals.total == Decimal("6536")
    assert format_money(totals.total, "JPY") == "¥6,536"


def test_tax_is_charged_on_the_discounted_subtotal() -> None:
    totals = invoice_totals(
        [{"description": "Plan", "quantity": 1, "unit_price": 99.99}],
        currency="USD",
        tax_rate=10,
        discount=5.00,
    )
    assert totals.subtotal == Decimal("99.99")
    assert totals.discount == Decimal("5.00")
    assert totals.tax == Decimal("9.50")  # 94.99 x 10% = 9.499
    assert totals.total == Decimal("104.49")


def test_a_discount_larger_than_the_subtotal_is_capped_at_the_subtotal() -> None:
    totals = invoice_totals(
        [{"quantity": 2, "unit_price": 25}],
        currency="USD",
        tax_rate=20,
        discount=80,
    )
    assert totals.discount == Decimal("50.00")
    assert totals.tax == Decimal("0.00")
    assert totals.total == Decimal("0.00")


def test_three_decimal_currencies_keep_three_decimals() -> None:
    totals = invoice_totals(
        [{"quantity": 3, "unit_price": 0.3335}], currency="BHD", tax_rate=None, discount=None
    )
    assert totals.precision == 3
    assert totals.total == Decimal("1.001")  # 1.0005 half-up


def test_float_prices_are_read_through_their_decimal_text() -> None:
    totals = invoice_totals(
        [{"quantity": 0.1, "unit_price": 0.7}, {"quantity": 3, "unit_price": 0.1}],
        currency="EUR",
        tax_rate=None,
        discount=None,
    )
    assert [line.total for line in totals.lines] == [Decimal("0.07"), Decimal("0.30")]


def test_missing_quantity_counts_as_one_and_missing_price_as_zero() -> None:
    totals = invoice_totals(
        [{"description": "Setup", "unit_price": 10}, {"description": "Free"}],
        currency="USD",
        tax_rate=None,
        discount=None,
    )
    assert [line.total for line in totals.lines] == [Decimal("10.00"), Decimal("0.00")]


def test_line_items_may_be_attrs_objects() -> None:
    @attrs.frozen
    class Item:
        description: str
        quantity: float
        unit_price: float

    totals = invoice_totals([Item("Hours", 2.5, 120)], currency="usd", tax_rate=None, discount=None)
    assert totals.currency == "USD"
    assert totals.total == Decimal("300.00")


def test_an_unknown_currency_is_rejected() -> None:
    with pytest.raises(ValueError, match="currency"):
        invoice_totals([], currency="XYZ", tax_rate=None, discount=None)


@pytest.mark.parametrize("bad", ["three", float("nan"), float("inf"), True])
def test_a_non_numeric_amount_is_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="line_items"):
        invoice_totals(
            [{"quantity": bad, "unit_price": 1}], currency="USD", tax_rate=None, discount=None
        )


def test_an_empty_invoice_totals_zero() -> None:
    totals = invoice_totals([], currency="USD", tax_rate=10, discount=5)
    assert (totals.subtotal, totals.discount, totals.tax, totals.total) == (
        Decimal("0.00"),
        Decimal("0"),
        Decimal("0.00"),
        Decimal("0.00"),
    )


# --------------------------------------------------------------------------------------------
# Formatting


@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        (Decimal("1234.5"), "USD", "$1,234.50"),
        (Decimal("1235"), "JPY", "¥1,235"),
        (Decimal("12"), "EUR", "€12.00"),
        (Decimal("3.1"), "GBP", "£3.10"),
        (Decimal("-5"), "USD", "\u2212$5.00"),
        (Decimal("1.5"), "BHD", "BHD1.500"),
    ],
)
def test_money_is_formatted_in_each_currencys_style(
    amount: Decimal, currency: str, expected: str
) -> None:
    assert format_money(amount, currency) == expected


def test_unit_prices_keep_digits_beyond_the_minor_unit() -> None:
    assert format_money(Decimal("0.335"), "USD", exact=True) == "$0.335"
    assert format_money(Decimal("49.5"), "USD", exact=True) == "$49.50"


def test_an_invoice_shows_line_totals_and_totals_in_its_currency() -> None:
    data = {
        "currency": "EUR",
        "line_items": [{"description": "Consulting", "quantity": 3, "unit_price": 0.335}],
        "tax_rate": 20,
        "discount": 0.5,
    }
    text = text_of(render_document("invoice", data).body)
    assert "€0.335" in text  # unit price as given
    assert "€1.01" in text  # line total and subtotal
    assert "Discount \u2212€0.50" in text  # a minus sign, not a hyphen
    assert "Tax (20%) €0.10" in text  # (1.01 - 0.50) x 20% = 0.102
    assert "Total EUR €0.61" in text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-22", "22 November 2026"),
        ("2026-01-05", "5 January 2026"),
        ("  2026-11-22 ", "22 November 2026"),
        ("22/11/2026", "22/11/2026"),
        ("End of month", "End of month"),
        ("2026-02-30", "2026-02-30"),
        ("", None),
        (None, None),
    ],
)
def test_iso_dates_are_written_out_and_other_dates_shown_as_given(
    value: str | None, expected: str | None
) -> None:
    assert format_document_date(value) == expected


def test_paragraphs_split_on_blank_lines_and_keep_single_line_breaks() -> None:
    text = "Dear David,\n\nFirst line\nsecond line\n   \n\nLast.\r\n\r\nBest,\r\nEleanor\n"
    assert paragraphs(text) == [
        ["Dear David,"],
        ["First line", "second line"],
        ["Last."],
        ["Best,", "Eleanor"],
    ]
    assert paragraphs("   ") == []
    assert paragraphs(None) == []


def test_letter_paragraphs_become_p_elements_with_br_for_single_newlines() -> None:
    body = render_document("letter", {"body": "One\n\nTwo\nthree\n\n\nFour"}).body
    assert re.findall(r"<p dir=\"auto\">(.*?)</p>", body) == ["One", "Two<br>three", "Four"]


def test_report_section_bodies_are_split_into_paragraphs() -> None:
    data = {"sections": [{"heading": "A", "body": "First.\n\nSecond.", "bullets": ["x", " "]}]}
    body = render_document("report", data).body
    assert re.findall(r"<p dir=\"auto\">(.*?)</p>", body) == ["First.", "Second."]
    assert re.findall(r"<li dir=\"auto\">(.*?)</li>", body) == ["x"]


# --------------------------------------------------------------------------------------------
# Fragments


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_renders_with_empty_data(template: str) -> None:
    doc = render_document(template, {})
    assert isinstance(doc, RenderedDocument)
    assert doc.body.lstrip().startswith(f'<article class="rkd rkd-{template[:4]}')
    assert empty_elements(doc.body) == []
    assert "None" not in text_of(doc.body)


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_renders_with_none_for_every_field(template: str) -> None:
    doc = render_document(template, dict.fromkeys(FULL[template]))
    assert empty_elements(doc.body) == []
    assert "None" not in text_of(doc.body)


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_renders_all_fields(template: str) -> None:
    doc = render_document(template, FULL[template])
    text = text_of(doc.body)
    for name, value in FULL[template].items():
        if name in ("brand_color", "currency", "tax_rate", "discount", "closing"):
            continue
        if isinstance(value, str) and not value.startswith("https://"):
            first_line = value.split("\n")[0]
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", first_line):
                assert first_line in text, f"{template}.{name} is missing"
    assert empty_elements(doc.body) == []


def test_images_carry_their_field_for_load_error_reports() -> None:
    fields = {
        "invoice": ["data.company_logo"],
        "certificate": ["data.logo_url", "data.signature_url"],
        "report": ["data.logo_url"],
        "letter": ["data.logo_url"],
    }
    for template, expected in fields.items():
        images = [
            e["attrs"]
            for e in parse(render_document(template, FULL[template]).body).elements
            if e["tag"] == "img"
        ]
        assert [img["data-field"] for img in images] == expected
        assert all(img["src"].startswith("https://cdn.test/") for img in images)


@pytest.mark.parametrize("template", TEMPLATES)
def test_html_in_the_data_is_escaped(template: str) -> None:
    evil = '<script>alert("x")</script><b onclick=1>&amp;'
    data = {
        name: evil if isinstance(value, str) and name != "brand_color" else value
        for name, value in FULL[template].items()
    }
    data.pop("currency", None)
    if template == "invoice":
        data["line_items"] = [{"description": evil, "quantity": 1, "unit_price": 1}]
    if template == "report":
        data["sections"] = [{"heading": evil, "body": evil, "bullets": [evil]}]
    doc = render_document(template, data)
    assert "<script" not in doc.body
    assert "<b " not in doc.body
    assert "&lt;script&gt;" in doc.body
    assert "&amp;amp;" in doc.body
    for element in parse(doc.body).elements:
        assert not any(name.startswith("on") for name in element["attrs"])
    if doc.footer_template:
        assert "<script" not in doc.footer_template


def test_an_image_url_cannot_break_out_of_its_attribute() -> None:
    body = render_document("letter", {"logo_url": 'https://x.test/a.png" onerror="alert(1)'}).body
    (img,) = [e for e in parse(body).elements if e["tag"] == "img"]
    assert img["attrs"]["src"] == 'https://x.test/a.png" onerror="alert(1)'
    assert "onerror" not in img["attrs"]


def test_an_invoice_without_optional_fields_prints_no_empty_labelled_rows() -> None:
    body = render_document(
        "invoice", {"line_items": [{"description": "Item", "quantity": 1, "unit_price": 5}]}
    ).body
    text = text_of(body)
    for label in ("Bill to", "Due date", "Invoice date", "Discount", "Tax", "Notes", "No.", "by "):
        assert label not in text
    assert "Subtotal $5.00" in text
    assert "Total USD $5.00" in text
    assert "<img" not in body


def test_an_invoice_without_line_items_has_no_items_table() -> None:
    body = render_document("invoice", {"company_name": "Northwind"}).body
    assert "inv-items" not in body
    assert "Total USD $0.00" in text_of(body)


def test_a_due_date_that_is_not_a_date_is_not_read_as_by_a_date() -> None:
    text = text_of(render_document("invoice", {"due_date": "End of month"}).body)
    assert "Due date End of month" in text
    assert "by End of month" not in text
    text = text_of(render_document("invoice", {"due_date": "2026-12-22"}).body)
    assert "by 22 December 2026" in text


def test_a_zero_tax_rate_and_zero_discount_print_no_rows() -> None:
    text = text_of(
        render_document(
            "invoice",
            {"line_items": [{"quantity": 1, "unit_price": 5}], "tax_rate": 0, "discount": 0},
        ).body
    )
    assert "Tax" not in text
    assert "Discount" not in text


def test_a_certificate_without_optional_fields_prints_no_dangling_lines() -> None:
    text = text_of(render_document("certificate", {}).body)
    assert text == "Certificate of Completion"
    text = text_of(render_document("certificate", {"recipient_name": "Ada"}).body)
    assert text == "Certificate of Completion This is to certify that Ada"


def test_a_certificate_issuer_without_a_date_is_labelled_as_the_issuer() -> None:
    text = text_of(render_document("certificate", {"issued_by": "Northwind Academy"}).body)
    assert "Northwind Academy Issued by" in text
    assert "Date issued" not in text


def test_a_long_certificate_switches_to_the_compact_scale() -> None:
    short = render_document("certificate", FULL["certificate"]).body
    long = render_document(
        "certificate", {**FULL["certificate"], "description": "Many words. " * 30}
    ).body
    assert "cert-compact" not in short
    assert "cert-compact" in long


def test_a_report_without_optional_fields_prints_no_title_area_or_labels() -> None:
    body = render_document("report", {"sections": [{"body": "Just text."}]}).body
    assert "rep-cover" not in body
    assert "Prepared by" not in body
    assert "rep-num" not in body  # a single unnamed section is not numbered
    assert text_of(body) == "Just text."


def test_report_headings_are_numbered_when_there_are_several() -> None:
    text = text_of(render_document("report", FULL["report"]).body)
    assert "01 Summary" in text
    assert "02 Outlook" in text


def test_a_letter_without_optional_fields_prints_no_empty_blocks() -> None:
    body = render_document("letter", {"body": "Hello."}).body
    assert text_of(body) == "Hello. Yours sincerely,"
    for cls in ("let-head", "let-recipient", "let-subject", "let-date", "let-signature"):
        assert cls not in body


def test_a_letter_uses_the_company_or_the_sender_as_letterhead() -> None:
    by_sender = render_document("letter", {"sender_name": "Eleanor"}).body
    assert re.search(r'class="let-name"[^>]*>Eleanor<', by_sender)
    assert "let-signature-org" not in by_sender
    by_company = render_document("letter", FULL["letter"]).body
    assert re.search(r'class="let-name"[^>]*>Northwind Studio<', by_company)


@pytest.mark.parametrize(
    ("closing", "expected"),
    [(None, "Yours sincerely,"), ("Kind regards", "Kind regards,"), ("Cheers!", "Cheers!")],
)
def test_the_closing_gets_its_comma_unless_it_has_punctuation(
    closing: str | None, expected: str
) -> None:
    body = render_document("letter", {"closing": closing, "sender_name": "E"}).body
    assert f">{expected}</p>" in body


# --------------------------------------------------------------------------------------------
# Metadata, page furniture, colours


def test_metadata_follows_each_template() -> None:
    invoice = render_document("invoice", FULL["invoice"])
    assert (invoice.title, invoice.author) == ("Invoice INV-0042", "Northwind Studio Ltd")
    assert invoice.subject == "Invoice for Acme Corporation"
    report = render_document("report", FULL["report"])
    assert (report.title, report.author, report.subject) == (
        "Quarterly Business Review",
        "Priya Natarajan",
        "Q3 2026",
    )
    letter = render_document("letter", FULL["letter"])
    assert (letter.title, letter.author, letter.subject) == (
        "Design retainer",
        "Eleanor Whitfield",
        "Design retainer",
    )
    cert = render_document("certificate", FULL["certificate"])
    assert cert.title == "Certificate of Achievement — Amelia Rodríguez"
    assert cert.author == "Northwind Academy"
    assert cert.subject == "Advanced Data Visualisation"
    empty = render_document("invoice", {})
    assert (empty.title, empty.author, empty.subject) == ("Invoice", None, None)


def test_only_the_certificate_forces_landscape() -> None:
    assert [render_document(t, {}).force_landscape for t in TEMPLATES] == [
        False,
        True,
        False,
        False,
    ]


@pytest.mark.parametrize("template", ["invoice", "report"])
def test_paged_documents_number_their_pages_in_the_footer(template: str) -> None:
    doc = render_document(template, FULL[template])
    assert doc.footer_template is not None
    assert 'Page <span class="pageNumber"></span> of <span class="totalPages"></span>' in (
        doc.footer_template
    )
    assert "font-size: 9px" in doc.footer_template
    # a local TrueType family: the installed Inter is CFF, which prints as Type 3 glyphs
    assert "'Noto Sans'" in doc.footer_template
    assert "Inter" not in doc.footer_template
    assert doc.header_template is None  # no header: the top margin stays as requested


def test_the_footer_escapes_and_shortens_the_title() -> None:
    doc = render_document("report", {"title": "<b>Big</b> & " + "x" * 200})
    assert doc.footer_template is not None
    assert "&lt;b&gt;Big&lt;/b&gt; &amp; " in doc.footer_template
    assert "x" * 100 not in doc.footer_template


@pytest.mark.parametrize("template", ["certificate", "letter"])
def test_single_sheet_documents_have_no_header_or_footer(template: str) -> None:
    doc = render_document(template, FULL[template])
    assert (doc.header_template, doc.footer_template) == (None, None)


def test_the_brand_colour_only_reaches_css_custom_properties() -> None:
    body = render_document("invoice", {"brand_color": "#0f766e"}).body
    (root,) = [e for e in parse(body).elements if e["tag"] == "article"]
    style = root["attrs"]["style"]
    assert "--rk-brand: #0f766e" in style
    assert re.fullmatch(r"(--rk-[a-z-]+: #[0-9a-f]{6}(; )?)+", style)


def test_the_default_brand_colour_is_used_when_none_is_given() -> None:
    assert brand_palette(None)["--rk-brand"] == DEFAULT_BRAND_COLOR
    assert brand_palette("  ")["--rk-brand"] == DEFAULT_BRAND_COLOR


def test_a_light_brand_colour_gets_dark_ink_and_dark_text_on_fills() -> None:
    palette = brand_palette("#facc15")
    assert palette["--rk-brand"] == "#facc15"
    assert palette["--rk-brand-fg"] == "#000000"
    ink = palette["--rk-brand-ink"]
    assert ink != "#facc15"
    assert int(ink[1:3], 16) < 0x90  # darkened enough to read on white


@pytest.mark.parametrize("color", ["red; background: url(x)", "expression(alert(1))", "nope"])
def test_a_colour_that_is_not_a_colour_is_rejected(color: str) -> None:
    with pytest.raises(ValueError, match="brand_color"):
        render_document("letter", {"brand_color": color})


def test_an_unknown_template_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown PDF template"):
        render_document("custom", {})


def test_the_stylesheet_prints_backgrounds_and_breaks_tables_cleanly() -> None:
    css = re.sub(r"/\*.*?\*/", "", pdf_css(), flags=re.DOTALL)
    assert "-webkit-print-color-adjust: exact" in css
    assert re.search(r"thead\s*{\s*display: table-header-group", css)
    assert re.search(r"\.inv-items > tbody > tr\s*{\s*break-inside: avoid", css)
    assert re.search(r"\.inv-tail\s*{\s*break-inside: avoid", css)
    assert re.search(r"\.inv-summary\s*{[^}]*break-inside: avoid", css)
    assert '"Inter", "Noto Sans", "Noto Sans CJK SC", "Noto Color Emoji", sans-serif' in css
    assert "@page" not in css
    assert "url(" not in css
    assert "@import" not in css
    assert not re.search(r"filter|blur\(|shadow", css)  # raster-cheap
