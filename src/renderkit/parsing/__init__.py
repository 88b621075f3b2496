"""Document parsing: reading PDFs and images (text layer or OCR) and extracting fields.

- :class:`Extractor`: the protocol; :class:`LocalExtractor` (offline rules, the default),
  :class:`OpenAIExtractor` and :class:`AnthropicExtractor` (remote models over httpx).
- :class:`OcrEngine`: the OCR protocol; :class:`TesseractOcr` runs the tesseract program.
- :class:`Document`, :class:`Page`, :class:`Line`, :class:`Word`: what extractors read.
- :class:`ParseLimits`: size, page and pixel bounds passed to :func:`renderkit.parse`.
"""

from __future__ import annotations

from ._protocol import (
    DOCUMENT_TYPES,
    Document,
    Extraction,
    Extractor,
    FieldProvenance,
    Line,
    Page,
    Usage,
    Word,
)
from .llm import AnthropicExtractor, OpenAIExtractor
from .local import LocalExtractor, classify
from .ocr import OcrEngine, TesseractOcr
from .reading import ParseLimits, read_document

__all__ = [
    "DOCUMENT_TYPES",
    "AnthropicExtractor",
    "Document",
    "Extraction",
    "Extractor",
    "FieldProvenance",
    "Line",
    "LocalExtractor",
    "OcrEngine",
    "OpenAIExtractor",
    "Page",
    "ParseLimits",
    "TesseractOcr",
    "Usage",
    "Word",
    "classify",
    "read_document",
]
