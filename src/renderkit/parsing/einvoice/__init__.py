"""E-invoices read exactly from the XML a PDF carries (PDF/A-3 attachments).

Factur-X, ZUGFeRD (1.0 and 2.x) and XRechnung embed a UN/CEFACT Cross Industry Invoice
(:mod:`.cii`); PEPPOL and XRechnung also use UBL 2.1 Invoice and CreditNote (:mod:`.ubl`).
The values there are the invoice's own, so :func:`renderkit.parse` reports them instead of
reading the page (``extractor: "embedded-xml"``) unless told not to (``embedded_xml=False``).

- :func:`read_embedded_invoice`: a PDF's bytes in, an :class:`EInvoice` (or None) and
  warnings out. The XML is parsed with defusedxml: DTDs and entities are refused, size is bounded.
- :func:`einvoice_extraction`: an :class:`EInvoice` as an Extraction, filling a JSON Schema
  through the local extractor's concept mapping.
"""

from __future__ import annotations

from renderkit.parsing.einvoice._extraction import (
    EXTRACTOR_NAME,
    INVOICE_FIELDS,
    einvoice_extraction,
)
from renderkit.parsing.einvoice._model import EInvoice, EInvoiceLine
from renderkit.parsing.einvoice._read import read_embedded_invoice

__all__ = [
    "EXTRACTOR_NAME",
    "INVOICE_FIELDS",
    "EInvoice",
    "EInvoiceLine",
    "einvoice_extraction",
    "read_embedded_invoice",
]
