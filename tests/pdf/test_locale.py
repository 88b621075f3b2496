"""PDF documents in the request's locale: labels, dates, amounts and page direction."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest
from babel.numbers import format_currency, format_decimal, get_minus_sign_symbol

from renderkit import InvalidRequestError, cli
from renderkit.core.converter import structure
from renderkit.pdf import PdfRequest
from renderkit.pdf._locale import LABEL_LANGUAGES, catalogue, document_locale
from renderkit.pdf._templates import (
    TEMPLATES,
    _money_style,
    _quantity,
    format_document_date,
    format_money,
    render_document,
)

NBSP = re.compile(r"[\u00a0\u202f]")


class _Root(HTMLParser):
    """The attributes of the first element (the document's root)."""

    def __init__(self) -> None:
        super().__init__()
        self.attrs: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.attrs is None:
            self.attrs = dict(attrs)


def root_attrs(body: str) -> dict[str, str | None]:
    parser = _Root()
    parser.feed(body)
    assert parser.attrs is not None
    return parser.attrs


def text_of(body: str) -> str:
    text = re.sub(r"<[^>]+>", " ", body)
    return NBSP.sub(" ", re.sub(r"\s+", " ", text.replace("&amp;", "&"))).strip()


INVOICE = {
    "invoice_number": "INV-7",
    "invoice_date": "2026-11-22",
    "due_date": "2026-12-22",
    "client_name": "Contoso",
    "currency": "EUR",
    "line_items": [{"description": "Design", "quantity": 1, "unit_price": 1234.56}],
    "tax_rate": 19,
    "discount": 10,
    "notes": "Danke.",
}


def test_every_catalogue_has_exactly_the_english_keys_and_no_empty_label() -> None:
    english = set(catalogue("en"))
    for language in LABEL_LANGUAGES:
        path = resources.files("renderkit.pdf").joinpath(f"labels/{language}.json")
        labels = json.loads(path.read_text(encoding="utf-8"))
        assert set(labels) == english, language
        assert all(isinstance(v, str) and v.strip() for v in labels.values()), language
        # A translated placeholder would raise KeyError when the template formats it.
        for key, value in labels.items():
            assert set(re.findall(r"{(\w+)}", value)) == set(
                re.findall(r"{(\w+)}", catalogue("en")[key])
            ), (language, key)


def test_the_required_languages_have_catalogues() -> None:
    assert {"en", "de", "fr", "es", "ar", "ja"} <= set(LABEL_LANGUAGES)


@pytest.mark.parametrize("tag", ["de", "de-DE", "de_DE", "ar", "ja-JP", "pt-BR", "he"])
def test_known_locale_tags_are_accepted_in_either_spelling(tag: str) -> None:
    request = structure({"template": "invoice", "locale": tag}, PdfRequest)
    assert request.locale == tag


@pytest.mark.parametrize("tag", ["xx", "de-XX-YY-ZZ", "", "english", "de DE"])
def test_an_unknown_locale_is_refused_naming_the_field(tag: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        structure({"template": "invoice", "locale": tag}, PdfRequest)
    assert [e.field for e in caught.value.errors] == ["locale"]
    assert "is not a known locale" in str(caught.value)


def test_the_default_locale_is_english_left_to_right() -> None:
    assert structure({"template": "invoice"}, PdfRequest).locale == "en"
    attrs = root_attrs(render_document("invoice", INVOICE).body)
    assert (attrs["lang"], attrs["dir"]) == ("en", "ltr")


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("en", "22 November 2026"),
        ("en-US", "November 22, 2026"),
        ("de", "22. November 2026"),
        ("fr", "22 novembre 2026"),
        ("es", "22 de noviembre de 2026"),
        ("ja", "2026年11月22日"),
        ("ar", "22 نوفمبر 2026"),
    ],
)
def test_dates_are_written_in_the_locales_long_style(locale: str, expected: str) -> None:
    assert format_document_date("2026-11-22", locale) == expected


