"""Document-level edits with qpdf: merge, page selection, rotation, metadata, attachments,
encryption, and listing what a document embeds.

Pages are copied by qpdf as objects (their streams are never decoded or re-encoded), so a
merge costs about the bytes moved, whatever the pages draw.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime

import pikepdf

from renderkit.pdfops._models import AttachedFile, Attachment, Encryption, Metadata

__all__ = [
    "add_attachment",
    "attached_files",
    "encryption",
    "keep_pages",
    "merge_into",
    "rotate_pages",
    "save",
    "set_metadata",
]


def merge_into(base: pikepdf.Pdf, others: Sequence[pikepdf.Pdf]) -> None:
    """Append every page of ``others`` to ``base``, in order."""
    for other in others:
        base.pages.extend(other.pages)


def keep_pages(pdf: pikepdf.Pdf, indexes: Sequence[int]) -> None:
    """Leave only the pages at ``indexes``, in that order (a page named twice is copied)."""
    count = len(pdf.pages)
    if list(indexes) == list(range(count)):
        return
    for index in indexes:
        pdf.pages.append(pdf.pages[index])
    del pdf.pages[:count]


def rotate_pages(pdf: pikepdf.Pdf, indexes: Sequence[int], angle: int) -> None:
    """Turn the pages at ``indexes`` clockwise by ``angle``, added to their ``/Rotate``."""
    for index in sorted(set(indexes)):
        pdf.pages[index].rotate(angle % 360, relative=True)


def _xmp_date(value: str) -> str:
    return datetime.fromisoformat(value).isoformat()


def set_metadata(pdf: pikepdf.Pdf, metadata: Metadata) -> None:
    """Write ``metadata`` to XMP and, kept consistent by pikepdf, the Info dictionary;
    ``language`` to the catalog's ``/Lang`` (and XMP ``dc:language``)."""
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=True) as xmp:
        if metadata.title is not None:
            xmp["dc:title"] = metadata.title
        if metadata.author is not None:
            xmp["dc:creator"] = [metadata.author]
        if metadata.subject is not None:
            xmp["dc:description"] = metadata.subject
        if metadata.keywords is not None:
            xmp["pdf:Keywords"] = ", ".join(metadata.keywords)
        if metadata.language is not None:
            xmp["dc:language"] = [metadata.language]
        if metadata.created is not None:
            xmp["xmp:CreateDate"] = _xmp_date(metadata.created)
        if metadata.modified is not None:
            xmp["xmp:ModifyDate"] = _xmp_date(metadata.modified)
    if metadata.language is not None:
        pdf.Root.Lang = pikepdf.String(metadata.language)


def add_attachment(pdf: pikepdf.Pdf, attachment: Attachment, content: bytes) -> None:
    """Embed ``content`` as ``attachment.filename`` (replacing a file of that name)."""
    pdf.attachments[attachment.filename] = pikepdf.AttachedFileSpec(
        pdf,
        content,
        description=attachment.description,
        filename=attachment.filename,
        mime_type=attachment.mime_type,
    )


def attached_files(pdf: pikepdf.Pdf) -> tuple[AttachedFile, ...]:
    """The files ``pdf`` embeds, by name (sizes as declared, or measured when not)."""
    found = []
    for name, spec in pdf.attachments.items():
        file = spec.get_file()
        found.append(
            AttachedFile(
                filename=str(name),
                mime_type=str(file.mime_type or ""),
                description=str(spec.description or ""),
                size=int(file.size),
            )
        )
    return tuple(found)


def encryption(spec: Encryption) -> pikepdf.Encryption:
    """AES-256 (revision 6) with ``spec``'s passwords and permissions."""
    allowed = set(spec.permissions)
    permissions = pikepdf.Permissions(
        accessibility=True,  # screen readers may always extract text (ISO 32000-2 allows it)
        extract="copy" in allowed,
        modify_annotation="annotate" in allowed,
        modify_form="annotate" in allowed or "modify" in allowed,
        modify_assembly="modify" in allowed,
        modify_other="modify" in allowed,
        print_lowres="print" in allowed,
        print_highres="print" in allowed,
    )
    return pikepdf.Encryption(
        owner=spec.owner_password, user=spec.user_password, R=6, allow=permissions, aes=True
    )


def save(pdf: pikepdf.Pdf, *, encrypt: Encryption | None = None) -> bytes:
    """The PDF's bytes. Unencrypted, streams are written as they are; encrypted, qpdf's
    default applies (Flate data is passed through; LZW and ASCII filters are decoded and
    re-deflated: bounded by the ceilings checked on intake)."""
    out = io.BytesIO()
    if encrypt is not None:
        pdf.save(
            out,
            encryption=encryption(encrypt),
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
        )
    else:
        pdf.save(
            out,
            stream_decode_level=pikepdf.StreamDecodeLevel.none,
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
        )
    return out.getvalue()
