"""PDF/A-3b with the invoice XML attached (Factur-X, ZUGFeRD 2.x): an sRGB output intent
added with pypdf, then the XML, its ``AFRelationship`` and the PDF/A + Factur-X XMP
metadata written by the ``factur-x`` package.

Chromium already embeds (subsets of) every font it prints with and never encrypts, which
PDF/A requires; what it lacks is the output intent and the XMP identification.
"""

from __future__ import annotations

import functools
import io
import re
import zlib

import facturx
from PIL import ImageCms
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

__all__ = ["SRGB_IDENTIFIER", "pdfa3_with_xml", "srgb_profile"]

#: The output condition the intent names (the registry name of sRGB).
SRGB_IDENTIFIER = "sRGB IEC61966-2.1"


@functools.cache
def srgb_profile() -> bytes:
    """An sRGB ICC profile, made by LittleCMS (through Pillow's ImageCms).

    LittleCMS stamps its profiles version 4.4; PDF/A-2 and -3 cite ICC.1:2004-10 (4.2),
    whose structure the profile already has, so the header says 4.2 and the optional
    profile id (an MD5 over the header) is cleared rather than left stale.
    """
    profile = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    profile[8:12] = bytes([4, 0x20, 0, 0])
    profile[84:100] = bytes(16)
    return bytes(profile)


_TRAILER = re.compile(
    rb"trailer\s*<<(?P<body>.*?)>>\s*startxref\s*(?P<xref>\d+)\s*%%EOF\s*\Z", re.S
)


def _with_output_intent(pdf: bytes) -> bytes:
    """``pdf`` with an sRGB output intent in its catalog.

    Written as an incremental update (the ICC stream, the intent and the catalog restated
    with ``/OutputIntents``, appended with their own cross-reference section): factur-x
    rewrites the whole file next anyway, and a second full rewrite here would cost as much
    as the render's own finishing. A file without a classic trailer is rewritten by pypdf.
    """
    return _append_output_intent(pdf) or _rewrite_with_output_intent(pdf)


def _append_output_intent(pdf: bytes) -> bytes | None:
    # The last trailer only: an updated file has one per revision, and the first one's
    # /Size would hand out object numbers already taken.
    start = pdf.rfind(b"trailer", max(0, len(pdf) - 4096))
    match = _TRAILER.match(pdf, start) if start >= 0 else None
    if match is None:
        return None
    body = match.group("body")
    size = re.search(rb"/Size\s+(\d+)", body)
    if size is None:
        return None
    catalog = PdfReader(io.BytesIO(pdf)).trailer["/Root"].get_object()
    if not isinstance(catalog, DictionaryObject) or catalog.indirect_reference is None:
        return None
    reference = catalog.indirect_reference
    first = int(size.group(1))
    icc_number, intent_number = first, first + 1
    restated = DictionaryObject(catalog)
    restated[NameObject("/OutputIntents")] = ArrayObject([IndirectObject(intent_number, 0, None)])
    catalog_bytes = io.BytesIO()
    restated.write_to_stream(catalog_bytes)
    icc = zlib.compress(srgb_profile())
    objects = [
        (
            icc_number,
            b"<</N 3 /Filter /FlateDecode /Length %d>>\nstream\n%s\nendstream" % (len(icc), icc),
        ),
        (
            intent_number,
            b"<</Type /OutputIntent /S /GTS_PDFA1 /OutputConditionIdentifier (%s)"
            b" /Info (%s) /DestOutputProfile %d 0 R>>"
            % (SRGB_IDENTIFIER.encode(), SRGB_IDENTIFIER.encode(), icc_number),
        ),
        (reference.idnum, catalog_bytes.getvalue()),
    ]
    out = bytearray(pdf if pdf.endswith(b"\n") else pdf + b"\n")
    offsets = []
    for number, content in objects:
        offsets.append((number, len(out)))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, content)
    xref = len(out)
    out += b"xref\n0 1\n0000000000 65535 f \n"
    for number, offset in sorted(offsets):
        generation = reference.generation if number == reference.idnum else 0
        out += b"%d 1\n%010d %05d n \n" % (number, offset, generation)
    kept = b"".join(
        m.group(0) + b" "
        for m in re.finditer(rb"/(?:Info|ID)\s*(?:\d+\s+\d+\s+R|\[[^\]]*\])", body)
    )
    out += b"trailer\n<</Size %d /Root %d %d R %s/Prev %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        intent_number + 1,
        reference.idnum,
        reference.generation,
        kept,
        match.group("xref"),
        xref,
    )
    return bytes(out)


def _rewrite_with_output_intent(pdf: bytes) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    icc = DecodedStreamObject()
    icc.set_data(srgb_profile())
    icc.update({NameObject("/N"): NumberObject(3)})
    intent = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/OutputIntent"),
            NameObject("/S"): NameObject("/GTS_PDFA1"),
            NameObject("/OutputConditionIdentifier"): TextStringObject(SRGB_IDENTIFIER),
            NameObject("/Info"): TextStringObject(SRGB_IDENTIFIER),
            NameObject("/DestOutputProfile"): writer._add_object(icc.flate_encode()),
        }
    )
    writer._root_object[NameObject("/OutputIntents")] = ArrayObject([writer._add_object(intent)])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def pdfa3_with_xml(
    pdf: bytes,
    xml: bytes,
    *,
    level: str,
    title: str | None,
    author: str | None,
    subject: str | None,
    lang: str,
) -> bytes:
    """``pdf`` (Chromium's) as a PDF/A-3b carrying ``xml`` as ``factur-x.xml``.

    Args:
        level: the Factur-X level written in the XMP (``en16931``, ``extended``).
        lang: the document language (``/Lang``), a BCP 47 tag.
    """
    with_intent = _with_output_intent(pdf)
    metadata = {
        "author": author or "",
        "keywords": "Factur-X, ZUGFeRD, EN 16931, e-invoice",
        "title": title or "",
        "subject": subject or "",
    }
    # EN 16931 and richer: the XML is an alternative representation of the page (the
    # relationship Factur-X and ZUGFeRD prescribe for these profiles).
    result: bytes = facturx.generate_from_binary(
        with_intent,
        xml,
        flavor="factur-x",
        level=level,
        check_xsd=False,  # checked already, with the Schematron
        pdf_metadata=metadata,
        lang=lang,
        afrelationship="alternative",
    )
    return result
