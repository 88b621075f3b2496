"""Image previews for MCP results: small, whole, readable JPEGs, never enlarged."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from renderkit_server.mcp.previews import PREVIEW_MAX_SIDE, preview_image


def _encoded(image: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


@pytest.mark.parametrize(
    ("size", "expected"),
    [((2400, 1260), (512, 269)), ((1280, 8000), (82, 512)), ((300, 200), (300, 200))],
)
def test_a_preview_fits_the_long_side_keeps_the_shape_and_never_enlarges(
    size: tuple[int, int], expected: tuple[int, int]
) -> None:
    preview = preview_image(_encoded(Image.new("RGB", size, (11, 110, 79)), "PNG"))
    decoded = Image.open(io.BytesIO(preview.content))
    assert decoded.format == "JPEG"
    assert decoded.size == (preview.width, preview.height) == expected
    assert max(decoded.size) <= PREVIEW_MAX_SIDE
    red, green, blue = decoded.convert("RGB").getpixel((decoded.width // 2, decoded.height // 2))
    assert abs(red - 11) < 6 and abs(green - 110) < 6 and abs(blue - 79) < 6


def test_transparency_is_shown_on_white_and_jpeg_and_webp_sources_work() -> None:
    clear = _encoded(Image.new("RGBA", (1000, 500), (0, 0, 0, 0)), "PNG")
    assert Image.open(io.BytesIO(preview_image(clear).content)).getpixel((10, 10)) == (
        255,
        255,
        255,
    )
    for fmt in ("JPEG", "WEBP"):
        preview = preview_image(_encoded(Image.new("RGB", (1600, 900), "navy"), fmt))
        assert (preview.width, preview.height) == (512, 288)


def test_something_that_is_not_an_image_is_refused() -> None:
    with pytest.raises(ValueError, match="not an image"):
        preview_image(b"%PDF-1.7\n")
