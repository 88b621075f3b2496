"""Finding and reading the invoice XML embedded in a PDF."""

from __future__ import annotations

import anyio.to_thread

from renderkit.parsing.einvoice._model import EInvoice
from renderkit.parsing.einvoice._xml import XmlRefusedError, parse_xml
from renderkit.parsing.einvoice.attachments import Attachment, xml_attachments
from renderkit.parsing.einvoice.cii import is_cii, read_cii
from renderkit.parsing.einvoice.ubl import is_ubl, read_ubl

__all__ = ["read_embedded_invoice"]


async def read_embedded_invoice(
    content: bytes, *, max_bytes: int
) -> tuple[EInvoice | None, tuple[str, ...]]:
    """The invoice a PDF carries as XML (CII or UBL), and warnings about XML it could not use.

    Attachments are tried in order (standard names first); the first that is an invoice wins.
    An XML attachment that is malformed, declares a DTD or entities, is too large, or is no
    invoice gives a warning, and None when no other one is an invoice. ``max_bytes`` bounds
    the attachments read, together (``ParseLimits.max_embedded_bytes``).

    Raises:
        InvalidRequestError: on field ``file``: the attachments decode to more than
            ``max_bytes``.
    """
    warnings: list[str] = []
    for attachment in await xml_attachments(content, max_bytes=max_bytes):
        invoice, problem = await anyio.to_thread.run_sync(_read, attachment)
        if invoice is not None:
            return invoice, ()
        warnings.append(
            f"embedded XML {attachment.name[:60]!r} {problem}; the page text was read instead"
        )
    return None, tuple(warnings)


def _read(attachment: Attachment) -> tuple[EInvoice | None, str]:
    try:
        root = parse_xml(attachment.data)
    except XmlRefusedError as exc:
        return None, str(exc)
    if is_cii(root):
        invoice = read_cii(root)
    elif is_ubl(root):
        invoice = read_ubl(root)
    else:
        return None, "is not a CII or UBL invoice"
    if invoice.invoice_number is None and invoice.total is None:
        return None, "names neither an invoice number nor a total"
    return invoice, ""
