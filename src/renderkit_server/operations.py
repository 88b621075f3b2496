"""The production operations, shared by the REST endpoints and the MCP tools.

Each operation knows its request model, what it charges, how to run it through the library,
and how to describe the result as the superset response of both interface variants. The
metered pipeline in :func:`execute` is the only place where quota, rendering, storage and
refunds meet, so REST and MCP calls are metered identically.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import anyio
import attrs

from renderkit import (
    AUDIO_FORMATS,
    AudioRequest,
    ImageRequest,
    ParseRequest,
    PdfRequest,
    ReadRequest,
    RenderTimeoutError,
    ScreenshotRequest,
    parse,
    read_page,
    render_image,
    render_pdf,
    screenshot,
    structure,
    synthesize,
)
from renderkit.browser import Browser, TenantAware, TenantClass
from renderkit.core.filenames import suggested_filename
from renderkit.core.media import MEDIA_TYPES
from renderkit.core.times import isoformat_z
from renderkit.parsing import DOCUMENT_TYPES
from renderkit.parsing.markdown import BLOCK_KINDS
from renderkit.pdf import PDF_STANDARDS
from renderkit.pdfops import SIGNATURE_LEVELS, PdfOpsRequest, check_signer, pdf_ops
from renderkit.reading import READ_FORMATS, extractor_version
from renderkit.speech.budget import check_budget
from renderkit.storage import Storage
from renderkit.storage.files import store_file
from renderkit_server.engines import Engines
from renderkit_server.files import FileUrls
from renderkit_server.metrics import Metrics
from renderkit_server.quotas import FailedWorkBudget, PlanLimits, QuotaService, audio_charges
from renderkit_server.state.inflight import InflightLimiter, LimitedBrowser
from renderkit_server.state.render_cache import RenderCache
from renderkit_server.state.render_cache import lookup as render_cache
from renderkit_server.state.render_cache import scope as cache_scope

__all__ = [
    "AUDIO",
    "OPERATIONS",
    "PRODUCTION_ERRORS",
    "Execution",
    "Operation",
    "Production",
    "execute",
    "plan_class",
]


@attrs.frozen(kw_only=True)
class Output:
    """What an operation produced: the file (none for parse) plus the facts to report."""

    content: bytes | None
    content_type: str = ""
    extension: str = ""
    #: The readable download name (``invoice-INV-0042.pdf``), stored with the file.
    filename: str | None = None
    facts: Mapping[str, Any]
    #: Metrics reserved from an estimate, settled at the measured amount (audio minutes).
    settle: Mapping[str, int] = attrs.field(factory=dict)


#: The statuses a production call can fail with, each answered with the error envelope (409:
#: a reused or still-running ``Idempotency-Key``, see :mod:`renderkit_server.idempotency`).
PRODUCTION_ERRORS: tuple[int, ...] = (400, 401, 409, 413, 415, 429, 500, 502, 503, 504)


@attrs.frozen(kw_only=True)
class Operation:
    """One production capability (image, pdf, audio, screenshot, parse, pdf-ops).

    The operation is the one description of its endpoint: REST, the OpenAPI document and
    the MCP tool all read the request model, the success body (:meth:`response_schema`) and
    the error statuses from here.

    Attributes:
        name: the endpoint name (``/api/<name>``).
        kind: the storage prefix of its files (``images``, ``pdfs``...).
        metric: the quota metric a call charges; ``credits_used`` reports its amount.
        model: the request model.
        title: a short summary.
        description: what it does, for people and agents.
        run: renders the request with the engines.
        fields: the JSON Schema of each fact :attr:`run` reports.
        charges: metrics charged besides one ``metric`` (audio's estimated minutes).
        stores_file: whether a call produces a stored file, reported by ``url`` and
            ``size_bytes``.
        optional_fields: facts only some calls report (left out of ``required``).
        error_statuses: the HTTP statuses a call can fail with.
        cache_ttl: seconds the render cache keeps a request's file, and the oldest entry
            the request accepts, given the request and the operator's
            ``cache_ttl_seconds``; 0: not cached (see
            :mod:`renderkit_server.state.render_cache.lookup`).
        renderer: the renderer version, part of every cache key.
        cache_shareable: whether a request's render may be shared by every key when the
            operator allows it (``cache_share_templates``): named templates only, never
            HTML a caller wrote.
        admit: refuses a valid request the engines cannot do within their bounds (raises
            ``InvalidRequestError``), before anything is reserved or charged.
        warnings: what the request itself warns about (``data`` fields the template does not
            display), answered as ``warnings``; None for operations without such warnings.
            A function of the request alone, so an answer from the render cache carries
            the same warnings as the render that stored it.
        text_field: for an operation whose file is text (a read page), the body field that
            also carries that text, given the request (``markdown``); None for the others.
        route: the operation that serves a payload instead of this one (a screenshot asked
            ``format: markdown`` is a read); None for this one.
    """

    name: str
    kind: str
    metric: str
    model: type[Any]
    title: str
    description: str
    run: Callable[[Any, Engines], Awaitable[Output]]
    fields: Mapping[str, Mapping[str, Any]]
    charges: Callable[[Any], Mapping[str, int]] = lambda req: {}
    stores_file: bool = True
    optional_fields: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
    error_statuses: tuple[int, ...] = PRODUCTION_ERRORS
    cache_ttl: Callable[[Any, int], int] = lambda req, default: 0
    renderer: Callable[[Engines], Awaitable[str]] = lambda engines: render_cache.browser_renderer(
        engines.browser
    )
    cache_shareable: Callable[[Any], bool] = lambda req: False
    admit: Callable[[Any, Engines], None] = lambda req, engines: None
    warnings: Callable[[Any], tuple[str, ...]] | None = None
    text_field: Callable[[Any], str] | None = None
    route: Callable[[object], Operation | None] = lambda payload: None

    def serving(self, payload: object) -> Operation:
        """The operation that serves ``payload``: this one, or the one :attr:`route` names."""
        return self.route(payload) or self

    def response_schema(self) -> dict[str, Any]:
        """The JSON Schema of the success body :func:`execute` builds.

        It is the 200 response of the OpenAPI document and the ``outputSchema`` of the MCP
        tool.
        """
        properties: dict[str, Any] = {"success": {"type": "boolean"}}
        if self.stores_file:
            properties["url"] = {"type": "string", "format": "uri"}
        properties.update(self.fields)
        if self.warnings is not None:
            properties["warnings"] = {
                "type": "array",
                "items": {"type": "string"},
                "description": "One line per data field the template does not display "
                "(ignored; refused instead when the request is strict); empty when none",
            }
        if self.stores_file:
            properties["size_bytes"] = {"type": "integer"}
            properties["cached"] = {
                "type": "boolean",
                "description": "True when answered from the render cache, free",
            }
        properties["credits_used"] = {
            "type": "integer",
            "description": f"What the call used of the monthly {self.metric} quota",
        }
        return {
            "type": "object",
            "required": sorted(properties),
            "properties": {**properties, **self.optional_fields},
        }


@attrs.frozen(kw_only=True)
class Execution:
    """The response body and headers of a successful call, and the file it produced."""

    body: dict[str, Any]
    headers: dict[str, str]
    content: bytes | None = None
    content_type: str = ""
    #: The body field carrying the file's text (``markdown``), for a text result.
    text_field: str | None = None


@attrs.frozen(kw_only=True)
class Production:
    """What the metered pipeline of :func:`execute` uses, and nothing else.

    Attributes:
        engines: what operations run on.
        quotas: reserves a call's charges, released when it fails.
        storage: where produced files go.
        urls: the URLs answered for stored files.
        render_cache: the render cache's index.
        inflight: holds each key's browser renders to its plan's cap over every replica.
        failed_work: the browser time a key may lose to its own timed-out calls.
        metrics: counts renders and cache lookups.
        cache_ttl_seconds: the operator's render cache lifetime.
        cache_share_templates: whether every key shares the cached renders of requests
            :attr:`Operation.cache_shareable` allows; otherwise each key lineage has its own.
    """

    engines: Engines
    quotas: QuotaService
    storage: Storage
    urls: FileUrls
    render_cache: RenderCache
    inflight: InflightLimiter
    failed_work: FailedWorkBudget
    metrics: Metrics
    cache_ttl_seconds: int
    cache_share_templates: bool = False


async def execute(
    operation: Operation,
    payload: object,
    *,
    production: Production,
    key_id: str,
    plan: str,
    base_url: str | None,
    charge_id: str | None = None,
    burst: bool = True,
) -> Execution:
    """Validate, reserve quota, run, store, respond; refund on any failure.

    The call's charges are leases until the response body is built: only then are they
    committed, so a call that fails, or whose process dies, is never charged (see
    :mod:`renderkit_server.quotas.service`). ``charge_id`` (a job's id) makes the commit
    idempotent: however many times the same job runs, it is charged once; ``burst=False``
    leaves out the burst limit (a job's request was counted when it was submitted).

    Raises:
        InvalidRequestError: the payload is invalid (nothing is charged).
        QuotaExceededError, RateLimitedError: the key's limits are reached.
        FailedWorkExhaustedError: the key's timed-out calls spent its failed-work budget.
        RenderkitError: rendering or storing failed (the reservation is released).
    """
    operation = operation.serving(payload)
    request = structure(payload, operation.model)
    operation.admit(request, production.engines)
    quotas, urls = production.quotas, production.urls
    ttl = operation.cache_ttl(request, production.cache_ttl_seconds)
    found = await render_cache.lookup(
        operation=operation.name,
        kind=operation.kind,
        request=request,
        ttl=ttl,
        renderer=await operation.renderer(production.engines) if ttl > 0 else "",
        scope=cache_scope(
            key_id,
            shared=production.cache_share_templates and operation.cache_shareable(request),
        ),
        index=production.render_cache,
        storage=production.storage,
        counter=production.metrics.cache_requests,
    )
    if found.hit is not None:
        # Free: no monthly reservation, only the burst limit counts the call (a hit reports
        # its window in RateLimit-Policy/RateLimit, and no X-RateLimit-*: no quota was used).
        ticket = await quotas.reserve(key_id, plan, {}, burst=burst)
        entry = found.hit.entry
        body: dict[str, Any] = {
            "success": True,
            "url": await urls.url_for(entry.storage_key, base_url),
            **_text(operation, request, found.hit.content),
            **entry.facts,
            **_warnings(operation, request),
            "size_bytes": entry.size,
            "cached": True,
            "credits_used": 0,
        }
        return Execution(
            body=body,
            headers={**ticket.headers(), **found.headers},
            content=found.hit.content,
            content_type=entry.content_type,
            text_field=operation.text_field(request) if operation.text_field else None,
        )
    charges = {operation.metric: 1, **operation.charges(request)}
    await production.failed_work.check(key_id, plan)
    ticket = await quotas.reserve(key_id, plan, charges, burst=burst)
    try:
        engines = production.engines
        tenant = _as_tenant(production, key_id, plan)
        async with ticket.kept_alive():  # renders can outlast one lease
            output = await production.metrics.timed_render(
                operation.name, engines, operation.run(request, tenant)
            )
        for metric, amount in output.settle.items():
            await quotas.adjust(ticket, metric, amount)
        url = None
        if output.content is not None:
            stored = await store_file(
                production.storage,
                kind=operation.kind,
                extension=output.extension,
                content=output.content,
                content_type=output.content_type,
                filename=output.filename,
                url_ttl=urls.ttl,
            )
            url = await urls.url_for(stored.key, base_url)
            await render_cache.remember(
                found,
                storage_key=stored.key,
                content_type=output.content_type,
                size=len(output.content),
                facts=output.facts,
                index=production.render_cache,
            )
    except RenderTimeoutError as exc:
        # Uncharged, yet the browser (or worker) was held for the whole timeout.
        await ticket.release()
        await production.failed_work.spend(key_id, plan, exc.timeout)
        raise
    except BaseException:
        await ticket.release()
        raise
    body = {"success": True}
    if output.content is not None:  # a file's URL leads; its size follows the facts
        body["url"] = url
        body.update(_text(operation, request, output.content))
    body.update(output.facts)
    body.update(_warnings(operation, request))
    if output.content is not None:
        body["size_bytes"] = len(output.content)
        body["cached"] = False
    body["credits_used"] = charges[operation.metric]
    try:
        # Last: the result is stored and the answer built, so the charge is for a call
        # that is delivered; a failure or a crash before this line charges nothing.
        await ticket.commit(once=charge_id)
    except BaseException:
        await ticket.release()
        raise
    return Execution(
        body=body,
        headers={**ticket.headers(), **found.headers},
        content=output.content,
        content_type=output.content_type,
        text_field=operation.text_field(request) if operation.text_field else None,
    )


def _text(operation: Operation, request: object, content: bytes) -> dict[str, str]:
    # A text result travels in the body too: the caller wants the text, the file is its copy.
    if operation.text_field is None:
        return {}
    return {operation.text_field(request): content.decode("utf-8")}


def _warnings(operation: Operation, request: object) -> dict[str, list[str]]:
    # Always present (empty when none) where the operation has them, like screenshot's.
    if operation.warnings is None:
        return {}
    return {"warnings": list(operation.warnings(request))}


def _as_tenant(production: Production, key_id: str, plan: str) -> Engines:
    """The engines with the browser seen as this key: its plan's cap over every replica,
    then fair queueing under the same cap, in its plan's class, in the local pool or fleet."""
    limits = production.quotas.limits(plan)
    cap = limits.browser_inflight
    browser: Browser = production.engines.browser
    if isinstance(browser, TenantAware):
        browser = browser.for_tenant(key_id, max_inflight=cap, group=plan_class(plan, limits))
    limited = LimitedBrowser(browser, production.inflight, key_id=key_id, cap=cap)
    return attrs.evolve(production.engines, browser=limited)


def plan_class(plan: str, limits: PlanLimits) -> TenantClass:
    """The browser scheduling class of a plan: its weight and its shares of slots and queue."""
    return TenantClass(
        name=plan,
        weight=limits.browser_weight,
        slot_share=(limits.browser_slot_share or 100) / 100,
        queue_share=(limits.browser_queue_share or 100) / 100,
    )


def _operator_ttl(request: object, default: int) -> int:
    return default


async def _run_image(request: ImageRequest, engines: Engines) -> Output:
    result = await render_image(request, browser=engines.browser)
    return Output(
        content=result.content,
        content_type=result.content_type,
        extension=result.format,
        filename=result.filename,
        facts={
            "width": result.width,
            "height": result.height,
            "format": result.format,
            "template": result.template,
        },
    )


IMAGE = Operation(
    name="image",
    kind="images",
    metric="images",
    model=ImageRequest,
    title="Generate an image",
    description=(
        "Render a social image (PNG, JPEG or WebP) from a named template (og-card 1200x630, "
        "social-square 1080x1080, twitter-card 800x418, announcement 1200x400) filled with "
        "`data`, or from custom HTML (`template: custom`, `html`). Rendered at 2x by default; "
        "returns the file's URL, pixel size and byte size. A `data` field the template does "
        "not display is ignored and named in `warnings` (`strict: true` refuses it instead)."
    ),
    run=_run_image,
    warnings=lambda req: req.warnings,
    cache_ttl=_operator_ttl,
    cache_shareable=lambda req: req.spec.name != "custom",
    fields={
        "width": {"type": "integer", "description": "Pixels of the returned file"},
        "height": {"type": "integer", "description": "Pixels of the returned file"},
        "format": {"type": "string", "enum": ["png", "jpeg", "webp"]},
        "template": {"type": "string", "description": "The template name as sent"},
    },
)


async def _run_pdf(request: PdfRequest, engines: Engines) -> Output:
    result = await render_pdf(request, browser=engines.browser, max_pages=engines.pdf_max_pages)
    facts: dict[str, Any] = {
        "pages": result.pages,
        "pages_est": result.pages,
        "page_size": result.page_size,
        "landscape": result.landscape,
        "template": result.template,
        "format": result.format,
    }
    if result.pdf_standard is not None:
        facts["pdf_standard"] = result.pdf_standard
    if result.tagged:
        facts["tagged"] = True
    if result.einvoice is not None:
        facts.update(
            einvoice=result.einvoice,
            einvoice_profile=result.einvoice_profile,
            einvoice_validated=list(result.einvoice_checks),
        )
    return Output(
        content=result.content,
        content_type=result.content_type,
        extension=result.format,
        filename=result.filename,
        facts=facts,
    )


PDF = Operation(
    name="pdf-gen",
    kind="pdfs",
    metric="pdfs",
    model=PdfRequest,
    title="Generate a PDF",
    description=(
        "Render a business document as PDF from a template (invoice with computed totals and "
        "per-currency formatting, certificate (landscape), report with numbered pages, "
        "letter) filled with `data`, or from custom HTML (`template: custom` with `html` or "
        "`data.html`). Options: page_size A4/Letter/Legal/A3, landscape, margin "
        "none/small/normal/large, locale (labels, dates and numbers: en, de, fr, es, ar, ja...; "
        "right-to-left locales print mirrored pages). Returns the file's URL and exact page count. "
        "A report needs a title or a section, a letter a body or a subject; a `data` field the "
        "template does not display is named in `warnings` (`strict: true` refuses it instead). "
        "Invoices with `einvoice` (factur-x, zugferd, xrechnung, ubl; `einvoice_profile` "
        "en16931 by default) are also written as EN 16931 e-invoices, validated against the "
        "XSD and Schematron: Factur-X/ZUGFeRD as a PDF/A-3b carrying the XML, XRechnung and "
        "UBL as the XML itself (`einvoice_embed: true` for the PDF). `pdf_standard` "
        "PDF/A-2b or PDF/A-3b makes an archival PDF (sRGB output intent, XMP, embedded fonts); "
        "`tagged: true` an accessible one (structure tree, outline of the headings, the "
        "locale as its language)."
    ),
    run=_run_pdf,
    warnings=lambda req: req.warnings,
    cache_ttl=_operator_ttl,
    cache_shareable=lambda req: req.kind != "custom",
    fields={
        "pages": {"type": "integer", "description": "Exact page count"},
        "pages_est": {
            "type": "integer",
            "description": "Same as pages (the snake_case dialect's name)",
        },
        "page_size": {"type": "string", "enum": ["A4", "Letter", "Legal", "A3"]},
        "landscape": {"type": "boolean"},
        "template": {"type": "string", "description": "The template name as sent"},
        "format": {
            "type": "string",
            "enum": ["pdf", "xml"],
            "description": "xml: an XRechnung or UBL e-invoice answered as its XML",
        },
    },
    optional_fields={
        "pdf_standard": {
            "type": "string",
            "enum": list(PDF_STANDARDS),
            "description": "The PDF/A standard the file follows (only when it follows one)",
        },
        "tagged": {
            "type": "boolean",
            "description": "True when the file is a tagged PDF with an outline (as asked)",
        },
        "einvoice": {
            "type": "string",
            "enum": ["factur-x", "zugferd", "xrechnung", "ubl"],
            "description": "The e-invoice written (only when one was asked)",
        },
        "einvoice_profile": {"type": "string", "description": "Its profile (en16931...)"},
        "einvoice_validated": {
            "type": "array",
            "items": {"type": "string"},
            "description": (
                "The checks the XML passed: xsd, schematron-en16931 or schematron-extended "
                "(the official EN 16931 rules), xrechnung-br-de"
            ),
        },
    },
)


async def _run_screenshot(request: ScreenshotRequest, engines: Engines) -> Output:
    result = await screenshot(request, browser=engines.browser, max_pages=engines.pdf_max_pages)
    return Output(
        content=result.content,
        content_type=result.content_type,
        extension=result.format,
        filename=result.filename,
        facts={
            "width": result.width,
            "height": result.height,
            "format": result.format,
            "device": result.device,
            "full_page": result.full_page,
            "captured_at": isoformat_z(result.captured_at),
            "source_url": result.source_url,
            "http_status": result.http_status,
            "warnings": list(result.warnings),
        },
    )


SCREENSHOT = Operation(
    name="screenshot",
    kind="screenshots",
    metric="screenshots",
    model=ScreenshotRequest,
    title="Take a screenshot",
    description=(
        "Capture a public web page as PNG, JPEG, WebP or an A4 PDF, as a desktop (1280x800), "
        "laptop (1440x900), tablet (768x1024) or mobile (390x844 at 3x) browser, or a custom "
        "`viewport`. Options: fullPage (scrolls so lazy images load), darkMode, blockAds, "
        "delay (ms, at most 10000), selector (capture one element), quality. Returns the file "
        "URL, pixel size, the final URL after redirects and the page's HTTP status. "
        "`format` markdown, html or text reads the page instead: answered as POST /api/read."
    ),
    run=_run_screenshot,
    # Pages change: cached only when the request asks, and never once the operator disabled it.
    cache_ttl=lambda req, default: (req.cache_ttl or 0) if default > 0 else 0,
    route=lambda payload: _read_route(payload),
    fields={
        "width": {"type": "integer", "description": "Pixels of the returned image"},
        "height": {"type": "integer", "description": "Pixels of the returned image"},
        "format": {"type": "string", "enum": ["png", "jpeg", "webp", "pdf"]},
        "device": {"type": "string"},
        "full_page": {"type": "boolean"},
        "captured_at": {"type": "string", "format": "date-time"},
        "source_url": {"type": "string", "description": "Final URL after redirects"},
        "http_status": {"type": ["integer", "null"]},
        "warnings": {"type": "array", "items": {"type": "string"}},
    },
)


def _read_route(payload: object) -> Operation | None:
    """A screenshot asked as text (``format`` markdown, html or text) is a read."""
    if isinstance(payload, Mapping) and payload.get("format") in READ_FORMATS:
        return READ
    return None


_READ_EXTENSIONS = {"markdown": "md", "html": "html", "text": "txt"}


async def _run_read(request: ReadRequest, engines: Engines) -> Output:
    result = await read_page(request, browser=engines.browser)
    metadata = result.metadata
    extension = _READ_EXTENSIONS[result.format]
    return Output(
        content=result.content.encode("utf-8"),
        content_type=f"{result.media_type}; charset=utf-8",
        extension=extension,
        filename=suggested_filename("page", urlsplit(result.final_url).hostname, extension),
        facts={
            "format": result.format,
            "metadata": {
                "title": metadata.title,
                "description": metadata.description,
                "canonical_url": metadata.canonical_url,
                "language": metadata.language,
                "og": dict(metadata.og),
            },
            "requested_url": result.requested_url,
            "final_url": result.final_url,
            "http_status": result.http_status,
            "read_at": isoformat_z(result.read_at),
            "warnings": list(result.warnings),
        },
    )


async def _read_renderer(engines: Engines) -> str:
    # A new extractor may answer differently: its version is part of the cache key.
    return f"{await render_cache.browser_renderer(engines.browser)}+{extractor_version()}"


_NULLABLE_STRING = {"type": ["string", "null"]}

READ = Operation(
    name="read",
    kind="pages",
    # Reads count as screenshots: the same browser work on the same kind of target.
    metric="screenshots",
    model=ReadRequest,
    title="Read a web page",
    description=(
        "Read a public web page's main content as clean Markdown (default), simple HTML or "
        "plain text: navigation, sidebars, footers, ads and cookie banners are left out; "
        "headings, links, lists, tables and image alt text are kept. The page loads in a real "
        "browser (scripts run), with the screenshot's controls: waitForSelector, delay, "
        "clickSelector, hideSelectors, scrollPage, scripts, headers and cookies (sent to the "
        "page's origin only). Returns the text under the format's name (`markdown`, `html` "
        "or `text`), the page's metadata (title, description, canonical_url, language, "
        "Open Graph `og`), the requested and final URL, the HTTP status and the stored file's "
        "URL."
    ),
    run=_run_read,
    cache_ttl=lambda req, default: (req.cache_ttl or 0) if default > 0 else 0,
    renderer=_read_renderer,
    text_field=lambda req: req.format,
    fields={
        "format": {"type": "string", "enum": list(READ_FORMATS)},
        "metadata": {
            "type": "object",
            "required": ["title", "description", "canonical_url", "language", "og"],
            "properties": {
                "title": _NULLABLE_STRING,
                "description": _NULLABLE_STRING,
                "canonical_url": _NULLABLE_STRING,
                "language": {**_NULLABLE_STRING, "description": "The page's lang, e.g. en-GB"},
                "og": {
                    "type": "object",
                    "description": "Open Graph properties without the og: prefix",
                    "additionalProperties": {"type": "string"},
                },
            },
        },
        "requested_url": {"type": "string"},
        "final_url": {"type": "string", "description": "Where the page ended up"},
        "http_status": {"type": ["integer", "null"]},
        "read_at": {"type": "string", "format": "date-time"},
        "warnings": {"type": "array", "items": {"type": "string"}},
    },
    optional_fields={
        name: {
            "type": "string",
            "description": f"The main content as {name} (only the field `format` names)",
        }
        for name in READ_FORMATS
    },
)


def _admit_audio(request: AudioRequest, engines: Engines) -> None:
    check_budget(engines.speech, request, engines.speech_timeout)


async def _run_audio(request: AudioRequest, engines: Engines) -> Output:
    timeout = engines.speech_timeout
    try:
        # Cancellation stops the engine (Kokoro's model calls abort, espeak-ng is killed).
        with anyio.fail_after(timeout):
            result = await synthesize(
                request, provider=engines.speech, workers=engines.workers.audio
            )
    except TimeoutError:
        msg = f"speaking took longer than {timeout:g} s; send a shorter script"
        raise RenderTimeoutError(msg, timeout=timeout) from None
    seconds = result.duration_seconds
    return Output(
        content=result.content,
        content_type=result.content_type,
        extension=result.extension,
        filename=result.filename,
        facts={
            "format": result.format,
            "duration_seconds": seconds,
            "duration_est": seconds,
            "duration_est_sec": seconds,
            "characters": result.characters,
            "characters_used": result.characters,
            "voice_id": result.voice_id,
            "model": result.model,
        },
        settle={
            "audio_minutes": audio_charges(characters=result.characters, seconds=seconds)[
                "audio_minutes"
            ]
        },
    )


AUDIO = Operation(
    name="audio",
    kind="audio",
    metric="audio_characters",
    model=AudioRequest,
    title="Generate speech",
    description=(
        "Synthesise speech from `script` (at most 5,000 characters; fewer for a slower engine: "
        "what it says within the server's speech time budget) as mp3 (128 kbps, "
        "44.1 kHz), wav (PCM 44.1 kHz), opus or its alias ogg (96 kbps, 48 kHz, Ogg) or aac "
        "(128 kbps, 44.1 kHz, ADTS). Options: voice_id, model, speed 0.7-1.2, stability, "
        "similarity, style. Returns the file URL and the measured duration in seconds."
    ),
    run=_run_audio,
    admit=_admit_audio,
    cache_ttl=_operator_ttl,
    renderer=lambda engines: render_cache.speech_renderer(engines.speech),
    fields={
        "format": {"type": "string", "enum": list(AUDIO_FORMATS)},
        "duration_seconds": {"type": "number", "description": "Measured from the file"},
        "duration_est": {"type": "number", "description": "Same as duration_seconds"},
        "duration_est_sec": {"type": "number", "description": "Same as duration_seconds"},
        "characters": {"type": "integer"},
        "characters_used": {"type": "integer"},
        "voice_id": {"type": "string"},
        "model": {"type": "string"},
    },
    charges=lambda req: audio_charges(characters=req.characters, seconds=req.estimated_seconds),
)


async def _run_parse(request: ParseRequest, engines: Engines) -> Output:
    timeout = engines.parse_timeout
    try:
        # Tesseract runs as processes, which cancellation kills; a RapidOCR page in progress
        # finishes in its thread, but no further page starts.
        with anyio.fail_after(timeout):
            result = await parse(
                request,
                extractor=engines.extractor,
                ocr=engines.ocr,
                limits=engines.parse_limits,
                workers=engines.workers.pdf,
            )
    except TimeoutError:
        msg = f"parsing took longer than {timeout:g} s; send fewer pages or a smaller image"
        raise RenderTimeoutError(msg, timeout=timeout) from None
    facts = result.to_dict()
    del facts["success"]
    if request.wants_fields:
        facts["extractor"] = result.extractor
    return Output(content=None, facts=facts)


#: Where a block or a field was read on its page, in the answer schemas.
_BBOX_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "number"},
    "minItems": 4,
    "maxItems": 4,
    "description": "x0, y0, x1, y1 as fractions of the page, top left 0,0",
}


#: The body's fields with ``output`` ``markdown`` or ``fields+markdown``.
MARKDOWN_FIELDS: dict[str, dict[str, Any]] = {
    "markdown": {
        "type": "string",
        "description": "The document as Markdown; each page opens with <!-- page N -->",
    },
    "blocks": {
        "type": "array",
        "description": "The Markdown's blocks in order, each with where it was read",
        "items": {
            "type": "object",
            "required": ["page", "bbox", "kind", "text"],
            "properties": {
                "page": {"type": "integer"},
                "bbox": _BBOX_SCHEMA,
                "kind": {"type": "string", "enum": list(BLOCK_KINDS)},
                "text": {"type": "string", "description": "The block's Markdown"},
            },
        },
    },
    "truncated": {
        "type": "boolean",
        "description": "max_chars ended the Markdown early, at a block boundary",
    },
}


PARSE = Operation(
    name="parse",
    kind="parses",
    metric="parses",
    model=ParseRequest,
    title="Parse a document",
    description=(
        "Extract structured JSON from a PDF or an image (JPEG, PNG, WebP; base64 in `file`, "
        "its type in `mimeType`). PDF text layers are read directly, scans and photos by OCR. "
        "Without `schema` the document type is detected (invoice, receipt, purchase_order, "
        "contract, letter, resume, bank_statement, id_form, other) and its usual fields are "
        "extracted (parties, dates as ISO 8601, amounts, totals, line items...); with a JSON "
        "Schema `schema`, exactly its properties are filled and validated (mismatches become "
        "warnings). `hints` steer the extraction; `include_provenance` adds the page and box "
        "each field came from. Returns data, document_type, confidence 0-1 (overall and per "
        "field) and warnings. `output` `markdown` returns the whole document as Markdown "
        "instead (headings, paragraphs, lists, tables, reading order across columns, page "
        "markers; running headers and footers dropped) with `blocks`, the page and box of "
        "each block; `fields+markdown` both; `max_chars` ends the Markdown at a block "
        "boundary and sets `truncated`."
    ),
    run=_run_parse,
    stores_file=False,
    fields={
        "warnings": {"type": "array", "items": {"type": "string"}},
        "pages": {"type": "integer", "description": "Pages read"},
    },
    # The fields answer with output fields (the default) or fields+markdown, the Markdown
    # with markdown or fields+markdown.
    optional_fields={
        "data": {
            "type": "object",
            "description": "The extracted fields; exactly the schema's properties when given",
        },
        "document_type": {"type": "string", "enum": list(DOCUMENT_TYPES)},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "field_confidence": {
            "type": "object",
            "description": "Per found field, a confidence 0-1 that its value is right",
            "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1},
        },
        "usage": {
            "type": "object",
            "required": ["input_tokens", "output_tokens"],
            "properties": {
                "input_tokens": {"type": "integer"},
                "output_tokens": {"type": "integer"},
            },
        },
        "extractor": {"type": "string", "description": "local, openai, anthropic or embedded-xml"},
        **MARKDOWN_FIELDS,
        "provenance": {
            "type": "object",
            "description": "With include_provenance: per field, where it was read",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "page": {"type": "integer"},
                    "bbox": _BBOX_SCHEMA,
                    "text": {"type": "string"},
                },
            },
        },
    },
)


