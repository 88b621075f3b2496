"""Speed work must not change how cards look: renders compared with stored references.

The references in ``reference/`` are og-cards rendered before the capture was made cheaper
(issue #30: frame-rate limit, capture path, gradient CSS), kept as lossless WebP (exact
pixels, a third of the PNG's size). A render may differ from them by antialiasing noise only:
no pixel channel by more than a few levels on average, and almost no pixel visibly at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from renderkit import render_image
from renderkit.browser import ChromiumPool
from tests.conftest import open_image

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

REFERENCES = Path(__file__).parent / "reference"
DATA = {
    "tag": "Release 1.0",
    "title": "Render anything from JSON, in milliseconds",
    "subtitle": "Images, PDFs, screenshots, speech and parsing behind one API.",
    "domain": "renderkit.dev",
}
#: Mean absolute difference per channel (0-255) a render may have from its reference.
MEAN_LEVELS = 0.5
#: Share of pixels that may differ by more than VISIBLE levels in some channel.
VISIBLE = 16
VISIBLE_SHARE = 0.002


def difference(image: Image.Image, reference: Image.Image) -> tuple[float, float]:
    """The mean channel difference and the share of visibly different pixels."""
    diff = ImageChops.difference(image.convert("RGB"), reference.convert("RGB"))
    mean = max(ImageStat.Stat(diff).mean)
    worst = diff.convert("L").point(lambda level: 255 if level > VISIBLE else 0)
    visible = (ImageStat.Stat(worst).mean[0] / 255) if worst.getbbox() else 0.0
    return mean, visible


def test_the_comparison_sees_a_changed_card() -> None:
    reference = Image.open(REFERENCES / "og-card-dark-1x.webp")
    changed = reference.copy()
    changed.paste((255, 255, 255), (80, 200, 400, 300))  # a white block over the title
    mean, visible = difference(changed, reference)
    assert visible > VISIBLE_SHARE
    assert difference(reference, reference) == (0.0, 0.0)
    assert mean > 0


@pytest.mark.parametrize(
    ("background", "scale"), [("dark", 1), ("light", 1), ("gradient", 1), ("gradient", 2)]
)
async def test_an_og_card_looks_as_it_did_before_the_capture_was_made_cheaper(
    pool: ChromiumPool, background: str, scale: int
) -> None:
    body = {"template": "og-card", "data": {**DATA, "background": background}, "scale": scale}
    result = await render_image(body, browser=pool)
    reference = Image.open(REFERENCES / f"og-card-{background}-{scale}x.webp")
    image = open_image(result.content)
    assert image.size == reference.size
    mean, visible = difference(image, reference)
    assert mean <= MEAN_LEVELS
    assert visible <= VISIBLE_SHARE
