"""Invoices written as EN 16931 e-invoices: Factur-X and ZUGFeRD (CII in a PDF/A-3b),
XRechnung (CII) and UBL 2.1, from the same numbers the printed invoice shows.

- :func:`write_einvoice`: an :class:`~renderkit.pdf.InvoiceData` (that passed the request's
  e-invoice rules) in, the XML and its :class:`ValidationReport` out; CII is built with
  drafthorse, UBL with lxml following the UBL 2.1 schema (no maintained UBL builder exists in
  the registries), both from :func:`~renderkit.pdf._templates.invoice_totals`.
- :func:`validate_einvoice_xml`: XSD + EN 16931 Schematron (Saxon) + XRechnung BR-DE rules.
- :func:`pdfa3_with_xml`: the printed PDF as PDF/A-3b carrying the XML
  (:func:`attach_einvoice_xml`, then the PDF/A finishing every archival PDF gets).
"""

from __future__ import annotations

from renderkit.core.errors import InvalidRequestError
from renderkit.pdf._einvoice_profiles import (
    DEFAULT_PROFILE,
    EINVOICE_FORMATS,
    EInvoiceProfile,
    profile_of,
)
from renderkit.pdf._models import InvoiceData
from renderkit.pdf._pdfa import SRGB_IDENTIFIER, srgb_profile
from renderkit.pdf.einvoice._cii import cii_xml
from renderkit.pdf.einvoice._facts import invoice_facts
from renderkit.pdf.einvoice._pdfa import EINVOICE_KEYWORDS, attach_einvoice_xml, pdfa3_with_xml
from renderkit.pdf.einvoice._ubl import ubl_xml
from renderkit.pdf.einvoice._validate import ValidationReport, validate_einvoice_xml
from renderkit.pdf.einvoice._xrechnung import CHECKED_RULES as XRECHNUNG_RULES

__all__ = [
    "DEFAULT_PROFILE",
    "EINVOICE_FORMATS",
    "EINVOICE_KEYWORDS",
    "SRGB_IDENTIFIER",
    "XRECHNUNG_RULES",
    "EInvoiceProfile",
    "ValidationReport",
    "attach_einvoice_xml",
    "pdfa3_with_xml",
    "profile_of",
    "srgb_profile",
    "validate_einvoice_xml",
    "write_einvoice",
]

# The first few failed rules are enough to act on; a broken invoice may fail dozens.
_SHOWN_FAILURES = 5


def write_einvoice(data: InvoiceData, profile: EInvoiceProfile) -> tuple[bytes, ValidationReport]:
    """The e-invoice XML of ``data`` for ``profile``, checked.

    Blocking (the Schematron runs in Saxon): call from a worker thread.

    Raises:
        InvalidRequestError: on field ``data``: the XML breaks a rule the request's checks
            do not foresee (the failed rules are named).
    """
    facts = invoice_facts(data)
    xml = cii_xml(facts, profile) if profile.syntax == "cii" else ubl_xml(facts, profile)
    report = validate_einvoice_xml(xml, profile)
    if not report.valid:
        shown = "; ".join(report.errors[:_SHOWN_FAILURES])
        msg = f"the e-invoice would break EN 16931 rules: {shown}"
        raise InvalidRequestError.single("data", msg)
    return xml, report
