"""Localised and right-to-left PDFs, invoice page breaks and payment details, printed by
Chromium and read back with pypdfium2 (text and character boxes)."""

from __future__ import annotations

import re
from typing import Any

import pypdfium2
import pytest

from renderkit import render_pdf
from renderkit.browser import ChromiumPool

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

SPACES = re.compile(r"[\u00a0\u202f]")


def page_texts(content: bytes) -> list[str]:
    document = pypdfium2.PdfDocument(content)
    try:
        return [SPACES.sub(" ", page.get_textpage().get_text_range()) for page in document]
    finally:
        document.close()


def has_arabic(text: str, phrase: str) -> bool:
    """Whether every word of ``phrase`` is in ``text``. PDFium extracts some Arabic runs in
    visual (reversed) order, so a word also counts when it appears reversed."""
    return all(word in text or word[::-1] in text for word in phrase.split())


def x_centres(content: bytes, needle: str, page_index: int = 0) -> tuple[list[float], float]:
    """The horizontal centre of each match of ``needle`` on a page, and the page's width."""
    document = pypdfium2.PdfDocument(content)
    try:
        page = document[page_index]
        textpage = page.get_textpage()
        searcher = textpage.search(needle)
        centres = []
        while (match := searcher.get_next()) is not None:
            start, count = match
            boxes = [textpage.get_charbox(i) for i in range(start, start + count)]
            centres.append((min(b[0] for b in boxes) + max(b[2] for b in boxes)) / 2)
        return centres, page.get_width()
    finally:
        document.close()


def invoice(locale: str, **data: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "company_name": "Northwind Studio",
        "client_name": "Contoso",
        "invoice_number": "INV-0042",
        "invoice_date": "2026-11-22",
        "due_date": "2026-12-22",
        "currency": "EUR",
        "line_items": [{"description": "Design", "quantity": 1, "unit_price": 1234.56}],
        "discount": 34.56,
        "notes": "Thank you.",
    }
    fields.update(data)
    return {"template": "invoice", "locale": locale, "data": fields}


async def test_a_german_invoice_prints_german_labels_dates_and_amounts(
    pool: ChromiumPool,
) -> None:
    result = await render_pdf(invoice("de-DE"), browser=pool)
    # Labels are set in small capitals (text-transform), so compare without case.
    text = page_texts(result.content)[0].casefold()
    for printed in (
        "Rechnung",
        "Rechnung an",
        "Zwischensumme",
        "Gesamt",
        "Hinweise",
        "1.234,56 €",
        "1.200,00 €",
        "\u221234,56 €",
        "22. November 2026",
        "Seite 1 von 1",
    ):
        assert printed.casefold() in text, printed
    assert "subtotal" not in text and "invoice" not in text


async def test_a_japanese_invoice_prints_yen_without_decimals_and_japanese_labels(
    pool: ChromiumPool,
) -> None:
    request = invoice(
        "ja",
        currency="JPY",
        discount=1000,
        line_items=[{"description": "デザイン", "quantity": 1, "unit_price": 30000}],
    )
    text = page_texts((await render_pdf(request, browser=pool)).content)[0]
    for printed in ("請求書", "請求先", "小計", "合計", "￥30,000", "￥29,000", "2026年11月22日"):
        assert printed in text, printed
    assert "30,000." not in text and "29,000." not in text


async def test_an_arabic_invoice_is_mirrored_with_totals_on_the_left(pool: ChromiumPool) -> None:
    request = invoice("ar", currency="SAR", tax_rate=10, client_name="شركة الأفق")
    rtl = (await render_pdf(request, browser=pool)).content
    ltr = (await render_pdf(invoice("en", currency="SAR", tax_rate=10), browser=pool)).content
    text = page_texts(rtl)[0]
    for printed in ("فاتورة", "المجموع الفرعي", "الإجمالي", "ملاحظات", "نوفمبر"):
        assert has_arabic(text, printed), printed
    assert "Subtotal" not in text and "November" not in text
    # The tax (120.00 SAR, printed once) sits in the totals block: at the right of a
    # left-to-right page and at the left of the mirrored one; descriptions swap sides too.
    for needle in ("120.00", "Design"):
        (rtl_x,), width = x_centres(rtl, needle)
        (ltr_x,), _ = x_centres(ltr, needle)
        if needle == "Design":
            assert ltr_x < width / 2 < rtl_x
        else:
            assert rtl_x < width / 2 < ltr_x


