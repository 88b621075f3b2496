"""render_pdf: document templates and custom HTML to PDF."""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Mapping
from typing import Any

import anyio.to_thread
import attrs
import pypdfium2
from pypdf import PdfReader, PdfWriter

from renderkit.browser import Browser, PdfOptions, Shell
from renderkit.core.converter import structure
from renderkit.core.errors import InvalidRequestError, RenderError
from renderkit.core.pdfium import page_count
from renderkit.core.shell import script_font_face_css, shell_head
from renderkit.pdf._einvoice_profiles import DEFAULT_PROFILE
from renderkit.pdf._headings import heading_texts
from renderkit.pdf._models import MARGINS, PAGE_SIZES, InvoiceData, PdfRequest, PdfResult
from renderkit.pdf._pdfa import CREATOR, PRODUCER, DocumentInfo, finish_document
from renderkit.pdf._templates import pdf_css, render_document
from renderkit.pdf.einvoice import (
    EINVOICE_KEYWORDS,
    ValidationReport,
    attach_einvoice_xml,
    write_einvoice,
)
from renderkit.storage import Storage
from renderkit.storage.files import attach_storage

__all__ = ["pdf_shell", "render_pdf"]


#: The warm page's viewport width while it prints, in CSS pixels: wider than any printable
#: width (A3 landscape without margins: 1,588 px), so a media query tells the two apart.
_PRINT_VIEWPORT_WIDTH = 2048

#: Documents are laid out for the printed pages only. Shown on screen, every fragment put
#: into the warm page was styled, laid out and painted at the window's width, work the print
#: then redoes at the paper's width, and laid out again once printing ended; hidden there,
#: Chromium skips it: about 7.5 ms of Chromium CPU of the 30-line invoice's ~60 (measured
#: with each variant in its own browser, 40 rounds, alternating). Then, as it starts to
#: print, Chromium styles and lays the whole document out once in print media at the
#: viewport's width (traced: ~4 ms of the invoice's ~22 under tracing), before it lays it
#: out again at the paper's width for the pages: a print-media rule for the wide viewport the
#: page prints from hides the document from that first pass (2-3 ms of Chromium CPU less).
#: The PDF is the same bytes either way (tests/pdf/test_print_cost.py, test_looks.py).
_PRINT_ONLY = (
    "@media screen{#rk-root{display:none}}"
    f"@media print and (min-width:{_PRINT_VIEWPORT_WIDTH}px){{#rk-root{{display:none}}}}"
)


@functools.cache
def pdf_shell() -> Shell:
    """The warm-page shell every document template renders into (with the certificate's
    script face)."""
    return Shell(
        name="pdf",
        head=shell_head(script_font_face_css() + pdf_css() + _PRINT_ONLY),
        print_viewport=(_PRINT_VIEWPORT_WIDTH, 720),
    )


