"""Speed work must not change how documents look: pages compared with stored references.

The references in ``reference/`` are the pages of every document template, of a 30-line
invoice and of invoices and letters in other scripts (Cyrillic, Greek, accented Latin,
Vietnamese, Japanese, Arabic), printed before Inter was split by script (issue #30: a Latin
document embeds only the small Latin file, which Chromium's PDF backend subsets much faster)
and rasterized with pdftoppm at 110 dpi, kept as lossless WebP. A page may differ from its
reference by antialiasing noise only, and its text (pdftotext) must be the same.
``python -m tests.pdf.test_looks`` rewrites the references (only when a change is meant to
change how documents look).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from renderkit import render_pdf
from renderkit.browser import ChromiumPool
from tests.image.test_looks import MEAN_LEVELS, VISIBLE_SHARE, difference

from .test_pdfa import TEMPLATES, pages_png
from .test_print_cost import THIRTY_LINES

pytestmark = pytest.mark.anyio

REFERENCES = Path(__file__).parent / "reference"
DPI = 110

#: Text in every script the documents print (Inter's Latin and non-Latin files, the system's
#: CJK and Arabic faces): names, items and notes, with punctuation, digits and diacritics.
_SCRIPTS = {
    "description": "Перевод (русский), Ελληνικά κείμενα, Ærøskøbing façade, Tiếng Việt",
    "notes": "Спасибо. Ευχαριστώ! Zürich, Kraków, Łódź, São Paulo; Hà Nội, Đà Nẵng.",
}

CASES: dict[str, dict[str, Any]] = {
    **{name: request for name, request in TEMPLATES.items() if name != "custom"},
    "invoice-30": THIRTY_LINES,
    "invoice-scripts": {
        "template": "invoice",
        "data": {
            "company_name": "Ωμέγα Studio — Überweisung",
            "client_name": "ООО «Горизонт», Ярослав Дёмин",
            "invoice_number": "INV-7",
            "line_items": [
                {"description": _SCRIPTS["description"], "quantity": 2, "unit_price": 1500},
                {"description": "Łódź, Ğüşçö, Ångström, Ñandú", "quantity": 1, "unit_price": 9},
            ],
            "notes": _SCRIPTS["notes"],
            "tax_rate": 20,
        },
    },
    "invoice-ja": {
        "template": "invoice",
        "locale": "ja",
        "data": {
            "company_name": "株式会社ノースウィンド",
            "client_name": "コントソ合同会社",
            "invoice_number": "INV-8",
            "currency": "JPY",
            "line_items": [
                {"description": "デザイン制作（2026年）", "quantity": 2, "unit_price": 1500}
            ],
            "notes": "お支払いは30日以内にお願いします。",
        },
    },
    "letter-ar": {
        "template": "letter",
        "locale": "ar",
        "data": {"recipient_name": "سارة محمد", "subject": "الفاتورة 12", "body": "مرحبا، شكرا."},
    },
}


def _pages(content: bytes) -> list[Image.Image]:
    with tempfile.TemporaryDirectory() as folder:
        return pages_png(content, Path(folder), "page", dpi=DPI)


def _text(content: bytes) -> str:
    """The document's text as pdftotext reads it (pages separated by form feeds)."""
    pdftotext = shutil.which("pdftotext")
    assert pdftotext is not None
    run = subprocess.run([pdftotext, "-", "-"], input=content, capture_output=True, check=True)
    return run.stdout.decode("utf-8")


def _reference_pages(name: str) -> list[Image.Image]:
    return [Image.open(path) for path in sorted(REFERENCES.glob(f"{name}-p*.webp"))]


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils missing")
@pytest.mark.parametrize("name", sorted(CASES))
async def test_a_document_looks_as_it_did_before_inter_was_split(
    pool: ChromiumPool, name: str
) -> None:
    result = await render_pdf(CASES[name], browser=pool)

    pages = _pages(result.content)
    references = _reference_pages(name)
    assert references
    assert len(pages) == len(references)
    for page, reference in zip(pages, references, strict=True):
        assert page.size == reference.size
        mean, visible = difference(page, reference)
        assert mean <= MEAN_LEVELS
        assert visible <= VISIBLE_SHARE
    assert _text(result.content) == (REFERENCES / f"{name}.txt").read_text("utf-8")


async def _write_references() -> None:
    async with ChromiumPool() as pool:
        for name, request in CASES.items():
            result = await render_pdf(request, browser=pool)
            for old in REFERENCES.glob(f"{name}-p*.webp"):
                old.unlink()
            for number, page in enumerate(_pages(result.content), start=1):
                page.save(REFERENCES / f"{name}-p{number}.webp", lossless=True, method=6)
            (REFERENCES / f"{name}.txt").write_text(_text(result.content), "utf-8")


if __name__ == "__main__":
    asyncio.run(_write_references())
