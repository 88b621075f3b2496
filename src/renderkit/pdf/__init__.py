"""PDFs from named templates (invoice, certificate, report, letter) or custom HTML.

:func:`render_pdf` takes a :class:`PdfRequest` (or a dict in the HTTP API's shape) and a
:class:`~renderkit.browser.Browser`. Each template's data is a public model
(:class:`InvoiceData` with :class:`LineItem`, :class:`PaymentDetails` and :class:`Party`,
:class:`CertificateData`, :class:`ReportData` with :class:`ReportSection`, :class:`LetterData`,
:class:`CustomData`). The request's ``locale`` sets labels, dates, amounts and direction. An invoice
request with ``einvoice`` is also written as an EN 16931 e-invoice (:mod:`renderkit.pdf.einvoice`).
``pdf_standard`` (:data:`PDF_STANDARDS`: PDF/A-2b, PDF/A-3b) makes any document archival and
``tagged`` makes it accessible (a structure tree, an outline, its language).
"""

from __future__ import annotations

from renderkit.pdf._models import (
    PAGE_SIZES,
    PDF_TEMPLATE_FIELDS,
    PDF_TEMPLATES,
    CertificateData,
    CustomData,
    InvoiceData,
    LetterData,
    LineItem,
    Party,
    PaymentDetails,
    PdfRequest,
    PdfResult,
    ReportData,
    ReportSection,
)
from renderkit.pdf._pdfa import PDF_STANDARDS
from renderkit.pdf._render import render_pdf

__all__ = [
    "PAGE_SIZES",
    "PDF_STANDARDS",
    "PDF_TEMPLATES",
    "PDF_TEMPLATE_FIELDS",
    "CertificateData",
    "CustomData",
    "InvoiceData",
    "LetterData",
    "LineItem",
    "Party",
    "PaymentDetails",
    "PdfRequest",
    "PdfResult",
    "ReportData",
    "ReportSection",
    "render_pdf",
]
