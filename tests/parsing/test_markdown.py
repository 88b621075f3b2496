"""Documents as Markdown: renderkit's own PDFs (and a scan of one) read back as Markdown."""

from __future__ import annotations

import base64
import re
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from renderkit import parse, render_pdf
from renderkit.browser import ChromiumPool
from renderkit.parsing.markdown import MarkdownDocument
from renderkit.parsing.markdown.furniture import drop_furniture
from renderkit.parsing.markdown.order import reading_order
from renderkit.parsing.markdown.pieces import Piece
from renderkit.parsing.markdown.render import block_markdown, join_lines

from ._documents import text_pdf

pytestmark = pytest.mark.anyio

ITEMS = [
    {"description": "Brand strategy workshop", "quantity": 2, "unit_price": 1200},
    {"description": "Cloud migration review", "quantity": 1.5, "unit_price": 800.5},
    {"description": "Annual hosting licence", "quantity": 12, "unit_price": 49.99},
]
# The rows as the template prints them: description, quantity, unit price, amount.
ROWS = [
    ["Brand strategy workshop", "2", "$1,200.00", "$2,400.00"],
    ["Cloud migration review", "1.5", "$800.50", "$1,200.75"],
    ["Annual hosting licence", "12", "$49.99", "$599.88"],
]
INVOICE: dict[str, Any] = {
    "template": "invoice",
    "data": {
        "company_name": "Northwind Studio",
        "client_name": "Harbour Labs",
        "invoice_number": "INV-0042",
        "invoice_date": "2026-03-01",
        "currency": "USD",
        "line_items": ITEMS,
    },
}
SENTENCE = (
    "The committee reviewed the quarterly figures and agreed that the regional offices "
    "should consolidate their reporting before the end of the year. "
)
REPORT: dict[str, Any] = {
    "template": "report",
    "data": {
        "title": "Annual report",
        "author": "Finance",
        "sections": [
            {"heading": "Summary", "body": SENTENCE * 3, "bullets": ["Revenue up", "Costs flat"]},
            {"heading": "Outlook", "body": "\n\n".join([SENTENCE * 6] * 6)},
        ],
    },
}


def _column(tag: str, count: int) -> str:
    return " ".join(f"{tag} sentence number {n} of its column." for n in range(1, count + 1))


TWO_COLUMNS = (
    "<style>body{font:11pt serif;margin:0}h1{font-size:24pt}"
    ".cols{column-count:2;column-gap:3em}h2{font-size:15pt}</style>"
    "<h1>A study in two columns</h1><div class=cols>"
    f"<h2>Left side</h2><p>{_column('Westward', 40)}</p>"
    f"<h2>Right side</h2><p>{_column('Eastward', 40)}</p></div>"
)


async def _markdown(content: bytes, mime: str = "application/pdf") -> MarkdownDocument:
    result = await parse(
        {"file": base64.b64encode(content).decode(), "mimeType": mime, "output": "markdown"}
    )
    assert result.markdown is not None
    return result.markdown


def _table_rows(markdown: str) -> list[list[str]]:
    rows = []
    for line in markdown.splitlines():
        if line.startswith("|") and not re.fullmatch(r"\|( --- \|)+", line):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _recall(reference: str, answer: str) -> float:
    found = set(_words(answer))
    words = _words(reference)
    return sum(w in found for w in words) / len(words)


@pytest.mark.browser
async def test_an_invoice_comes_back_with_its_line_items_as_a_table_cell_for_cell(
    pool: ChromiumPool,
) -> None:
    rendered = await render_pdf(INVOICE, browser=pool)
    document = await _markdown(rendered.content)

    rows = _table_rows(document.markdown)
    assert rows[0] == ["DESCRIPTION", "QTY", "UNIT PRICE", "AMOUNT"]
    assert rows[1:4] == ROWS
    (table,) = [b for b in document.blocks if b.kind == "table"]
    assert table.page == 1 and table.text in document.markdown
    assert document.markdown.index("Northwind Studio") < document.markdown.index("| DESCRIPTION")


@pytest.mark.browser
async def test_a_report_has_headings_by_size_joined_paragraphs_a_list_and_no_footers(
    pool: ChromiumPool,
) -> None:
    rendered = await render_pdf(REPORT, browser=pool)
    document = await _markdown(rendered.content)
    markdown = document.markdown

    assert document.pages >= 2
    headings = {
        b.text.lstrip("# "): b.text.split(" ")[0] for b in document.blocks if b.kind == "heading"
    }
    assert headings["Annual report"] == "#"
    summary = next(text for text in headings if text.endswith("Summary"))
    assert len(headings[summary]) > 1  # a section sits below the title
    # The paragraph's printed lines are one line of Markdown again.
    assert (SENTENCE * 3).strip() in markdown
    assert "- Revenue up\n- Costs flat" in markdown
    # The running footer ("Annual report · Page 1 of 2") is dropped on every page.
    assert "Page 1 of" not in markdown and "Page 2 of" not in markdown
    assert markdown.index("<!-- page 1 -->") < markdown.index("<!-- page 2 -->")
    for block in document.blocks:
        assert block.text in markdown
        assert 0 <= block.bbox[0] < block.bbox[2] <= 1


