"""Opening an untrusted PDF for page operations: every ceiling checked before qpdf works.

In order, each before the next costs anything: the base64 length against ``max_bytes``
(:func:`renderkit.core.uploads.decode_file`); the ``%PDF-`` header and the ``%%EOF``
marker (a truncated upload); encryption (refused
without a password; with one, qpdf decrypts without decoding any stream); every stream's
decoded size measured on the raw bytes (:func:`renderkit.core.pdfstreams.check_streams`,
the ceilings ``parse`` applies); qpdf's own resource limits (a structure nested past its
depth limit is a refusal here, not a silent repair); the page count; the object count.
qpdf reports a file it cannot read as ``PdfError``: that is the caller's file, so a 4xx.
"""

from __future__ import annotations

import io

import pikepdf

from renderkit.core.errors import InvalidRequestError
from renderkit.core.pdfstreams import StreamCeilings, check_streams, is_encrypted
from renderkit.pdfops._models import PdfOpsLimits

__all__ = ["open_pdf"]


def _refuse(field: str, message: str) -> InvalidRequestError:
    return InvalidRequestError.single(field, message)


def _ceilings(limits: PdfOpsLimits) -> StreamCeilings:
    return StreamCeilings(
        embedded=limits.max_embedded_bytes,
        inflated=limits.max_inflated_bytes,
        pixels=limits.max_pixels,
        images=limits.max_inflated_bytes,
    )


def _decrypt(content: bytes, password: str, field: str) -> bytes:
    """The PDF with its encryption removed, streams left encoded (nothing is inflated)."""
    try:
        with pikepdf.open(io.BytesIO(content), password=password) as pdf:
            out = io.BytesIO()
            pdf.save(out, stream_decode_level=pikepdf.StreamDecodeLevel.none)
            return out.getvalue()
    except pikepdf.PasswordError:
        where = f"{field}.password"
        raise _refuse(where, "does not open this PDF") from None
    except pikepdf.PdfError:
        raise _refuse(field, "is a corrupt or unreadable PDF") from None


def open_pdf(
    content: bytes, *, password: str | None, field: str, limits: PdfOpsLimits
) -> pikepdf.Pdf:
    """Open ``content`` within ``limits``; the caller closes the result.

    Args:
        content: the decoded upload (or a renderkit render).
        password: opens an encrypted PDF; None refuses encrypted PDFs.
        field: the request field errors name (``files[1].file``).
        limits: the ceilings.

    Raises:
        InvalidRequestError: on ``field``: not a PDF, encrypted without a (right) password,
            streams past their ceilings, corrupt, too deep, too many pages or objects.
    """
    if b"%PDF-" not in content[:1024]:
        raise _refuse(field, "is not a PDF (no %PDF- header)")
    if b"%%EOF" not in content[-1024:]:
        # Acrobat's rule too: the end-of-file marker within the last 1 KB. Without it the
        # upload was cut short, and qpdf would rebuild what survived, silently dropping pages.
        raise _refuse(field, "is truncated (no %%EOF marker at its end)")
    if is_encrypted(content):
        if password is None:
            msg = "is an encrypted PDF; send its password in password"
            raise _refuse(field, msg)
        content = _decrypt(content, password, field)
    check_streams(content, _ceilings(limits), field=field)
    try:
        pdf = pikepdf.open(io.BytesIO(content))
    except pikepdf.PdfError:
        raise _refuse(field, "is a corrupt or unreadable PDF") from None
    try:
        _check_structure(pdf, field, limits)
    except BaseException:
        pdf.close()
        raise
    return pdf


def _check_structure(pdf: pikepdf.Pdf, field: str, limits: PdfOpsLimits) -> None:
    try:
        pages = len(pdf.pages)
        objects = len(pdf.objects)
    except (pikepdf.PdfError, RuntimeError):  # a page tree qpdf cannot walk
        raise _refuse(field, "is a corrupt or unreadable PDF") from None
    # qpdf skips what passes its resource limits (nesting depth, ...) and carries on; a file
    # built to reach them is refused rather than silently altered.
    if any("limits error" in warning for warning in pdf.get_warnings()):
        raise _refuse(field, "nests its objects deeper than PDF readers accept")
    if pages == 0:
        raise _refuse(field, "is a PDF without pages")
    if pages > limits.max_pages:
        raise _refuse(field, f"has {pages:,} pages; at most {limits.max_pages:,} are accepted")
    if objects > limits.max_objects:
        msg = f"has {objects:,} objects; at most {limits.max_objects:,} are accepted"
        raise _refuse(field, msg)
