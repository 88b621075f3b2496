"""Document parsing: reading PDFs and images (text layer or OCR) and extracting fields.

- :func:`parse`: a :class:`ParseRequest` in, a :class:`ParseResult` out.
- :class:`Extractor`: the protocol; :class:`LocalExtractor` (offline rules, the default),
  :class:`OpenAIExtractor` and :class:`AnthropicExtractor` (remote models over httpx).
- :class:`Rankers`: which fields the local extractor's learned rankers choose
  (:data:`RULES_ONLY`: none).
- :class:`Arbiter`: a language model the local extractor may ask to choose between the
  candidates of a name it is unsure of (off by default): :class:`OpenAIArbiter`,
  :class:`AnthropicArbiter`, :class:`MemoryArbiter` (see :mod:`renderkit.parsing.arbiter`).
- :class:`OcrEngine`: the OCR protocol; :class:`RapidOcr` runs PP-OCR models offline (the
  default when installed), :class:`TesseractOcr` the tesseract program; :func:`ocr_engine`
  picks one by name.
- :class:`Document`, :class:`Page`, :class:`Line`, :class:`Word`: what extractors read.
- :class:`ParseLimits`: size, page and pixel bounds passed to :func:`renderkit.parse`.
"""

from __future__ import annotations

from renderkit.parsing._models import PARSE_MIME_TYPES, ParseRequest, ParseResult
from renderkit.parsing._protocol import (
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
from renderkit.parsing.arbiter import AnthropicArbiter, Arbiter, MemoryArbiter, OpenAIArbiter
from renderkit.parsing.extract.classify import classify
from renderkit.parsing.llm import AnthropicExtractor, OpenAIExtractor
from renderkit.parsing.pipeline import parse
from renderkit.parsing.rank.switches import RULES_ONLY, Rankers
from renderkit.parsing.readers.document import ParseLimits, read_document
from renderkit.parsing.readers.ocr import OCR_ENGINES, OcrEngine, ocr_engine
from renderkit.parsing.readers.rapidocr import RapidOcr
from renderkit.parsing.readers.tesseract import TesseractOcr
from renderkit.parsing.rules import LocalExtractor

__all__ = [
    "DOCUMENT_TYPES",
    "OCR_ENGINES",
    "PARSE_MIME_TYPES",
    "RULES_ONLY",
    "AnthropicArbiter",
    "AnthropicExtractor",
    "Arbiter",
    "Document",
    "Extraction",
    "Extractor",
    "FieldProvenance",
    "Line",
    "LocalExtractor",
    "MemoryArbiter",
    "OcrEngine",
    "OpenAIArbiter",
    "OpenAIExtractor",
    "Page",
    "ParseLimits",
    "ParseRequest",
    "ParseResult",
    "Rankers",
    "RapidOcr",
    "TesseractOcr",
    "Usage",
    "Word",
    "classify",
    "ocr_engine",
    "parse",
    "read_document",
]