async def _run_pdf_ops(request: PdfOpsRequest, engines: Engines) -> Output:
    timeout = engines.parse_timeout
    try:
        with anyio.fail_after(timeout):
            result = await pdf_ops(
                request,
                browser=engines.browser,
                limits=engines.pdfops_limits,
                workers=engines.workers.pdf,
                signer=engines.signer,
            )
    except TimeoutError:
        msg = f"the PDF operations took longer than {timeout:g} s; send fewer or smaller PDFs"
        raise RenderTimeoutError(msg, timeout=timeout) from None
    first = result.parts[0]
    return Output(
        content=result.content,
        content_type=MEDIA_TYPES[result.format],
        extension=result.format,
        filename=first.filename
        if len(result.parts) == 1
        else first.filename.rsplit("-", 1)[0] + ".zip",
        facts={
            "pages": result.pages,
            "format": result.format,
            "steps": list(result.steps),
            "parts": [
                {"filename": part.filename, "pages": part.pages, "size_bytes": part.size_bytes}
                for part in result.parts
            ],
            "attachments": [
                {
                    "filename": item.filename,
                    "mime_type": item.mime_type,
                    "description": item.description,
                    "size_bytes": item.size,
                }
                for item in result.attachments
            ],
            "encrypted": result.encrypted,
            "signed": result.signature_level is not None,
            **({"signature_level": result.signature_level} if result.signature_level else {}),
        },
    )


