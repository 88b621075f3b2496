"""Images from named templates or custom HTML (PNG, JPEG, WebP), rendered by Chromium.

:func:`render_image` takes an :class:`ImageRequest` (or a dict in the HTTP API's shape) and a
:class:`~renderkit.browser.Browser`; :data:`IMAGE_TEMPLATES` lists the built-in templates and
:class:`ImageData` is the data every template takes.
"""

from __future__ import annotations

from renderkit.image._models import (
    IMAGE_FORMATS,
    IMAGE_TEMPLATES,
    ImageData,
    ImageRequest,
    ImageResult,
    ImageTemplate,
)
from renderkit.image._render import render_image
from renderkit.image.signed_url import sign_image_url

__all__ = [
    "IMAGE_FORMATS",
    "IMAGE_TEMPLATES",
    "ImageData",
    "ImageRequest",
    "ImageResult",
    "ImageTemplate",
    "render_image",
    "sign_image_url",
]
