"""PDF/A-3b with the invoice XML attached (Factur-X, ZUGFeRD 2.x): the ``factur-x`` package
attaches the XML with its ``AFRelationship`` and the Factur-X XMP extension; the PDF/A
finishing (output intent, XMP identification, ``/Lang``) is the one every PDF/A gets, in
:mod:`renderkit.pdf._pdfa`.
"""

from __future__ import annotations

import facturx

from renderkit.pdf._pdfa import DocumentInfo, finish_document

__all__ = ["EINVOICE_KEYWORDS", "attach_einvoice_xml", "pdfa3_with_xml"]

#: The keywords of every Factur-X and ZUGFeRD PDF (Info and XMP).
EINVOICE_KEYWORDS = "Factur-X, ZUGFeRD, EN 16931, e-invoice"


def attach_einvoice_xml(pdf: bytes, xml: bytes, *, level: str) -> bytes:
    """``pdf`` carrying ``xml`` as ``factur-x.xml``, with the Factur-X XMP extension
    naming it; not yet PDF/A (see :func:`pdfa3_with_xml`).

    Args:
        level: the Factur-X level written in the XMP (``en16931``, ``extended``).
    """
    # EN 16931 and richer: the XML is an alternative representation of the page (the
    # relationship Factur-X and ZUGFeRD prescribe for these profiles).
    result: bytes = facturx.generate_from_binary(
        pdf,
        xml,
        flavor="factur-x",
        level=level,
        check_xsd=False,  # checked already, with the Schematron
        afrelationship="alternative",
    )
    return result


def pdfa3_with_xml(
    pdf: bytes,
    xml: bytes,
    *,
    level: str,
    title: str | None,
    author: str | None,
    subject: str | None,
    lang: str,
    tagged: bool = False,
) -> bytes:
    """``pdf`` (Chromium's) as a PDF/A-3b carrying ``xml`` as ``factur-x.xml``.

    Blocking: call from a worker thread.

    Args:
        level: the Factur-X level written in the XMP (``en16931``, ``extended``).
        lang: the document language (``/Lang``), a BCP 47 tag.
        tagged: show the title in the window (see
            :func:`~renderkit.pdf._pdfa.finish_document`).
    """
    info = DocumentInfo(
        title=title, author=author, subject=subject, keywords=EINVOICE_KEYWORDS, lang=lang
    )
    attached = attach_einvoice_xml(pdf, xml, level=level)
    return finish_document(attached, info=info, standard="PDF/A-3b", tagged=tagged)
