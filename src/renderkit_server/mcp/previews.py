"""Small previews of produced images, for MCP results an agent reads into its context.

A full-size card or screenshot inlined as base64 costs an agent thousands of tokens for
detail it rarely needs to judge the result; a downscaled JPEG of at most
:data:`PREVIEW_MAX_SIDE` pixels on its long side shows the layout, the text and the colours at
a few tens of KB. The full file stays one link away.
"""

from __future__ import annotations

import io

import attrs
from PIL import Image

__all__ = ["PREVIEW_MAX_SIDE", "PREVIEW_MEDIA_TYPE", "Preview", "preview_image"]

#: The longest side of a preview in pixels: enough to read a card's title and judge a layout.
PREVIEW_MAX_SIDE = 512
#: Previews are JPEG: every MCP client and model API that takes images takes JPEG, and a
#: downscaled render compresses to a fraction of the PNG's size.
PREVIEW_MEDIA_TYPE = "image/jpeg"
_QUALITY = 80
# Transparent parts are shown on white, as most viewers show a transparent PNG.
_BACKGROUND = (255, 255, 255)


@attrs.frozen(kw_only=True)
class Preview:
    """A downscaled JPEG of an image.

    Attributes:
        content: the JPEG file.
        width, height: its size in pixels (the long side at most :data:`PREVIEW_MAX_SIDE`).
    """

    content: bytes = attrs.field(repr=False)
    width: int
    height: int
    media_type: str = PREVIEW_MEDIA_TYPE


def preview_image(content: bytes, *, max_side: int = PREVIEW_MAX_SIDE) -> Preview:
    """Downscale an encoded image (PNG, JPEG, WebP) to fit ``max_side``, as JPEG.

    Never enlarges: a small image keeps its size. CPU-bound (tens of ms for a card, more for
    a long full-page screenshot): call it from a worker thread.

    Raises:
        ValueError: ``content`` is not an image Pillow can read.
    """
    try:
        with Image.open(io.BytesIO(content)) as source:
            # JPEG sources decode at a reduced scale directly (DCT scaling), much faster.
            source.draft("RGB", (max_side, max_side))
            # Scaled before converting: a converted full-page screenshot would be another
            # copy of up to 40 megapixels.
            source.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
            image = source.convert("RGBA")
    except (OSError, Image.DecompressionBombError) as exc:
        msg = "not an image that can be previewed"
        raise ValueError(msg) from exc
    flat = Image.new("RGB", image.size, _BACKGROUND)
    flat.paste(image, mask=image.getchannel("A"))
    out = io.BytesIO()
    flat.save(out, format="JPEG", quality=_QUALITY, optimize=True)
    return Preview(content=out.getvalue(), width=flat.width, height=flat.height)