@pytest.mark.parametrize(
    ("amount", "currency", "locale", "expected"),
    [
        ("1234.56", "EUR", "de", "1.234,56 €"),
        ("1234.56", "EUR", "fr", "1 234,56 €"),
        ("1234.56", "EUR", "es", "1.234,56 €"),
        ("30000", "JPY", "ja", "￥30,000"),
        ("30000", "JPY", "en", "¥30,000"),
        ("1234.5", "USD", "en", "$1,234.50"),
        ("-100", "EUR", "de", "\u2212100,00 €"),
    ],
)
def test_amounts_follow_the_locale_and_the_currencys_digits(
    amount: str, currency: str, locale: str, expected: str
) -> None:
    assert NBSP.sub(" ", format_money(Decimal(amount), currency, locale=locale)) == expected


@pytest.mark.parametrize("locale", [*sorted(LABEL_LANGUAGES), "en_IN", "de_CH", "fa"])
def test_amounts_read_as_babels_currency_format_writes_them_in_every_label_language(
    locale: str,
) -> None:
    # format_money keeps each locale's pattern with the symbol in place and writes the
    # digits itself rather than asking babel for every amount: the text must stay what
    # babel's format_currency gives (Indian grouping, rounding half to even included).
    loc = document_locale(locale).babel
    sign = get_minus_sign_symbol(loc).replace("-", "\u2212")
    # Written without babel, but for de_CH's apostrophes (babel's quirk, kept).
    assert (_money_style(locale, "USD")[2] is None) == (locale == "de_CH")
    amounts = ("0", "-5", "1234.5", "0.335", "-1234567.891", "12345678901234.56")
    for currency in ("USD", "EUR", "JPY", "KWD", "SAR", "INR", "CHF", "XXX"):
        for amount in (*amounts, "0.125", "2.5", "-0.004", "1E+6", "0.0000001", "-0"):
            for exact in (False, True):
                number = Decimal(amount)
                expected = format_currency(
                    number, currency, locale=loc, decimal_quantization=not exact
                ).replace("-", sign)
                assert format_money(number, currency, exact=exact, locale=locale) == expected


@pytest.mark.parametrize("locale", [*sorted(LABEL_LANGUAGES), "en_IN", "de_CH"])
def test_quantities_read_as_babels_format_decimal_writes_them(locale: str) -> None:
    # The quantity pattern is parsed once rather than by format_decimal on every line.
    loc = document_locale(locale).babel
    for amount in ("0", "3", "3.5", "0.3333333", "1234567.125", "-2", "12345678901"):
        number = Decimal(amount)
        assert _quantity(number, loc) == format_decimal(number, "#,##0.######", locale=loc)


def test_a_negative_amount_carries_a_minus_sign_never_a_hyphen() -> None:
    for locale in ("en", "de", "fr", "es", "ja", "ar"):
        text = format_money(Decimal("-5"), "EUR", locale=locale)
        assert "-" not in text, locale
        assert "\u2212" in text, locale
    # Arabic keeps its left-to-right mark so the sign stays before the digits on an RTL page.
    assert "\u200e\u2212" in format_money(Decimal("-5"), "SAR", locale="ar")


@pytest.mark.parametrize(
    ("locale", "labels"),
    [
        ("de", ["Rechnung", "Rechnung an", "Fällig am", "Zwischensumme", "Rabatt", "Gesamt"]),
        ("fr", ["Facture", "Facturé à", "Sous-total", "Remise", "Total", "Remarques"]),
        ("es", ["Factura", "Facturar a", "Subtotal", "Descuento", "Total", "Notas"]),
        ("ja", ["請求書", "請求先", "お支払期限", "小計", "値引き", "合計", "備考"]),
        ("ar", ["فاتورة", "فاتورة إلى", "تاريخ الاستحقاق", "المجموع الفرعي", "الخصم"]),
    ],
)
def test_invoice_labels_are_translated(locale: str, labels: list[str]) -> None:
    text = text_of(render_document("invoice", INVOICE, locale=locale).body)
    for label in labels:
        assert label in text, label
    for english in ("Bill to", "Invoice date", "Due date", "Amount due", "Unit price"):
        assert english not in text, english