@pytest.mark.browser
async def test_two_columns_are_read_one_after_the_other(pool: ChromiumPool) -> None:
    rendered = await render_pdf({"template": "custom", "html": TWO_COLUMNS}, browser=pool)
    document = await _markdown(rendered.content)
    markdown = document.markdown

    assert markdown.index("# A study in two columns") < markdown.index("Westward sentence")
    last_west = markdown.index("Westward sentence number 40 of its column.")
    first_east = markdown.index("Eastward sentence number 1 of its column.")
    assert markdown.index("## Left side") < last_west < markdown.index("## Right side")
    assert last_west < first_east
    # Each column's sentences in their own order, none split by the other column.
    west = [int(n) for n in re.findall(r"Westward sentence number (\d+)", markdown)]
    assert west == list(range(1, 41))


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm not installed")
async def test_a_scanned_invoice_is_read_by_ocr_with_its_table(
    pool: ChromiumPool, tmp_path: Path
) -> None:
    rendered = await render_pdf(INVOICE, browser=pool)
    (tmp_path / "invoice.pdf").write_bytes(rendered.content)
    await anyio.run_process(
        ["pdftoppm", "-r", "150", "-png", "-singlefile", "invoice.pdf", "scan"], cwd=tmp_path
    )
    scanned = await _markdown((tmp_path / "scan.png").read_bytes(), "image/png")
    born_digital = await _markdown(rendered.content)

    assert _recall(born_digital.markdown, scanned.markdown) >= 0.95
    rows = _table_rows(scanned.markdown)
    for row in ROWS:
        assert row in rows


def test_lines_are_joined_across_breaks_and_hyphenated_words_made_whole() -> None:
    assert join_lines(["The figures were con-", "solidated in May-", "June."]) == (
        "The figures were consolidated in May- June."
    )
    assert join_lines(["soft\u00ad", "ware and hard", "ware"]) == "software and hard ware"


def _piece(page: int, bbox: tuple[float, float, float, float], text: str) -> Piece:
    return Piece(page=page, kind="paragraph", bbox=bbox, lines=(text,))


def test_a_gutter_through_the_region_is_read_column_by_column() -> None:
    title = _piece(1, (0.1, 0.05, 0.9, 0.08), "title")
    left = [_piece(1, (0.1, 0.1 + 0.1 * i, 0.45, 0.18 + 0.1 * i), f"left {i}") for i in range(3)]
    right = [_piece(1, (0.55, 0.1 + 0.1 * i, 0.9, 0.18 + 0.1 * i), f"right {i}") for i in range(3)]
    order = reading_order([*right, *left, title])
    assert [p.lines[0] for p in order] == [
        "title", "left 0", "left 1", "left 2", "right 0", "right 1", "right 2"
    ]  # fmt: skip


def test_running_headers_footers_and_page_numbers_are_dropped_but_body_text_kept() -> None:
    pages = [
        [
            _piece(n, (0.1, 0.02, 0.5, 0.04), "ACME quarterly"),
            _piece(n, (0.1, 0.3, 0.9, 0.5), f"Body of page {n}"),
            _piece(n, (0.4, 0.96, 0.6, 0.98), f"Page {n} of 3"),
        ]
        for n in (1, 2, 3)
    ]
    kept = drop_furniture(pages)
    assert [[p.lines[0] for p in page] for page in kept] == [
        ["Body of page 1"], ["Body of page 2"], ["Body of page 3"]
    ]  # fmt: skip


async def test_a_documents_links_html_and_page_marks_come_back_inert() -> None:
    link = "See ![logo](https://example.test/?q=secret) and <img src=x>"
    pdf = text_pdf([["Quarterly notes", link, "<!-- page 7 -->"]])
    markdown = (await _markdown(pdf)).markdown
    assert "![logo](" not in markdown
    assert not re.search(r"(?<!\\)<(img|!-- page 7)", markdown)  # only escaped ones
    assert "!\\[logo\\](https://example.test/?q=secret)" in markdown
    assert len(re.findall(r"(?<!\\)<!-- page", markdown)) == 1  # renderkit's own alone


def test_a_staircase_of_blocks_is_ordered_without_deep_recursion() -> None:
    # Each cut would peel off one block: 3,000 levels deep without the bound.
    stairs = [_piece(1, (i / 4000, i / 4000, i / 4000 + 0.0002, i / 4000 + 0.0002), str(i))
              for i in range(3000)]  # fmt: skip
    order = reading_order(list(reversed(stairs)))
    assert [p.lines[0] for p in order] == [str(i) for i in range(3000)]


def test_list_items_keep_their_numbers_and_letters_and_lose_drawn_bullets() -> None:
    piece = Piece(
        page=1,
        kind="list",
        bbox=(0.1, 0.1, 0.9, 0.2),
        lines=("6. Term of the agreement", "a) the first case", "• a plain point"),
    )
    assert block_markdown(piece) == (
        "6. Term of the agreement\n- a) the first case\n- a plain point"
    )
