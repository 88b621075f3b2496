"""Archival and accessible finishing of a printed PDF: PDF/A-2b and PDF/A-3b, tagged PDFs.

The one place that writes a document's XMP metadata, its sRGB output intent and its
``/Lang``, for every PDF/A renderkit makes (templates, custom HTML and Factur-X/ZUGFeRD
e-invoices alike), with pikepdf.

What Chromium already does for PDF/A: it embeds (subsets of) every font it prints with
(TrueType outlines as ``FontFile2``; a font it cannot embed is drawn as a Type 3 font,
whose glyphs are content streams), never encrypts, writes no JavaScript, and prints
transparency with the standard blend modes into DeviceRGB, which the sRGB output intent
makes device independent. What it lacks, and :func:`finish_document` adds: the output
intent, XMP identification (``pdfaid``) consistent with the Info dictionary, a trailer
``/ID``, the print flag on link annotations, and no ``/Interpolate`` on images (PDF/A-2
6.2.8).
"""

from __future__ import annotations

import functools
import io
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime

import attrs
import pikepdf
from PIL import ImageCms

from renderkit.core.errors import RenderError

__all__ = [
    "CREATOR",
    "PDF_STANDARDS",
    "PRODUCER",
    "SRGB_IDENTIFIER",
    "DocumentInfo",
    "finish_document",
    "srgb_profile",
]

#: The standards a request may ask for -> (``pdfaid:part``, ``pdfaid:conformance``).
PDF_STANDARDS: dict[str, tuple[int, str]] = {"PDF/A-2b": (2, "B"), "PDF/A-3b": (3, "B")}

#: The output condition the intent names (the registry name of sRGB).
SRGB_IDENTIFIER = "sRGB IEC61966-2.1"

#: The Info dictionary's ``/Producer`` and ``/Creator`` of every PDF renderkit prints.
PRODUCER = "renderkit (Chromium)"
CREATOR = "renderkit"

# Annotation flags (PDF 32000-1 12.5.3): PDF/A wants Print set and Invisible, Hidden and
# NoView clear on every annotation but a Popup.
_INVISIBLE, _HIDDEN, _PRINT, _NOVIEW = 1, 2, 4, 32


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


@attrs.frozen(kw_only=True)
class DocumentInfo:
    """What the Info dictionary and the XMP both state about a document.

    Attributes:
        title, author, subject, keywords: the document's metadata (None: not stated).
        lang: the document's language, a BCP 47 tag (``/Lang``).
    """

    title: str | None = None
    author: str | None = None
    subject: str | None = None
    keywords: str | None = None
    lang: str


def finish_document(
    pdf: bytes,
    *,
    info: DocumentInfo,
    standard: str | None,
    tagged: bool,
    headings: Callable[[], Sequence[str]] | None = None,
    now: datetime | None = None,
) -> bytes:
    """``pdf`` (Chromium's) as the ``standard`` asks (a key of :data:`PDF_STANDARDS`, or
    None) and, when ``tagged``, shown with its title and language.

    Blocking (a full rewrite by qpdf): call from a worker thread.

    Args:
        headings: the text of the document's headings in order (read only when an outline
            title holds right-to-left text, whose words Chromium writes in visual order).
        now: the creation and modification time written in Info and XMP alike (default:
            the current time).

    Raises:
        RenderError: the PDF cannot be read, or it uses a font it does not embed (PDF/A
            needs every font embedded; Chromium always embeds, so this means a broken
            print).
    """
    stamp = (now or datetime.now(UTC)).replace(microsecond=0)
    try:
        document = pikepdf.open(io.BytesIO(pdf))
    except pikepdf.PdfError as exc:
        msg = "the browser produced an unreadable PDF"
        raise RenderError(msg) from exc
    with document:
        root = document.Root
        root.Lang = pikepdf.String(info.lang)
        if tagged:
            preferences = root.get("/ViewerPreferences")
            if not isinstance(preferences, pikepdf.Dictionary):
                preferences = root.ViewerPreferences = pikepdf.Dictionary()
            preferences.DisplayDocTitle = True
            if headings is not None:
                _restore_outline_titles(document, headings)
        if standard is not None:
            _check_fonts(document)
            _add_output_intent(document)
            _make_printable(document)
        _write_metadata(document, info, standard, stamp)
        out = io.BytesIO()
        # qpdf writes the trailer's /ID and leaves the XMP stream uncompressed, as PDF/A
        # requires; it never encrypts unless asked.
        document.save(out, fix_metadata_version=False)
    return out.getvalue()


