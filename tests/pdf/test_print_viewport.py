"""The pdf warm page prints from a viewport wider than any paper, where a print-media rule
hides the document from the layout Chromium does at the viewport's width as it starts to
print: the pages are the same as printed from any other viewport, and no paper is wide
enough for the rule to hide a document from its own pages."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from renderkit import render_image, render_pdf
from renderkit.browser import BrowserConfig, ChromiumPool, PdfOptions, Shell
from renderkit.pdf._models import MARGINS, PAGE_SIZES
from renderkit.pdf._render import _PRINT_VIEWPORT_WIDTH, pdf_shell

from .test_pdfa import TEMPLATES
from .test_print_cost import THIRTY_LINES, _assert_same_pages

pytestmark = pytest.mark.anyio

#: CSS pixels per inch.
_PX = 96


def test_every_paper_prints_narrower_than_the_viewport_the_warm_page_prints_from() -> None:
    widest = max(
        (side - 2 * margin) * _PX
        for width, height in PAGE_SIZES.values()
        for side in (width, height)  # portrait and landscape
        for margin in MARGINS.values()
    )

    assert widest < _PRINT_VIEWPORT_WIDTH
    assert pdf_shell().print_viewport == (_PRINT_VIEWPORT_WIDTH, 720)
    assert f"(min-width:{_PRINT_VIEWPORT_WIDTH}px)" in pdf_shell().head


class _WithoutTheRule:
    """The pool, printing templates from a copy of the pdf shell without the rule that hides
    the document in print media at the wide viewport, from the page's viewport as it is."""

    def __init__(self, pool: ChromiumPool) -> None:
        self._pool = pool

    async def print_fragment(self, shell: Shell, fragment: str, options: PdfOptions) -> bytes:
        rule = f"@media print and (min-width:{_PRINT_VIEWPORT_WIDTH}px){{#rk-root{{display:none}}}}"
        assert rule in shell.head
        plain = Shell(name=f"{shell.name}-without-rule", head=shell.head.replace(rule, ""))
        return await self._pool.print_fragment(plain, fragment, options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) missing")
@pytest.mark.parametrize("landscape", [False, True], ids=["portrait", "landscape"])
@pytest.mark.parametrize("name", ["invoice-30", "report"])
async def test_the_widest_paper_prints_the_same_pages_as_without_the_wide_viewport_rule(
    pool: ChromiumPool, name: str, landscape: bool
) -> None:
    # The widest paper: A3 without margins.
    cases = {"invoice-30": THIRTY_LINES, "report": TEMPLATES["report"]}
    request = {**cases[name], "landscape": landscape, "page_size": "A3", "margin": "none"}

    printed = await render_pdf(request, browser=pool)
    without = await render_pdf(request, browser=_WithoutTheRule(pool))  # type: ignore[arg-type]

    _assert_same_pages(without, printed)


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) missing")
async def test_a_page_that_captured_an_image_prints_the_same_document_again() -> None:
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:  # one page does both
        before = await render_pdf(THIRTY_LINES, browser=pool)
        card = {"template": "og-card", "data": {"title": "Between two invoices"}, "scale": 2}
        await render_image(card, browser=pool)
        after = await render_pdf(THIRTY_LINES, browser=pool)

    _assert_same_pages(before, after)
    assert after.pages == 2
