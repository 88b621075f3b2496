"""The XML files embedded in a PDF (PDF/A-3 attachments), listed through PDFium."""

from __future__ import annotations

import attrs
import pypdfium2

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


async def xml_attachments(content: bytes) -> list[Attachment]:
    """The ``.xml`` attachments of the PDF ``content``, standard invoice names first.

    A PDF PDFium cannot open, or an attachment it cannot read, gives nothing rather than an
    error: the attachments are an extra, and the page text is read as usual.
    """
    found = await run_pdfium(_read, content)
    return sorted(found, key=lambda a: a.name.lower() not in KNOWN_NAMES)


def _read(content: bytes) -> list[Attachment]:
    try:
        pdf = pypdfium2.PdfDocument(content)
    except pypdfium2.PdfiumError:
        return []
    try:
        out: list[Attachment] = []
        for index in range(min(pdf.count_attachments(), _MAX_ATTACHMENTS)):
            try:
                attachment = pdf.get_attachment(index)
                name = str(attachment.get_name())
                if name.lower().endswith(".xml"):
                    out.append(Attachment(name=name, data=bytes(attachment.get_data())))
            except pypdfium2.PdfiumError:
                continue
        return out
    finally:
        pdf.close()