def _admit_pdf_ops(request: PdfOpsRequest, engines: Engines) -> None:
    # Before anything is reserved: a server without a signer refuses `sign` for free.
    check_signer(request, engines.signer)


PDF_OPS = Operation(
    name="pdf-ops",
    kind="pdfs",
    metric="pdfs",
    model=PdfOpsRequest,
    title="Merge, split, stamp or encrypt PDFs",
    description=(
        "Page operations on PDFs given as base64 uploads (`files[].file`, `password` for an "
        "encrypted one) or rendered first from pdf-gen requests (`files[].render`). Steps, "
        "run in this order: merge the files; `pages` (select and reorder, e.g. `1-3,5,8-`); "
        "`rotate` (90/180/270, optional `pages`); `watermark` (text or PNG/JPEG `image`, "
        "opacity, angle, position, font_size); `page_numbers` (format `Page {n} of {total}`, "
        "position); `metadata` (title, author, subject, keywords, language, created, "
        "modified); `attachments` (filename, base64 file, mime_type, description); `split` "
        "(one PDF per range, answered as a ZIP); `encrypt` (AES-256, owner_password, "
        "user_password, permissions print/copy/modify/annotate); `sign` (last: a PAdES "
        "signature with the server operator's certificate, optional reason, location, "
        "contact_info, field_name; 400 when the server has no signing certificate). Returns "
        "the file URL, page count, steps applied and the attachments the result embeds. "
        "Charges one PDF, plus one per rendered input."
    ),
    run=_run_pdf_ops,
    admit=_admit_pdf_ops,
    # Each rendered input is a PDF render of its own.
    charges=lambda req: {"pdfs": 1 + req.renders},
    fields={
        "pages": {"type": "integer", "description": "Pages produced (all parts)"},
        "format": {"type": "string", "enum": ["pdf", "zip"]},
        "steps": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The steps applied, in order",
        },
        "parts": {
            "type": "array",
            "description": "The PDFs produced: one, or one per split range (in the ZIP)",
            "items": {
                "type": "object",
                "properties": {
                    "filename": {"type": "string"},
                    "pages": {"type": "integer"},
                    "size_bytes": {"type": "integer"},
                },
            },
        },
        "attachments": {
            "type": "array",
            "description": "The files the (first) produced PDF embeds",
            "items": {
                "type": "object",
                "properties": {
                    "filename": {"type": "string"},
                    "mime_type": {"type": "string"},
                    "description": {"type": "string"},
                    "size_bytes": {"type": "integer"},
                },
            },
        },
        "encrypted": {"type": "boolean"},
        "signed": {"type": "boolean", "description": "Whether each part is signed (`sign`)"},
    },
    optional_fields={
        "signature_level": {
            "type": "string",
            "enum": list(SIGNATURE_LEVELS),
            "description": "The PAdES baseline level of the signatures (signed results only)",
        }
    },
)

#: Operations by endpoint name.
OPERATIONS: dict[str, Operation] = {
    "image": IMAGE,
    "pdf-gen": PDF,
    "screenshot": SCREENSHOT,
    "read": READ,
    "audio": AUDIO,
    "parse": PARSE,
    "pdf-ops": PDF_OPS,
}