async def test_an_arabic_letter_is_a_right_to_left_page(pool: ChromiumPool) -> None:
    def letter(locale: str, name: str, body: str) -> dict[str, Any]:
        return {
            "template": "letter",
            "locale": locale,
            "data": {"date": "2026-11-22", "recipient_name": name, "body": body},
        }

    rtl = (await render_pdf(letter("ar", "سارة محمد", "مرحبا"), browser=pool)).content
    ltr = (await render_pdf(letter("en", "Sara", "Hello"), browser=pool)).content
    assert has_arabic(page_texts(rtl)[0], "نوفمبر") and "November" in page_texts(ltr)[0]
    # The date line starts at the right margin in Arabic, at the left margin in English.
    (rtl_x,), width = x_centres(rtl, "2026")
    (ltr_x,), _ = x_centres(ltr, "2026")
    assert ltr_x < width / 3
    assert rtl_x > width * 2 / 3


async def test_a_forty_line_invoice_ends_with_rows_totals_and_notes_on_one_page(
    pool: ChromiumPool,
) -> None:
    items = [
        {"description": f"Work package {n:02d}", "quantity": 1 + n % 3, "unit_price": 120 + n}
        for n in range(1, 41)
    ]
    request = invoice(
        "en",
        currency="USD",
        line_items=items,
        tax_rate=19,
        notes="Thank you for your business.\nPayment within 30 days.",
    )
    pages = page_texts((await render_pdf(request, browser=pool)).content)
    assert len(pages) >= 2
    last = pages[-1]
    rows = re.findall(r"Work package (\d\d)", last)
    assert len(rows) >= 3, last
    assert rows[-1] == "40"
    for printed in ("Subtotal", "Discount", "Tax (19%)", "Total", "Notes", "within 30 days"):
        assert printed.casefold() in last.casefold(), printed
    # Every row is printed exactly once across the pages.
    everything = " ".join(pages)
    assert sorted(re.findall(r"Work package (\d\d)", everything)) == [
        f"{n:02d}" for n in range(1, 41)
    ]


async def test_long_notes_flow_over_pages_instead_of_pushing_the_totals_away(
    pool: ChromiumPool,
) -> None:
    items = [{"description": f"Work package {n:02d}", "unit_price": 10 + n} for n in range(1, 41)]
    notes = "\n\n".join(
        f"Clause {n}. " + "Terms apply to every delivery and payment. " * 6 for n in range(1, 15)
    )
    request = invoice("en", currency="USD", line_items=items, notes=notes)
    pages = page_texts((await render_pdf(request, browser=pool)).content)
    with_total = [i for i, page in enumerate(pages) if "Subtotal" in page]
    assert len(with_total) == 1
    # The totals share their page with the last row and the rows before it (no page holding
    # two rows left behind by a block too tall to move), and every clause is printed.
    totals_page = pages[with_total[0]]
    assert len(re.findall(r"Work package \d\d", totals_page)) >= 10
    assert "Work package 40" in totals_page
    assert all(f"Clause {n}." in " ".join(pages) for n in range(1, 15))


async def test_the_discount_is_printed_with_a_minus_sign(pool: ChromiumPool) -> None:
    text = page_texts((await render_pdf(invoice("en"), browser=pool)).content)[0]
    assert "\u2212€34.56" in text
    assert "-€34.56" not in text


async def test_payment_details_are_printed_with_the_iban_in_groups_of_four(
    pool: ChromiumPool,
) -> None:
    request = invoice(
        "en",
        payment={
            "account_holder": "Northwind Studio GmbH",
            "bank_name": "Commerzbank",
            "iban": "DE89370400440532013000",
            "bic": "COBADEFFXXX",
            "reference": "INV-0042",
        },
    )
    text = page_texts((await render_pdf(request, browser=pool)).content)[0].casefold()
    for printed in (
        "Payment details",
        "Northwind Studio GmbH",
        "Commerzbank",
        "DE89 3704 0044 0532 0130 00",
        "COBADEFFXXX",
        "Payment reference",
    ):
        assert printed.casefold() in text, printed
