"""render_image: named templates and custom HTML to PNG, JPEG or WebP."""

from __future__ import annotations

import functools
import io
from collections.abc import Mapping
from typing import Any

import attrs
from PIL import Image

from renderkit.browser import Browser, Capture, Shell
from renderkit.core.converter import structure
from renderkit.core.shell import shell_head
from renderkit.image._models import ImageRequest, ImageResult
from renderkit.image._templates import image_css, render_fragment
from renderkit.storage import Storage
from renderkit.storage.files import attach_storage

__all__ = ["image_shell", "render_image"]


@functools.cache
def image_shell() -> Shell:
    """The warm-page shell every image template renders into."""
    return Shell(name="image", head=shell_head(image_css()))


async def render_image(
    request: ImageRequest | Mapping[str, Any],
    *,
    browser: Browser,
    storage: Storage | None = None,
) -> ImageResult:
    """Render an image from a named template or custom HTML.

    Args:
        request: an :class:`ImageRequest`, or a JSON-like mapping in the shape of the HTTP API
            body (either interface variant).
        browser: where to render, normally a :class:`~renderkit.browser.ChromiumPool`.
        storage: when given, the file is stored there and the result carries its key and URL.

    Returns:
        The encoded image with its pixel size (CSS size x ``scale``), and a warning for each
        ``data`` field the template does not display.

    Raises:
        InvalidRequestError: a field is missing or invalid, the template would show nothing
            of ``data``, a strict request has a field the template does not display (the
            error names it, e.g. ``data.cta``), or an image in ``data`` failed to load (the
            error names ``data.logo_url``).
        BlockedUrlError: ``logo_url`` or the custom HTML points at a disallowed address.
        RenderTimeoutError: the render exceeded the browser's time limit.
        BrowserBusyError: the browser's queue is full.
        RenderError: the browser failed.
        StorageError: storing the file failed.
    """
    req = request if isinstance(request, ImageRequest) else structure(request, ImageRequest)
    width, height = req.size
    capture = Capture(
        width=width,
        height=height,
        scale=req.effective_scale,
        format=req.format,
        quality=req.quality,
    )
    spec = req.spec
    if spec.name == "custom":
        assert req.html is not None  # guaranteed by ImageRequest's validation
        content = await browser.capture_document(req.html, capture)
    else:
        data = attrs.asdict(req.data)
        fragment = render_fragment(spec.name, data, width=width, height=height)
        content = await browser.capture_fragment(image_shell(), fragment, capture)
    pixel_width, pixel_height = _pixel_size(content, capture)
    result = ImageResult(
        content=content,
        format=req.format,
        width=pixel_width,
        height=pixel_height,
        template=req.template,
        filename=req.suggested_filename,
        warnings=req.warnings,
    )
    return await attach_storage(result, storage, kind="images")


def _pixel_size(content: bytes, capture: Capture) -> tuple[int, int]:
    # Report what the file really is; Chromium rounds fractional scales.
    try:
        with Image.open(io.BytesIO(content)) as image:
            return image.size
    except OSError:
        return capture.pixel_size