def _write_metadata(
    document: pikepdf.Pdf, info: DocumentInfo, standard: str | None, stamp: datetime
) -> None:
    docinfo = document.docinfo
    for key in list(docinfo.keys()):
        del docinfo[key]
    stated = {
        "/Title": info.title,
        "/Author": info.author,
        "/Subject": info.subject,
        "/Keywords": info.keywords,
        "/Creator": CREATOR,
        "/Producer": PRODUCER,
    }
    for key, value in stated.items():
        if value:
            docinfo[key] = pikepdf.String(value)
    # The PDF 1.7 form with the closing apostrophe, which every reader takes.
    date = pikepdf.String(stamp.astimezone(UTC).strftime("D:%Y%m%d%H%M%S+00'00'"))
    docinfo.CreationDate = date
    docinfo.ModDate = date
    # Info and XMP must say the same (PDF/A 6.6.2.3): the XMP is written from the Info
    # dictionary, keeping what else it held (the Factur-X extension schema of an e-invoice).
    with document.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
        meta.load_from_docinfo(docinfo, delete_missing=True)
        meta["xmp:MetadataDate"] = stamp.astimezone(UTC).isoformat()
        if standard is not None:
            part, conformance = PDF_STANDARDS[standard]
            meta["pdfaid:part"] = str(part)
            meta["pdfaid:conformance"] = conformance


def _outline_items(document: pikepdf.Pdf) -> Iterator[pikepdf.Dictionary]:
    """The outline's items, depth first (the order of the headings in the document)."""
    outlines = document.Root.get("/Outlines")
    stack = [outlines.get("/First")] if isinstance(outlines, pikepdf.Dictionary) else []
    seen: set[tuple[int, int]] = set()
    while stack:
        item = stack.pop()
        if not isinstance(item, pikepdf.Dictionary) or item.objgen in seen:
            continue  # the end of a list, or a loop in a broken outline
        seen.add(item.objgen)
        yield item
        stack.extend((item.get("/Next"), item.get("/First")))


def _right_to_left(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def _restore_outline_titles(document: pikepdf.Pdf, headings: Callable[[], Sequence[str]]) -> None:
    items = list(_outline_items(document))
    if not any(_right_to_left(str(item.get("/Title", ""))) for item in items):
        return
    texts = headings()
    if len(texts) != len(items):
        return  # a heading Chromium left out (hidden, empty): no sure pairing
    for item, text in zip(items, texts, strict=True):
        title = str(item.get("/Title", ""))
        # Only the order of the words is put right: a title with other words stays as is.
        if title != text and sorted(title.split()) == sorted(text.split()):
            item.Title = pikepdf.String(text)


def _add_output_intent(document: pikepdf.Pdf) -> None:
    profile = pikepdf.Stream(document, srgb_profile())
    profile.N = 3
    intent = pikepdf.Dictionary(
        Type=pikepdf.Name.OutputIntent,
        S=pikepdf.Name.GTS_PDFA1,
        OutputConditionIdentifier=pikepdf.String(SRGB_IDENTIFIER),
        Info=pikepdf.String(SRGB_IDENTIFIER),
        DestOutputProfile=document.make_indirect(profile),
    )
    document.Root.OutputIntents = pikepdf.Array([document.make_indirect(intent)])


def _make_printable(document: pikepdf.Pdf) -> None:
    for page in document.pages:
        for annotation in page.obj.get("/Annots", pikepdf.Array()):
            if annotation.get("/Subtype") == pikepdf.Name.Popup:
                continue
            flags = int(annotation.get("/F", 0))
            annotation.F = (flags | _PRINT) & ~(_INVISIBLE | _HIDDEN | _NOVIEW)
    for obj in document.objects:
        # Chromium asks for smoothing of scaled images; PDF/A leaves that to the reader.
        if isinstance(obj, pikepdf.Stream) and obj.get("/Interpolate") is not None:
            del obj.Interpolate


def _fonts(document: pikepdf.Pdf) -> Iterator[pikepdf.Object]:
    """Every font a resource dictionary names (pages, forms, Type 3 glyphs, appearance
    streams), direct or not, and each Type 0 font's descendants."""
    holders: list[pikepdf.Dictionary | pikepdf.Stream] = [page.obj for page in document.pages]
    holders += [o for o in document.objects if isinstance(o, (pikepdf.Dictionary, pikepdf.Stream))]
    for holder in holders:
        resources = holder.get("/Resources")
        fonts = resources.get("/Font") if isinstance(resources, pikepdf.Dictionary) else None
        if not isinstance(fonts, pikepdf.Dictionary):
            continue
        for font in fonts.values():
            if isinstance(font, pikepdf.Dictionary):
                yield font
                yield from font.get("/DescendantFonts", pikepdf.Array())


def _check_fonts(document: pikepdf.Pdf) -> None:
    for font in _fonts(document):
        # A Type 0 font is embedded through its descendant; a Type 3 font (Chromium's
        # colour emoji) is drawn by content streams in the file, and its descriptor,
        # written for tagged output, rightly names no font program.
        if font.get("/Subtype") in (pikepdf.Name.Type0, pikepdf.Name.Type3):
            continue
        descriptor = font.get("/FontDescriptor")
        if not isinstance(descriptor, pikepdf.Dictionary) or not any(
            key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")
        ):
            name = str(font.get("/BaseFont", "?")).lstrip("/")
            msg = f"the browser did not embed the font {name}, which PDF/A requires"
            raise RenderError(msg)
