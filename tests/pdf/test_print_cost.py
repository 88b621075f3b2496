"""What the print step leaves out to be fast changes nothing a reader sees: every template
and custom HTML printed untagged (the default) and tagged, rasterized with pdftoppm and
compared pixel by pixel, and the untagged file really carries no structure tree."""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from PIL import Image, ImageChops

from renderkit import render_pdf
from renderkit.browser import ChromiumPool

from .test_pdfa import TEMPLATES

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


def _pages_png(content: bytes, folder: Path, stem: str) -> list[Image.Image]:
    source = folder / f"{stem}.pdf"
    source.write_bytes(content)
    pdftoppm = shutil.which("pdftoppm")
    assert pdftoppm is not None
    subprocess.run([pdftoppm, "-r", "72", "-png", source, folder / stem], check=True)
    return [Image.open(path).convert("RGB") for path in sorted(folder.glob(f"{stem}-*.png"))]


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) missing")
@pytest.mark.parametrize("name", sorted(CASES))
async def test_an_untagged_pdf_looks_exactly_like_the_tagged_one(
    pool: ChromiumPool, name: str
) -> None:
    plain = await render_pdf(CASES[name], browser=pool)
    tagged = await render_pdf({**CASES[name], "tagged": True}, browser=pool)

    with tempfile.TemporaryDirectory() as folder:
        before = _pages_png(tagged.content, Path(folder), "tagged")
        after = _pages_png(plain.content, Path(folder), "plain")
    assert before
    assert len(before) == len(after) == plain.pages == tagged.pages
    for one, other in zip(before, after, strict=True):
        assert ImageChops.difference(one, other).getbbox() is None


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
