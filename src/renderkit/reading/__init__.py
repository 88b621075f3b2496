"""Web pages read as clean Markdown, HTML or text, through the egress-checked browser.

:func:`read_page` loads a page like :func:`renderkit.screenshot` and answers its main
content (navigation, sidebars, footers, ads and banners left out) with the page's metadata.
"""

from __future__ import annotations

from renderkit.reading._extract import extractor_version
from renderkit.reading._models import (
    MAX_DOM_CHARS,
    MAX_OUTPUT_CHARS,
    READ_FORMATS,
    PageMetadata,
    ReadRequest,
    ReadResult,
)
from renderkit.reading._read import read_page

__all__ = [
    "MAX_DOM_CHARS",
    "MAX_OUTPUT_CHARS",
    "READ_FORMATS",
    "PageMetadata",
    "ReadRequest",
    "ReadResult",
    "extractor_version",
    "read_page",
]