async def render_pdf(
    request: PdfRequest | Mapping[str, Any],
    *,
    browser: Browser,
    storage: Storage | None = None,
    max_pages: int | None = None,
) -> PdfResult:
    """Render a PDF from a document template (invoice, certificate, report, letter) or HTML.

    Args:
        request: a :class:`PdfRequest`, or a JSON-like mapping in the shape of the HTTP API
            body (either interface variant).
        browser: where to render, normally a :class:`~renderkit.browser.ChromiumPool`.
        storage: when given, the file is stored there and the result carries its key and URL.
        max_pages: refuse documents longer than this; the browser prints at most one page
            more, so a huge document costs little. None for no cap.

    Returns:
        The PDF with its exact page count (read from the file), page size and orientation,
        and a warning for each ``data`` field the template does not display. With
        ``einvoice``: Factur-X and ZUGFeRD give a PDF/A-3b carrying the XML; XRechnung and
        UBL give the XML itself (``format`` ``xml``) unless ``einvoice_embed``; either way
        the result names the format, the profile and the checks the XML passed.

    Raises:
        InvalidRequestError: a field is missing or invalid, a report or letter would print
            a blank page, a strict request has a field the template does not display, an
            image in the data failed to
            load (the error names the field, e.g. ``data.company_logo``), or the document has
            more than ``max_pages`` pages (naming ``html``, or ``data`` for templates), or
            an e-invoice lacks a field it needs (``data.seller.vat_id``...) or would break
            an EN 16931 rule.
        BlockedUrlError: an image or the custom HTML points at a disallowed address.
        RenderTimeoutError: the render exceeded the browser's time limit.
        BrowserBusyError: the browser's queue is full.
        RenderError: the browser failed, or produced an unreadable PDF.
        StorageError: storing the file failed.
    """
    req = request if isinstance(request, PdfRequest) else structure(request, PdfRequest)
    einvoice: tuple[bytes, ValidationReport] | None = None
    if req.einvoice is not None:
        # Written and checked before the browser works: a refused invoice costs no render.
        assert isinstance(req.data, InvoiceData)  # einvoice is only valid with invoices
        einvoice = await anyio.to_thread.run_sync(
            write_einvoice, req.data, req.einvoice_profile_info
        )
        if not req.einvoice_in_pdf:
            # XRechnung and UBL answer with the XML: nothing is printed.
            return await attach_storage(_xml_result(req, *einvoice), storage, kind="pdfs")
    width, height = PAGE_SIZES[req.page_size]
    landscape = req.effective_landscape

    def options(header: str | None, footer: str | None, title: str | None) -> PdfOptions:
        return PdfOptions(
            paper_width=width,
            paper_height=height,
            landscape=landscape,
            margin=MARGINS[req.margin],
            header_template=header,
            footer_template=footer,
            title=title,
            max_pages=max_pages,
            tagged=req.tagged,
        )

    if req.kind == "custom":
        html = req.document_html
        assert html is not None  # guaranteed by PdfRequest's validation
        content = await browser.print_document(
            html, options(req.header_html, req.footer_html, req.title)
        )
        printed_html = html
        title, author, subject = req.title, req.author, None
    else:
        document = render_document(req.kind, attrs.asdict(req.data), locale=req.locale)
        title = req.title or document.title
        content = await browser.print_fragment(
            pdf_shell(),
            document.body,
            options(document.header_template, document.footer_template, title),
        )
        author = req.author or document.author
        subject = document.subject
        printed_html = document.body
    content, pages = await finish_pdf(content, title=title, author=author, subject=subject)
    if max_pages is not None and pages > max_pages:
        field = "html" if req.kind == "custom" else "data"
        msg = f"the document has more than {max_pages} pages"
        raise InvalidRequestError.single(field, msg)
    facts: dict[str, Any] = {}
    keywords = None
    if einvoice is not None:
        xml, report = einvoice
        level = req.einvoice_profile_info.level
        content = await anyio.to_thread.run_sync(
            functools.partial(attach_einvoice_xml, content, xml, level=level)
        )
        keywords = EINVOICE_KEYWORDS
        facts = _einvoice_facts(req, xml, report)
    if req.effective_pdf_standard is not None or req.tagged:
        info = DocumentInfo(
            title=title, author=author, subject=subject, keywords=keywords, lang=req.locale
        )
        content = await anyio.to_thread.run_sync(
            functools.partial(
                finish_document,
                content,
                info=info,
                standard=req.effective_pdf_standard,
                tagged=req.tagged,
                headings=functools.partial(heading_texts, printed_html),
            )
        )
    filename = req.suggested_filename
    result = PdfResult(
        content=content,
        pages=pages,
        page_size=req.page_size,
        landscape=landscape,
        template=req.template,
        filename=filename,
        warnings=req.warnings,
        pdf_standard=req.effective_pdf_standard,
        tagged=req.tagged,
        **facts,
    )
    return await attach_storage(result, storage, kind="pdfs")


