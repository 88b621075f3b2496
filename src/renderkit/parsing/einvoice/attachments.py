"""The XML files embedded in a PDF (PDF/A-3 attachments), listed through PDFium."""

from __future__ import annotations

import ctypes

import attrs
import pypdfium2
import pypdfium2.raw as pdfium_c

from renderkit.core.errors import InvalidRequestError
from renderkit.core.pdfium import run_pdfium

__all__ = ["Attachment", "xml_attachments"]

#: Attachment names the e-invoice standards prescribe, lower case; these are tried first.
KNOWN_NAMES = ("factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml")

# A PDF may carry many attachments; an invoice is among the first few.
_MAX_ATTACHMENTS = 32


@attrs.frozen(kw_only=True)
class Attachment:
    """One embedded file.

    Attributes:
        name: its file name as stored in the PDF.
        data: its bytes.
    """

    name: str
    data: bytes = attrs.field(repr=lambda d: f"<{len(d):,} bytes>")


async def xml_attachments(content: bytes, *, max_bytes: int) -> list[Attachment]:
    """The ``.xml`` attachments of the PDF ``content``, standard invoice names first.

    A PDF PDFium cannot open, or an attachment it cannot read, gives nothing rather than an
    error: the attachments are an extra, and the page text is read as usual.

    Each attachment's decoded size is asked first and added to a running total, which must
    stay within ``max_bytes``: one stream named by 32 attachments counts 32 times, so
    neither the bytes kept nor the inflating PDFium does can grow past the limit (each
    stream's own size was bounded before, by ``core.pdfstreams``).

    Raises:
        InvalidRequestError: on field ``file``: the attachments read decode to more than
            ``max_bytes`` together.
    """
    found = await run_pdfium(_read, content, max_bytes)
    return sorted(found, key=lambda a: a.name.lower() not in KNOWN_NAMES)


def _data(attachment: pypdfium2.PdfAttachment, room: int, max_bytes: int) -> bytes | None:
    """The attachment's bytes when they fit in ``room``; None when it has none.

    Raises:
        InvalidRequestError: they do not fit.
    """
    size = ctypes.c_ulong()
    if not pdfium_c.FPDFAttachment_GetFile(attachment, None, 0, size) or not size.value:
        return None
    if size.value > room:
        msg = (
            f"has attachments that decode to more than the {max_bytes / 1_000_000:g} MB "
            "limit together (max_embedded_bytes)"
        )
        raise InvalidRequestError.single("file", msg)
    buffer = ctypes.create_string_buffer(size.value)
    written = ctypes.c_ulong()
    ok = pdfium_c.FPDFAttachment_GetFile(attachment, buffer, size.value, written)
    if not ok or written.value > size.value:
        return None
    return buffer.raw[: written.value]


def _read(content: bytes, max_bytes: int) -> list[Attachment]:
    try:
        pdf = pypdfium2.PdfDocument(content)
    except pypdfium2.PdfiumError:
        return []
    try:
        out: list[Attachment] = []
        room = max_bytes
        for index in range(min(pdf.count_attachments(), _MAX_ATTACHMENTS)):
            try:
                attachment = pdf.get_attachment(index)
                name = str(attachment.get_name())
                if not name.lower().endswith(".xml"):
                    continue
                data = _data(attachment, room, max_bytes)
            except pypdfium2.PdfiumError:
                continue
            if data is not None:
                room -= len(data)
                out.append(Attachment(name=name, data=data))
        return out
    finally:
        pdf.close()
