"""parse: a PDF or image in, structured JSON out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio.to_thread
import jsonschema
import jsonschema.exceptions
import jsonschema.validators

from renderkit.core.converter import structure
from renderkit.core.errors import InvalidRequestError
from renderkit.core.schemarefs import ref_cycle
from renderkit.core.workers import WorkerPool
from renderkit.parsing._models import ParseRequest, ParseResult, check_schema_depth
from renderkit.parsing._protocol import Extractor
from renderkit.parsing.confidence import field_confidences, overall_confidence
from renderkit.parsing.einvoice import EXTRACTOR_NAME, einvoice_extraction, read_embedded_invoice
from renderkit.parsing.local import LocalExtractor
from renderkit.parsing.ocr import OcrEngine, ocr_engine
from renderkit.parsing.reading import ParseLimits, decode_file, read_document

__all__ = ["check_schema", "parse"]

_DEFAULT_LIMITS = ParseLimits()


_DEFAULT_OCR: list[OcrEngine] = []

_REF_CYCLE = "refers to itself without end (a $ref cycle that never reaches a type)"


def _default_ocr() -> OcrEngine:
    # One default engine per process, so RapidOCR loads its models once, not per call.
    if not _DEFAULT_OCR:
        _DEFAULT_OCR.append(ocr_engine())
    return _DEFAULT_OCR[0]


def check_schema(schema: Mapping[str, Any]) -> type[jsonschema.protocols.Validator]:
    """Check that ``schema`` is a JSON Schema renderkit can fill, and return its validator class.

    Raises:
        InvalidRequestError: on field ``schema``: not valid JSON Schema (per its ``$schema``
            dialect, 2020-12 by default), nested more than 40 levels, a ``$ref`` cycle, or
            not an object schema with ``properties``.
    """
    check_schema_depth(schema)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(dict(schema))
    except jsonschema.exceptions.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        msg = f"is not a valid JSON Schema: {exc.message[:200]}" + (
            f" (at {where})" if where else ""
        )
        raise InvalidRequestError.single("schema", msg) from None
    cycle = ref_cycle(schema)  # before any work: a cycle deeper in is found only by the data
    if cycle is not None:
        raise InvalidRequestError.single("schema", f"{_REF_CYCLE} at {cycle[:80]}")
    try:
        # Validating anything walks a top-level $ref cycle ({"$ref": "#"}) without end: find
        # that now, before any work is done, rather than after extraction.
        cls(dict(schema)).is_valid({})
    except RecursionError:
        raise InvalidRequestError.single("schema", _REF_CYCLE) from None
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        msg = 'must describe an object with "properties" (the fields to extract)'
        raise InvalidRequestError.single("schema", msg)
    if len(properties) > 500:
        msg = "may list at most 500 properties"
        raise InvalidRequestError.single("schema", msg)
    return cls


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
        The data with its document type, confidence, warnings, token usage and page count.

    Raises:
        InvalidRequestError: naming ``file`` (not base64, empty, too large, corrupt,
            encrypted, too many pages or pixels), ``mimeType`` (does not match the bytes) or
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
    document = await read_document(
        content,
        req.mimeType,
        ocr=ocr if ocr is not None else _default_ocr(),
        limits=limits,
        workers=workers,
    )
    engine = extractor if extractor is not None else LocalExtractor()
    engine_name: str = getattr(engine, "name", type(engine).__name__)
    invoice, xml_warnings = (
        await read_embedded_invoice(document.content)
        if embedded_xml and document.mime_type == "application/pdf"
        else (None, ())
    )
    if invoice is not None:
        extraction, engine_name = einvoice_extraction(invoice, req.schema), EXTRACTOR_NAME
    else:
        extraction = await engine.extract(document, schema=req.schema, hints=req.hints)
    data = dict(extraction.data)
    warnings = [*xml_warnings, *extraction.warnings]
    invalid: set[str] = set()
    if req.schema is not None and validator_cls is not None:
        data = {name: data.get(name) for name in req.schema["properties"]}
        invalid = _validate(data, req.schema, validator_cls, warnings)
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
    )


def _validate(
    data: dict[str, Any],
    schema: Mapping[str, Any],
    validator_cls: type[jsonschema.protocols.Validator],
    warnings: list[str],
) -> set[str]:
    # A field the extractor could not find is null: that is reported as "not found", not as
    # a type mismatch, so nulls are left out of validation (required ones still warn).
    present = {k: v for k, v in data.items() if v is not None}
    validator = validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
    invalid: set[str] = set()
    try:
        errors = sorted(validator.iter_errors(present), key=lambda e: list(e.absolute_path))
    except RecursionError:  # a $ref cycle under a property the data holds
        raise InvalidRequestError.single("schema", _REF_CYCLE) from None
    for error in errors:
        path = [str(p) for p in error.absolute_path]
        field = path[0] if path else None
        if error.validator == "required":
            continue  # missing fields already carry a "not found" warning
        if field is not None:
            invalid.add(field)
        where = ".".join(path) or "data"
        warnings.append(f"{where}: does not match the schema ({error.message[:160]})")
    return invalid
