"""render_pdf through a real Chromium; PDFs are read back with pypdfium2 and pypdf."""

from __future__ import annotations

import io
import time

import pypdfium2
import pytest
from pypdf import PdfReader

from renderkit import InvalidRequestError, RenderTimeoutError, render_pdf
from renderkit.browser import BrowserConfig, ChromiumPool, PdfOptions
from renderkit.pdf._render import pdf_shell

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


def pdf_pages(content: bytes) -> list[str]:
    document = pypdfium2.PdfDocument(content)
    try:
        return [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()


def page_sizes(content: bytes) -> list[tuple[float, float]]:
    document = pypdfium2.PdfDocument(content)
    try:
        return [tuple(round(x) for x in page.get_size()) for page in document]
    finally:
        document.close()


INVOICE = {
    "template": "invoice",
    "data": {
        "company_name": "Northwind Studio",
        "company_address": "12 Harbour Street\nBristol BS1 4XX",
        "client_name": "Contoso Ltd",
        "invoice_number": "INV-2026-0042",
        "invoice_date": "2026-11-22",
        "due_date": "2026-12-22",
        "currency": "USD",
        "line_items": [
            {"description": "Brand design", "quantity": 2, "unit_price": 1500},
            {"description": "Hosting (months)", "quantity": 12, "unit_price": 29.99},
            {"description": "Support hours", "quantity": 3.5, "unit_price": 80},
        ],
        "tax_rate": 8.25,
        "discount": 100,
        "notes": "Thank you for your business.",
    },
}


async def test_invoice_totals_are_computed_and_printed(pool: ChromiumPool) -> None:
    result = await render_pdf(INVOICE, browser=pool)
    assert result.pages == 1
    text = pdf_pages(result.content)[0]
    # 3,000.00 + 359.88 + 280.00 = 3,639.88; less 100.00 = 3,539.88; tax 8.25% = 292.04.
    for amount in (
        "$3,000.00",
        "$359.88",
        "$280.00",
        "$3,639.88",
        "$100.00",
        "$292.04",
        "$3,831.92",
    ):
        assert amount in text, amount
    for item in ("Brand design", "Hosting (months)", "Support hours"):
        assert text.count(item) == 1
    assert "INV-2026-0042" in text
    metadata = PdfReader(io.BytesIO(result.content)).metadata
    assert metadata.title == "Invoice INV-2026-0042"
    assert metadata.author == "Northwind Studio"


async def test_long_invoice_spans_pages_with_every_item_once(pool: ChromiumPool) -> None:
    items = [
        {"description": f"Consulting block {i:02d}", "quantity": 1, "unit_price": 10}
        for i in range(1, 61)
    ]
    body = {
        "template": "invoice",
        "data": {**INVOICE["data"], "line_items": items, "currency": "EUR"},
    }
    result = await render_pdf(body, browser=pool)
    assert result.pages >= 2
    pages = pdf_pages(result.content)
    text = "\n".join(pages)
    for i in range(1, 61):
        assert text.count(f"Consulting block {i:02d}") == 1
    header_pages = [p for p in pages if "Consulting block" in p]
    assert all("description" in p.lower() for p in header_pages), "header repeats on each page"
    assert "€600.00" in text


async def test_jpy_amounts_have_no_decimals(pool: ChromiumPool) -> None:
    body = {
        "template": "invoice",
        "data": {
            "currency": "JPY",
            # Prices are whole yen (a fraction is refused); a fractional quantity is not.
            "line_items": [{"description": "Tea", "quantity": 1.5, "unit_price": 667}],
        },
    }
    text = pdf_pages((await render_pdf(body, browser=pool)).content)[0]
    assert "¥1,001" in text  # 1,000.5 rounds half up to 1,001
    assert "¥1,001.00" not in text


async def test_certificate_is_one_landscape_page(pool: ChromiumPool) -> None:
    body = {
        "template": "certificatePdf",
        "data": {
            "recipient_name": "Ada Lovelace",
            "course_name": "Analytical Engines",
            "issuer_name": "Royal Society",
            "date": "2026-11-22",
        },
    }
    for size in ("A4", "Letter"):
        result = await render_pdf({**body, "page_size": size}, browser=pool)
        assert result.pages == 1
        assert result.landscape is True
        ((width, height),) = page_sizes(result.content)
        assert width > height
        assert "Ada Lovelace" in pdf_pages(result.content)[0]


@pytest.mark.parametrize(
    ("size", "points"),
    [("A4", (595, 842)), ("Letter", (612, 792)), ("Legal", (612, 1008)), ("A3", (842, 1191))],
)
async def test_page_sizes_have_the_right_dimensions(
    pool: ChromiumPool, size: str, points: tuple[int, int]
) -> None:
    html = "<html><body><h1>Size</h1></body></html>"
    portrait = await render_pdf(
        {"template": "custom", "html": html, "page_size": size}, browser=pool
    )
    landscape = await render_pdf(
        {"template": "custom", "html": html, "page_size": size, "landscape": True}, browser=pool
    )
    ((width, height),) = page_sizes(portrait.content)
    assert abs(width - points[0]) <= 1 and abs(height - points[1]) <= 1
    assert page_sizes(landscape.content) == [(height, width)]


async def test_report_has_page_numbers_in_the_footer(pool: ChromiumPool) -> None:
    sections = [
        {
            "heading": f"Section {i}",
            "body": ("Lorem ipsum dolor sit amet. " * 40 + "\n\n") * 3,
            "bullets": ["one", "two"],
        }
        for i in range(1, 6)
    ]
    result = await render_pdf(
        {
            "template": "report",
            "data": {"title": "Annual report", "author": "Finance", "sections": sections},
        },
        browser=pool,
    )
    pages = pdf_pages(result.content)
    assert result.pages == len(pages) >= 2
    for number, text in enumerate(pages, start=1):
        assert f"Page {number} of {len(pages)}" in text
    assert PdfReader(io.BytesIO(result.content)).metadata.author == "Finance"


async def test_letter_splits_paragraphs_and_closes_politely(pool: ChromiumPool) -> None:
    result = await render_pdf(
        {
            "template": "letter",
            "data": {
                "sender_name": "Grace Hopper",
                "subject": "Compilers",
                "body": "First paragraph.\n\nSecond paragraph.",
            },
        },
        browser=pool,
    )
    text = pdf_pages(result.content)[0]
    assert "First paragraph." in text and "Second paragraph." in text
    assert "Yours sincerely" in text
    assert "Grace Hopper" in text


async def test_custom_html_from_either_field_with_backgrounds_and_footer(
    pool: ChromiumPool,
) -> None:
    html = "<html><body style='background:#ff0000'><p>Custom body</p></body></html>"
    a = await render_pdf(
        {"template": "custom", "data": {"html": html}, "margin": "none"}, browser=pool
    )
    b = await render_pdf(
        {
            "template": "custom",
            "html": html,
            "title": "My doc",
            "author": "Me",
            "footer_html": "<div style='font-size:9px'>p. <span class='pageNumber'></span>"
            "/<span class='totalPages'></span></div>",
        },
        browser=pool,
    )
    assert "Custom body" in pdf_pages(a.content)[0]
    assert "p. 1/1" in pdf_pages(b.content)[0]
    document = pypdfium2.PdfDocument(a.content)
    image = document[0].render(scale=0.2).to_pil().convert("RGB")
    document.close()
    assert image.getpixel((image.width // 2, image.height // 2)) == (255, 0, 0)
    metadata = PdfReader(io.BytesIO(b.content)).metadata
    assert (metadata.title, metadata.author) == ("My doc", "Me")


async def test_a_header_template_shows_the_title_verbatim_quotes_and_tags_included(
    pool: ChromiumPool,
) -> None:
    # The title is written into the page as a script literal: nothing in it may escape it.
    title = 'Q4 "final" </script> \\ résumé'
    result = await render_pdf(
        {
            "template": "custom",
            "html": "<p>Body</p>",
            "title": title,
            "header_html": "<div style='font-size:9px'>[<span class='title'></span>]</div>",
        },
        browser=pool,
    )

    assert f"[{title}]" in " ".join(pdf_pages(result.content)[0].split())


async def test_a_printed_fragment_shows_its_own_title_set_with_the_fragment(
    pool: ChromiumPool,
) -> None:
    # The title goes into the warm page with the fragment: each print shows its own, never
    # the one a previous render left there.
    header = "<div style='font-size:9px'>[<span class='title'></span>]</div>"
    for title in ('Q4 "final" </script> \\ résumé', "Second"):
        options = PdfOptions(
            paper_width=8.27, paper_height=11.69, header_template=header, title=title
        )
        content = await pool.print_fragment(pdf_shell(), "<p>Body</p>", options)

        assert f"[{title}]" in " ".join(pdf_pages(content)[0].split())
        assert PdfReader(io.BytesIO(content)).metadata.title == title


async def test_custom_html_that_never_finishes_times_out_and_pool_recovers() -> None:
    async with ChromiumPool(BrowserConfig(slots=1, document_timeout=4)) as pool:
        started = time.monotonic()
        with pytest.raises(RenderTimeoutError):
            await render_pdf(
                {"template": "custom", "html": "<script>for(;;){}</script>"}, browser=pool
            )
        assert time.monotonic() - started < 10
        ok = await render_pdf({"template": "letter", "data": {"body": "ok"}}, browser=pool)
        assert ok.pages == 1


def _pages_html(count: int) -> str:
    return "".join(f'<p style="page-break-after: always">page {i}</p>' for i in range(count))


async def test_a_document_at_the_page_cap_renders_all_its_pages(pool: ChromiumPool) -> None:
    result = await render_pdf(
        {"template": "custom", "html": _pages_html(5)}, browser=pool, max_pages=5
    )
    assert result.pages == 5


@pytest.mark.parametrize("count", [6, 40])
async def test_custom_html_longer_than_the_page_cap_is_refused_naming_html(
    pool: ChromiumPool, count: int
) -> None:
    with pytest.raises(InvalidRequestError, match="more than 5 pages") as error:
        await render_pdf(
            {"template": "custom", "html": _pages_html(count)}, browser=pool, max_pages=5
        )
    assert [e.field for e in error.value.errors] == ["html"]


async def test_a_template_longer_than_the_page_cap_is_refused_naming_data(
    pool: ChromiumPool,
) -> None:
    items = [{"description": f"item {i}", "quantity": 1, "unit_price": 1} for i in range(150)]
    body = {**INVOICE, "data": {**INVOICE["data"], "line_items": items}}
    with pytest.raises(InvalidRequestError, match="more than 1 pages") as error:
        await render_pdf(body, browser=pool, max_pages=1)
    assert [e.field for e in error.value.errors] == ["data"]
