"""parse: a PDF or image in, structured JSON out; the stages in the order they run.

1. read (:mod:`~renderkit.parsing.readers`): the file decoded, a PDF's text layer read and
   other pages and images read by OCR, into a :class:`~renderkit.parsing.Document`;
2. an embedded e-invoice (:mod:`~renderkit.parsing.einvoice`), when the PDF carries one, is
   exact and replaces extraction;
3. otherwise the extractor runs: the local one lays the page out
   (:mod:`~renderkit.parsing.layout`), classifies it, extracts that type's fields
   (:mod:`~renderkit.parsing.extract`), asks its arbiter, if it has one, about the names it is
   unsure of (:mod:`~renderkit.parsing.arbiter`) and fills them (:mod:`~renderkit.parsing.fill`);
4. the data is validated against the schema and every field scored
   (:mod:`~renderkit.parsing.fill.validation`, :mod:`~renderkit.parsing.fill.confidence`);
5. with ``output`` ``markdown`` or ``fields+markdown``, the read document is also written as
   Markdown (:mod:`~renderkit.parsing.markdown`); ``markdown`` alone skips stages 2 to 4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio.to_thread

from renderkit.core.converter import structure
from renderkit.core.workers import WorkerPool
from renderkit.parsing._models import ParseRequest, ParseResult
from renderkit.parsing._protocol import Extractor
from renderkit.parsing.einvoice import (
    EXTRACTOR_NAME,
    EInvoice,
    einvoice_extraction,
    read_embedded_invoice,
)
from renderkit.parsing.fill.confidence import field_confidences, overall_confidence
from renderkit.parsing.fill.validation import check_schema, validate
from renderkit.parsing.markdown import MarkdownDocument, to_markdown
from renderkit.parsing.readers.decrypt import decrypted
from renderkit.parsing.readers.document import (
    ParseLimits,
    check_pdf_streams,
    decode_file,
    read_document,
    sniff_mime_type,
)
from renderkit.parsing.readers.ocr import OcrEngine, ocr_engine
from renderkit.parsing.rules import LocalExtractor

__all__ = ["parse"]

_DEFAULT_LIMITS = ParseLimits()
_PDF = "application/pdf"


_DEFAULT_OCR: list[OcrEngine] = []


def _default_ocr() -> OcrEngine:
    # One default engine per process, so RapidOCR loads its models once, not per call.
    if not _DEFAULT_OCR:
        _DEFAULT_OCR.append(ocr_engine())
    return _DEFAULT_OCR[0]


async def parse(
    request: ParseRequest | Mapping[str, Any],
    *,
    extractor: Extractor | None = None,
    ocr: OcrEngine | None = None,
    limits: ParseLimits = _DEFAULT_LIMITS,
    embedded_xml: bool = True,
    workers: WorkerPool | None = None,
) -> ParseResult:
    """Extract structured data from a PDF or an image.

    PDF pages with a text layer are read directly; other pages and images are read by OCR.
    The extractor then detects the document type and extracts fields (or fills ``schema``),
    and the data is validated against the schema: mismatches become warnings.

    Args:
        request: a :class:`ParseRequest`, or a JSON-like mapping in the shape of the HTTP body.
        extractor: what turns text into fields; default :class:`~renderkit.parsing.LocalExtractor`
            (offline rules). See also :class:`~renderkit.parsing.OpenAIExtractor` and
            :class:`~renderkit.parsing.AnthropicExtractor`.
        ocr: reads scanned pages and images; default :func:`~renderkit.parsing.ocr_engine`'s
            choice (:class:`~renderkit.parsing.RapidOcr` when installed, else
            :class:`~renderkit.parsing.TesseractOcr`).
        limits: size, page and pixel bounds (configuration from the caller).
        embedded_xml: read a PDF's embedded e-invoice XML (Factur-X, ZUGFeRD, XRechnung,
            UBL) when it has one: its values are exact, so they replace the extractor's
            (``extractor`` is then ``"embedded-xml"``). False reads the page in every case.
        workers: the pool PDF pages are opened and rasterised in (None: unbounded, as
            PDFium's lock allows); OCR pages are bounded by the OCR engine's own pool.

    Returns:
        The data with its document type, confidence, warnings, token usage and page count;
        with ``output`` ``markdown`` or ``fields+markdown``, the document as Markdown with the
        page and box of each block (``markdown`` alone extracts no fields: ``data`` is empty).

    Raises:
        InvalidRequestError: naming ``file`` (not base64, empty, too large, corrupt,
            encrypted, too many pages or pixels, streams or attachments decoding past
            ``limits``), ``mimeType`` (does not match the bytes) or
            ``schema`` (not valid JSON Schema).
        MissingDependencyError: OCR is needed and no OCR engine is installed.
        ProviderError: a remote model failed (e.g. a rejected key).
        ProviderUnavailableError: a remote model was unreachable or overloaded after retries.
        WorkersBusyError: a worker pool (OCR or PDF) is busy and its queue is full.
    """
    req = request if isinstance(request, ParseRequest) else structure(request, ParseRequest)
    validator_cls = check_schema(req.schema) if req.schema is not None else None
    content = await anyio.to_thread.run_sync(
        lambda: decode_file(req.file, max_bytes=limits.max_bytes)
    )
    if sniff_mime_type(content) == _PDF:
        # Permission-only encryption: read (and measured) through a decrypted copy.
        content = await anyio.to_thread.run_sync(
            lambda: decrypted(content, max_bytes=2 * limits.max_bytes)
        )
    invoice: EInvoice | None = None
    xml_warnings: tuple[str, ...] = ()
    if (
        req.wants_fields
        and embedded_xml
        and req.mimeType == _PDF
        and sniff_mime_type(content) == _PDF
    ):
        # Attachments are read (and their total bounded) before any page is, so a PDF
        # refused for them has cost no OCR. read_document checks the streams again: cheap.
        await anyio.to_thread.run_sync(check_pdf_streams, content, limits)
        invoice, xml_warnings = await read_embedded_invoice(
            content, max_bytes=limits.max_embedded_bytes
        )
    document = await read_document(
        content,
        req.mimeType,
        ocr=ocr if ocr is not None else _default_ocr(),
        limits=limits,
        workers=workers,
    )
    markdown: MarkdownDocument | None = None
    if req.wants_markdown:
        markdown = await anyio.to_thread.run_sync(
            lambda: to_markdown(document, max_chars=req.max_chars)
        )
    if not req.wants_fields:
        return ParseResult(
            data={},
            document_type="other",
            confidence=0.0,
            pages=len(document.pages),
            extractor="none",
            markdown=markdown,
            output=req.output,
        )
    engine = extractor if extractor is not None else LocalExtractor()
    engine_name: str = getattr(engine, "name", type(engine).__name__)
    if invoice is not None:
        extraction, engine_name = einvoice_extraction(invoice, req.schema), EXTRACTOR_NAME
    else:
        extraction = await engine.extract(document, schema=req.schema, hints=req.hints)
    data = dict(extraction.data)
    warnings = [*xml_warnings, *extraction.warnings]
    invalid: set[str] = set()
    if req.schema is not None and validator_cls is not None:
        data = {name: data.get(name) for name in req.schema["properties"]}
        invalid = validate(data, req.schema, validator_cls, warnings)
    fields = field_confidences(
        data, extraction.field_confidence, invalid=invalid, default=document.ocr_confidence
    )
    requested = tuple(req.schema["properties"]) if req.schema is not None else ()
    confidence = overall_confidence(requested or extraction.expected_fields, data, fields)
    return ParseResult(
        data=data,
        document_type=extraction.document_type,
        confidence=confidence,
        field_confidence=fields,
        warnings=tuple(warnings),
        usage=extraction.usage,
        pages=len(document.pages),
        provenance=dict(extraction.provenance) if req.include_provenance else None,
        extractor=engine_name,
        markdown=markdown,
        output=req.output,
    )
