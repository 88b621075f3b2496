"""Page operations on PDFs, renderkit's own or uploaded: merge, split and page selection,
rotation, text or image watermarks, page numbers, metadata, attachments, AES-256 encryption,
and PAdES signatures (:class:`Signer`, :func:`sign_pdf`; pyHanko, the ``sign`` extra).

:func:`pdf_ops` takes one :class:`PdfOpsRequest` naming the inputs and the steps wanted;
the steps run in a fixed order (see :class:`PdfOpsRequest`). Inputs are untrusted: every
ceiling of :class:`PdfOpsLimits` is checked before the work it bounds. Built on pikepdf
(qpdf).
"""

from __future__ import annotations

from renderkit.pdfops._models import (
    PERMISSIONS,
    POSITIONS,
    AttachedFile,
    Attachment,
    Encryption,
    Metadata,
    PageNumbers,
    PdfInput,
    PdfOpsLimits,
    PdfOpsRequest,
    PdfOpsResult,
    PdfPart,
    Rotation,
    Signature,
    Watermark,
)
from renderkit.pdfops._run import check_signer, pdf_ops
from renderkit.pdfops._sign import SIGNATURE_LEVELS, Signer, sign_pdf

__all__ = [
    "PERMISSIONS",
    "POSITIONS",
    "SIGNATURE_LEVELS",
    "AttachedFile",
    "Attachment",
    "Encryption",
    "Metadata",
    "PageNumbers",
    "PdfInput",
    "PdfOpsLimits",
    "PdfOpsRequest",
    "PdfOpsResult",
    "PdfPart",
    "Rotation",
    "Signature",
    "Signer",
    "Watermark",
    "check_signer",
    "pdf_ops",
    "sign_pdf",
]