def _einvoice_facts(req: PdfRequest, xml: bytes, report: ValidationReport) -> dict[str, Any]:
    assert req.einvoice is not None
    return {
        "einvoice": req.einvoice,
        "einvoice_profile": req.einvoice_profile or DEFAULT_PROFILE[req.einvoice],
        "einvoice_checks": report.checks,
        "einvoice_xml": xml,
    }


def _xml_result(req: PdfRequest, xml: bytes, report: ValidationReport) -> PdfResult:
    return PdfResult(
        content=xml,
        pages=0,
        page_size=req.page_size,
        landscape=req.effective_landscape,
        template=req.template,
        filename=req.suggested_filename.removesuffix(".pdf") + ".xml",
        warnings=req.warnings,
        format="xml",
        **_einvoice_facts(req, xml, report),
    )


async def finish_pdf(
    content: bytes, *, title: str | None, author: str | None, subject: str | None
) -> tuple[bytes, int]:
    """Set the document metadata and count the pages (:func:`page_count`: at once when PDFium
    is free, else in a worker thread, as a parse may hold PDFium's lock for a while).

    Chromium writes only a title, so the author, subject and producer are added here, as an
    incremental update (a new Info dictionary appended to the file): rewriting the whole PDF
    would cost more than rendering it. Files in another layout fall back to a full rewrite.

    Raises:
        RenderError: the browser's output is not a readable PDF.
    """
    metadata = {"/Producer": PRODUCER, "/Creator": CREATOR}
    for key, value in (("/Title", title), ("/Author", author), ("/Subject", subject)):
        if value:
            metadata[key] = value
    updated = _append_info(content, metadata)
    if updated is None:
        updated = _rewrite_info(content, metadata)
    try:
        return updated, await page_count(updated)
    except pypdfium2.PdfiumError as exc:
        msg = "the browser produced an unreadable PDF"
        raise RenderError(msg) from exc


_TRAILER = re.compile(rb"trailer\s*<<(?P<body>.*?)>>\s*startxref\s*(?P<xref>\d+)\s*%%EOF\s*$", re.S)


def _pdf_string(value: str) -> bytes:
    # UTF-16BE with a byte-order mark is the one PDF text encoding that holds any character.
    return b"<" + (b"\xfe\xff" + value.encode("utf-16-be")).hex().upper().encode() + b">"


def _append_info(content: bytes, metadata: dict[str, str]) -> bytes | None:
    match = _TRAILER.search(content[-2048:])
    if match is None:
        return None
    body = match.group("body")
    size = re.search(rb"/Size\s+(\d+)", body)
    root = re.search(rb"/Root\s+(\d+\s+\d+\s+R)", body)
    if size is None or root is None:
        return None
    number = int(size.group(1))
    entries = b"".join(key.encode() + b" " + _pdf_string(value) for key, value in metadata.items())
    base = content if content.endswith(b"\n") else content + b"\n"
    info_offset = len(base)
    info = b"%d 0 obj\n<<%s>>\nendobj\n" % (number, entries)
    xref_offset = info_offset + len(info)
    update = (
        info
        # Restating the free head of the list (object 0) keeps strict readers quiet.
        + b"xref\n0 1\n0000000000 65535 f \n%d 1\n%010d 00000 n \n" % (number, info_offset)
        + b"trailer\n<</Size %d /Root %s /Info %d 0 R /Prev %s>>\n"
        % (number + 1, root.group(1), number, match.group("xref"))
        + b"startxref\n%d\n%%%%EOF\n" % xref_offset
    )
    return base + update


def _rewrite_info(content: bytes, metadata: dict[str, str]) -> bytes:
    try:
        writer = PdfWriter(clone_from=PdfReader(io.BytesIO(content)))
    except Exception as exc:  # pypdf raises many types for a broken file
        msg = "the browser produced an unreadable PDF"
        raise RenderError(msg) from exc
    writer.add_metadata(metadata)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