def test_a_german_invoice_has_german_dates_amounts_and_tax_label() -> None:
    doc = render_document("invoice", INVOICE, locale="de-DE")
    text = text_of(doc.body)
    assert "1.234,56 €" in text
    assert "22. November 2026" in text
    assert "bis 22. Dezember 2026" in text
    assert "Steuer (19 %)" in text
    assert "\u2212 10,00 €" not in text and "\u221210,00 €" in text
    assert doc.title == "Rechnung INV-7"
    assert doc.subject == "Rechnung an Contoso"
    assert doc.footer_template is not None
    assert "Seite" in doc.footer_template and "von" in doc.footer_template


def test_a_japanese_invoice_prints_yen_without_decimals() -> None:
    data = dict(INVOICE, currency="JPY", discount=None, tax_rate=None)
    data["line_items"] = [{"description": "デザイン", "quantity": 1, "unit_price": 30000}]
    text = text_of(render_document("invoice", data, locale="ja").body)
    assert "￥30,000" in text
    assert "30,000." not in text
    assert "2026年12月22日まで" in text


@pytest.mark.parametrize("locale", ["ar", "ar-EG", "he", "fa", "ur"])
@pytest.mark.parametrize("template", TEMPLATES)
def test_right_to_left_locales_make_every_template_a_right_to_left_page(
    locale: str, template: str
) -> None:
    doc = render_document(template, {}, locale=locale)
    attrs = root_attrs(doc.body)
    assert attrs["dir"] == "rtl"
    assert attrs["lang"] == locale
    if doc.footer_template is not None:
        assert 'dir="rtl"' in doc.footer_template


@pytest.mark.parametrize("template", TEMPLATES)
def test_left_to_right_locales_keep_left_to_right_pages(template: str) -> None:
    for locale in ("de", "ja", "fr-CA"):
        assert root_attrs(render_document(template, {}, locale=locale).body)["dir"] == "ltr"


def test_every_template_takes_its_labels_from_the_catalogue() -> None:
    cert = text_of(
        render_document(
            "certificate",
            {"recipient_name": "Ada", "course_name": "Rust", "issued_date": "2026-11-22"},
            locale="de",
        ).body
    )
    assert "Abschlusszertifikat" in cert
    assert "Hiermit wird bestätigt, dass" in cert
    assert "Ausstellungsdatum" in cert
    report = text_of(
        render_document("report", {"author": "Ada", "date": "2026-11-22"}, locale="es").body
    )
    assert "Preparado por" in report and "22 de noviembre de 2026" in report
    letter = text_of(render_document("letter", {"body": "Hallo."}, locale="de").body)
    assert "Mit freundlichen Grüßen" in letter and "Grüßen," not in letter


def test_an_arabic_letter_is_an_arabic_right_to_left_page_with_an_arabic_date() -> None:
    doc = render_document("letter", {"date": "2026-11-22", "body": "مرحبا"}, locale="ar")
    assert root_attrs(doc.body)["dir"] == "rtl"
    text = text_of(doc.body)
    assert "22 نوفمبر 2026" in text
    assert "November" not in text
    assert "مع خالص التحية" in text


def test_a_locale_without_labels_gets_english_labels_and_its_own_formats() -> None:
    loc = document_locale("he")
    assert loc.direction == "rtl"
    assert loc.labels["invoice"] == "Invoice"
    text = text_of(render_document("invoice", INVOICE, locale="he").body)
    assert "בנובמבר" in text  # Hebrew month name


def test_the_pdf_command_refuses_an_unknown_locale_before_a_browser_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.pdf"
    args = ["pdf", "--template", "invoice", "--locale", "xx-QQ", "-o", str(out)]
    status = cli.main([*args, "--chromium", "/nonexistent"])
    assert status == 2
    assert "locale: 'xx-QQ' is not a known locale" in capsys.readouterr().err
    assert not out.exists()
