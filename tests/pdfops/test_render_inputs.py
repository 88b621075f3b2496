"""pdf_ops with inputs rendered by renderkit through a real Chromium."""

from __future__ import annotations

import pytest

from renderkit import ConfigurationError, render_pdf
from renderkit.browser import ChromiumPool
from renderkit.pdfops import pdf_ops

from ..parsing._documents import text_pdf
from ._pdfs import b64, page_texts

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

LETTER = {
    "template": "letter",
    "data": {
        "sender_name": "Northwind Studio",
        "subject": "Renewal notice",
        "body": "Your plan renews on 1 March.",
    },
}
REPORT = {
    "template": "report",
    "data": {
        "title": "Quarterly figures",
        "sections": [{"heading": "Revenue", "body": "Revenue grew by 12 percent."}],
    },
}
UPLOAD = text_pdf([["Uploaded appendix, page one"], ["Uploaded appendix, page two"]])


async def test_merging_two_renderkit_pdfs_and_an_upload_keeps_every_pages_text(
    pool: ChromiumPool,
) -> None:
    letter = await render_pdf(LETTER, browser=pool)
    report = await render_pdf(REPORT, browser=pool)
    expected = page_texts(letter.content) + page_texts(report.content) + page_texts(UPLOAD)
    result = await pdf_ops(
        {
            "files": [{"render": LETTER}, {"render": REPORT}, {"file": b64(UPLOAD)}],
            "watermark": {"text": "DRAFT"},
        },
        browser=pool,
    )
    merged = page_texts(result.content)
    assert len(merged) == len(expected) == letter.pages + report.pages + 2
    for got, want in zip(merged, expected, strict=True):
        assert want.strip()
        assert want.strip() in got  # every word of the page, in order, plus the stamp
        assert "DRAFT" in got
    assert "Renewal notice" in merged[0] and "Revenue grew" in "".join(merged)


async def test_a_render_input_without_a_browser_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        await pdf_ops({"files": [{"render": LETTER}]})
