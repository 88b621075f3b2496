"""What the print step leaves out to be fast changes nothing a reader sees: every template
and custom HTML printed untagged (the default) and tagged, and every template printed from
the warm page as it is (documents hidden on screen) and as it was (shown), rasterized with
pdftoppm and compared pixel by pixel; the untagged file really carries no structure tree."""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from PIL import ImageChops

from renderkit import PdfResult, render_pdf
from renderkit.browser import ChromiumPool, PdfOptions, Shell
from renderkit.pdf._render import _PRINT_ONLY

from .test_pdfa import TEMPLATES, pages_png

pytestmark = pytest.mark.anyio

#: A two-page invoice: the case the benchmark measures (30 line items).
THIRTY_LINES: dict[str, Any] = {
    "template": "invoice",
    "data": {
        **TEMPLATES["invoice"]["data"],
        "line_items": [
            {"description": f"Design sprint #{n}", "quantity": n % 4 + 1, "unit_price": 120 + n}
            for n in range(1, 31)
        ],
        "notes": "Payment within 30 days.",
    },
}
CASES = {**TEMPLATES, "invoice-30": THIRTY_LINES}


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) missing")
@pytest.mark.parametrize("name", sorted(CASES))
async def test_an_untagged_pdf_looks_exactly_like_the_tagged_one(
    pool: ChromiumPool, name: str
) -> None:
    plain = await render_pdf(CASES[name], browser=pool)
    tagged = await render_pdf({**CASES[name], "tagged": True}, browser=pool)

    _assert_same_pages(tagged, plain)


@pytest.mark.browser
async def test_a_plain_pdf_is_untagged_and_a_tagged_one_is_tagged(pool: ChromiumPool) -> None:
    plain = await render_pdf(THIRTY_LINES, browser=pool)
    tagged = await render_pdf({**THIRTY_LINES, "tagged": True}, browser=pool)

    with pikepdf.open(io.BytesIO(plain.content)) as pdf:
        assert "/StructTreeRoot" not in pdf.Root
        assert "/MarkInfo" not in pdf.Root
    with pikepdf.open(io.BytesIO(tagged.content)) as pdf:
        assert "/StructTreeRoot" in pdf.Root
    assert plain.pages == tagged.pages == 2
    # The structure tree is most of a tagged invoice: leaving it out halves the file.
    assert len(plain.content) < 0.7 * len(tagged.content)


class _ShownOnScreen:
    """The pool, printing templates from the pdf shell without its screen-hiding rule: the
    warm page as it was before documents were laid out for print only."""

    def __init__(self, pool: ChromiumPool) -> None:
        self._pool = pool

    async def print_fragment(self, shell: Shell, fragment: str, options: PdfOptions) -> bytes:
        assert _PRINT_ONLY in shell.head
        shown = Shell(name=f"{shell.name}-shown", head=shell.head.replace(_PRINT_ONLY, ""))
        return await self._pool.print_fragment(shown, fragment, options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) missing")
@pytest.mark.parametrize("tagged", [False, True], ids=["plain", "tagged"])
@pytest.mark.parametrize("name", sorted(set(CASES) - {"custom"}))
async def test_a_document_hidden_on_screen_prints_exactly_as_one_shown(
    pool: ChromiumPool, name: str, tagged: bool
) -> None:
    request = {**CASES[name], "tagged": tagged}
    hidden = await render_pdf(request, browser=pool)
    shown = await render_pdf(request, browser=_ShownOnScreen(pool))  # type: ignore[arg-type]

    _assert_same_pages(shown, hidden)
    if tagged:
        # Chromium builds the structure tree from the printed layout: hidden on screen, the
        # document still has every heading in its outline.
        with (
            pikepdf.open(io.BytesIO(hidden.content)) as a,
            pikepdf.open(io.BytesIO(shown.content)) as b,
        ):
            assert "/StructTreeRoot" in a.Root
            assert _outline(a) == _outline(b)


def _outline(pdf: pikepdf.Pdf) -> list[str]:
    with pdf.open_outline() as outline:
        return [str(item.title) for item in outline.root]


def _assert_same_pages(before: PdfResult, after: PdfResult) -> None:
    """The two PDFs have the same number of pages, each the same pixels (pdftoppm)."""
    with tempfile.TemporaryDirectory() as folder:
        old = pages_png(before.content, Path(folder), "before", dpi=72)
        new = pages_png(after.content, Path(folder), "after", dpi=72)
    assert old
    assert len(old) == len(new) == before.pages == after.pages
    for one, other in zip(old, new, strict=True):
        assert ImageChops.difference(one, other).getbbox() is None
