"""Reading a submitted file: base64, type sniffing, limits, PDF text layers, OCR.

Every check that can fail runs before the expensive work: the base64 length is compared with
the byte limit before decoding, the magic bytes before any parser sees the file, the page
count (read from the PDF's page tree) before any page is loaded, and an image's pixel count
(read from its header) before it is decoded. Messages name the offending request field.

PDFium is not thread-safe, even across documents, so every PDFium call here goes through
:func:`~renderkit.core.pdfium.run_pdfium`: in a worker thread, under its lock, one page at a
time (OCR runs outside the lock).
"""

from __future__ import annotations

import io
from typing import Any, cast

import anyio
import anyio.to_thread
import attrs
import pypdfium2
import pypdfium2.raw as pdfium_c
from PIL import Image, UnidentifiedImageError

from renderkit.core.errors import ConfigurationError, InvalidRequestError, RenderkitError
from renderkit.core.media import MEDIA_TYPES
from renderkit.core.pdfium import run_pdfium
from renderkit.core.pdfstreams import StreamCeilings, check_streams
from renderkit.core.uploads import decode_file
from renderkit.core.workers import WorkerPool, usable_cpus
from renderkit.parsing._protocol import Document, Page
from renderkit.parsing.readers.decrypt import decrypted
from renderkit.parsing.readers.ocr import OcrEngine
from renderkit.parsing.readers.spacing import joined_page
from renderkit.parsing.readers.textlayer import text_layer

__all__ = [
    "MIME_TYPES",
    "ParseLimits",
    "check_pdf_streams",
    "decode_file",
    "read_document",
    "render_page_images",
    "sniff_mime_type",
]

#: The accepted MIME types and the name used in messages.
MIME_TYPES: dict[str, str] = {
    MEDIA_TYPES["pdf"]: "a PDF",
    MEDIA_TYPES["jpeg"]: "a JPEG image",
    MEDIA_TYPES["png"]: "a PNG image",
    MEDIA_TYPES["webp"]: "a WebP image",
}
_PDF = MEDIA_TYPES["pdf"]

# A page with fewer printable characters than this in its text layer is treated as a scan.
_MIN_TEXT_CHARS = 16
# A text layer with a larger share of characters its fonts map to no text is glyph numbers
# (copied, it pastes as garbage): the page is read by OCR instead. A few unmapped symbols (a
# dingbat bullet) leave it as it is.
_MAX_UNMAPPED = 0.25
# Annotations a page may have and still be flattened to read them (a form page holds tens).
_MAX_ANNOTATIONS = 500
# A page image whose darkest and lightest grey differ by at most this much holds no legible
# text, so it is not sent to OCR (blank pages cost a render, not an OCR pass).
_BLANK_RANGE = 8
# Declared pixels per byte of an uploaded image above which it is refused as truncated or
# forged. Photos and scans hold 1-50 pixels a byte (the dev set's densest: 49); only blank
# images compress past a few thousand.
_MAX_PIXELS_PER_BYTE = 10_000


def _positive(inst: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if value <= 0:
        msg = f"ParseLimits.{attribute.name} must be positive (got {value})"
        raise ConfigurationError(msg)


@attrs.frozen(kw_only=True)
class ParseLimits:
    """Bounds on what :func:`renderkit.parse` accepts; given by the caller (the server's
    settings), never read from the environment.

    Attributes:
        max_bytes: largest decoded file (default 20 MB).
        max_pages: most PDF pages (default 50); a longer PDF is refused before any page is read.
        max_pixels: most pixels of an image (read from its header, refused above), of an image
            inside a PDF (declared size, refused above) and of a PDF page rendered for OCR
            (rendered at a lower resolution above) (default 50 M; an A4 page at 300 dpi is
            8.7 M).
        ocr_dpi: resolution PDF pages without a text layer are rendered at for OCR.
        max_ocr_pixels: most pixels rendered for OCR over all of a PDF's pages together
            (default 250 M, 29 A4 pages at 300 dpi): when the pages at ``ocr_dpi`` would
            exceed it, every page is rendered at a resolution lowered in proportion.
        max_embedded_bytes: most bytes an embedded file (attachment) of a PDF decodes to,
            each and all those read together, a file referenced twice counting twice
            (default 8 MB; e-invoice XML is well under 1 MB). Refused above.
        max_inflated_bytes: most bytes all of a PDF's other streams (page contents, fonts,
            forms; not images, bounded by their declared size) decode to together, each
            stored stream counted once (default 100 MB). Refused above.
    """

    max_bytes: int = attrs.field(default=20_000_000, validator=_positive)
    max_pages: int = attrs.field(default=50, validator=_positive)
    max_pixels: int = attrs.field(default=50_000_000, validator=_positive)
    ocr_dpi: int = attrs.field(default=300, validator=_positive)
    max_ocr_pixels: int = attrs.field(default=250_000_000, validator=_positive)
    max_embedded_bytes: int = attrs.field(default=8_000_000, validator=_positive)
    max_inflated_bytes: int = attrs.field(default=100_000_000, validator=_positive)


def sniff_mime_type(content: bytes) -> str | None:
    """The MIME type the magic bytes announce, among :data:`MIME_TYPES`, or None."""
    if b"%PDF-" in content[:1024]:
        return MEDIA_TYPES["pdf"]
    if content[:3] == b"\xff\xd8\xff":
        return MEDIA_TYPES["jpeg"]
    if content[:8] == b"\x89PNG\r\n\x1a\n":
        return MEDIA_TYPES["png"]
    if content[:4] == b"RIFF" and content[8:12] == b"WEBP":
        return MEDIA_TYPES["webp"]
    return None


def check_mime_type(content: bytes, declared: str) -> str:
    """Verify that ``content`` is what ``declared`` says.

    Raises:
        InvalidRequestError: on ``file`` when the bytes are no supported type, on ``mimeType``
            when they are another supported type.
    """
    actual = sniff_mime_type(content)
    if actual is None:
        msg = f"is not {MIME_TYPES[declared]} (nor any of PDF, JPEG, PNG, WebP)"
        raise InvalidRequestError.single("file", msg)
    if actual != declared:
        msg = f"is {declared} but the file is {MIME_TYPES[actual]} ({actual})"
        raise InvalidRequestError.single("mimeType", msg)
    return actual


async def read_document(
    content: bytes,
    mime_type: str,
    *,
    ocr: OcrEngine | None,
    limits: ParseLimits,
    workers: WorkerPool | None = None,
) -> Document:
    """Check ``content`` and read its text: PDF text layers directly, other pages by OCR.

    Args:
        content: the decoded file.
        mime_type: the declared type (one of :data:`MIME_TYPES`); checked against the bytes.
        ocr: reads pages without text; None means a document that needs OCR is refused.
        limits: page and pixel bounds.
        workers: the pool PDF pages are opened and rasterised in (None: no bound besides
            the PDFium lock); OCR runs in the engine's own pool.

    Raises:
        InvalidRequestError: on ``file`` or ``mimeType`` (wrong type, corrupt or encrypted
            PDF, too many pages or pixels).
        MissingDependencyError: OCR is needed and the OCR engine is not installed.
        WorkersBusyError: a worker pool's queue is full.
    """
    mime_type = check_mime_type(content, mime_type)
    if mime_type == _PDF:
        # Permission-only encryption: read through a decrypted copy (content itself when the
        # PDF is not encrypted, as when parse() already decrypted it).
        content = await anyio.to_thread.run_sync(
            lambda: decrypted(content, max_bytes=2 * limits.max_bytes)
        )
        pages = await _read_pdf(content, ocr=ocr, limits=limits, workers=workers)
    else:
        image = await anyio.to_thread.run_sync(_open_image, content, limits.max_pixels)
        engine = _need_ocr(ocr)
        if _is_blank(image):
            pages = [_blank_page(1, image)]
        else:
            pages = [joined_page(await engine.recognize(image, page=1, detect_orientation=True))]
    return Document(mime_type=mime_type, content=content, pages=tuple(pages))


def _need_ocr(ocr: OcrEngine | None) -> OcrEngine:
    if ocr is None:
        msg = "has pages without a readable text layer and OCR is not available"
        raise InvalidRequestError.single("file", msg)
    return ocr


def _open_image(content: bytes, max_pixels: int) -> Image.Image:
    try:
        image = Image.open(io.BytesIO(content))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        # Pillow's own check (its warning is an error under strict warning filters).
        msg = f"has too many pixels (at most {max_pixels:,})"
        raise InvalidRequestError.single("file", msg) from None
    except (UnidentifiedImageError, OSError, ValueError):
        msg = "is not a readable image"
        raise InvalidRequestError.single("file", msg) from None
    width, height = image.size
    if width * height > max_pixels:
        msg = f"has too many pixels ({width}x{height}; at most {max_pixels:,})"
        raise InvalidRequestError.single("file", msg)
    if width < 8 or height < 8:
        msg = f"is too small to read ({width}x{height} pixels)"
        raise InvalidRequestError.single("file", msg)
    if width * height > len(content) * _MAX_PIXELS_PER_BYTE:
        # A header can claim any size; the decoder then paints what the data lacks, and OCR
        # reads a huge mostly flat image at full cost (a 380-byte JPEG claiming 7000x7000).
        msg = (
            f"declares {width}x{height} pixels but holds only {len(content):,} bytes: "
            f"a truncated or forged image (at most {_MAX_PIXELS_PER_BYTE:,} pixels a byte)"
        )
        raise InvalidRequestError.single("file", msg)
    try:
        image.load()
    except (OSError, ValueError, SyntaxError):
        msg = "is a truncated or corrupt image"
        raise InvalidRequestError.single("file", msg) from None
    return image


def _open_pdf(content: bytes, limits: ParseLimits) -> tuple[pypdfium2.PdfDocument, float]:
    """The opened PDF, and the factor every OCR page's pixel count is multiplied by so that
    all pages together stay within ``max_ocr_pixels`` (1.0 when they fit)."""
    max_pages = limits.max_pages
    try:
        pdf = pypdfium2.PdfDocument(content)
        # Filled-in form fields and typed-on annotations draw from their own appearance
        # streams, outside the page's text: pages with some are flattened when read.
        pdf.init_forms()
    except pypdfium2.PdfiumError as exc:
        if exc.err_code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
            msg = "is an encrypted PDF; send it without a password"
        else:
            msg = "is a corrupt or unreadable PDF"
        raise InvalidRequestError.single("file", msg) from None
    count = len(pdf)
    if count == 0:
        pdf.close()
        msg = "is a PDF without pages"
        raise InvalidRequestError.single("file", msg)
    if count > max_pages:
        pdf.close()
        msg = f"has {count:,} pages; at most {max_pages:,} are read"
        raise InvalidRequestError.single("file", msg)
    # Page sizes come from the page tree without loading pages. Every page is counted as if
    # it needed OCR: which ones do is known only once their text layer is read.
    total = 0.0
    for index in range(count):
        try:
            width, height = pdf.get_page_size(index)
        except pypdfium2.PdfiumError:
            continue  # refused when the page is loaded
        total += _ocr_pixels(width, height, limits)
    return pdf, min(1.0, limits.max_ocr_pixels / total) if total > 0 else 1.0


def _ocr_pixels(width: float, height: float, limits: ParseLimits) -> float:
    scale = limits.ocr_dpi / 72
    return min(abs(width * height) * scale * scale, float(limits.max_pixels))


def check_pdf_streams(content: bytes, limits: ParseLimits) -> None:
    """Refuse a PDF whose streams decode past ``limits`` (before PDFium inflates any).

    Raises:
        InvalidRequestError: on field ``file``, naming the limit.
    """
    ceilings = StreamCeilings(
        embedded=limits.max_embedded_bytes,
        inflated=limits.max_inflated_bytes,
        pixels=limits.max_pixels,
        images=4 * limits.max_ocr_pixels,
    )
    check_streams(content, ceilings)


async def _read_pdf(
    content: bytes, *, ocr: OcrEngine | None, limits: ParseLimits, workers: WorkerPool | None
) -> list[Page]:
    # Outside the PDFium lock: a bomb is refused without holding up other PDF work.
    await anyio.to_thread.run_sync(check_pdf_streams, content, limits)
    pdf, shrink = await run_pdfium(_open_pdf, content, limits, workers=workers)
    pages: list[Page | None] = [None] * len(pdf)
    # Scanned pages are read in parallel, one per core (an OCR engine uses one thread per
    # page); rendering waits for a free slot, so at most that many page images are in memory.
    slots = anyio.Semaphore(usable_cpus())

    async def recognize(engine: OcrEngine, image: Image.Image, index: int) -> None:
        try:
            read = await engine.recognize(image, page=index + 1, detect_orientation=True)
            pages[index] = joined_page(read)
        finally:
            slots.release()

    try:
        async with anyio.create_task_group() as tasks:
            for index in range(len(pages)):
                await slots.acquire()
                try:
                    page, image = await run_pdfium(
                        _read_pdf_page, pdf, index, limits, shrink, workers=workers
                    )
                    if page is None:
                        assert image is not None
                        if _is_blank(image):
                            page = _blank_page(index + 1, image)
                        else:
                            tasks.start_soon(recognize, _need_ocr(ocr), image, index)
                            continue
                except BaseException:
                    slots.release()
                    raise
                slots.release()
                pages[index] = page
    except BaseExceptionGroup as group:
        # One page's failure (a corrupt page, an OCR error) is the parse's failure: callers
        # get that error, not a group wrapping it, whichever page raised first.
        raise _first(group) from None
    finally:
        await run_pdfium(pdf.close)  # never refused: the document must be closed
    return [page for page in pages if page is not None]


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first leaf exception of ``group``, preferring the library's own errors."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        exc = pending.pop(0)
        if isinstance(exc, BaseExceptionGroup):
            pending[:0] = exc.exceptions
        else:
            leaves.append(exc)
    return next((e for e in leaves if isinstance(e, RenderkitError)), leaves[0])


def _is_blank(image: Image.Image) -> bool:
    """Whether ``image`` is one flat tone, with no contrast for any text to be read in."""
    low, high = cast("tuple[int, int]", image.convert("L").getextrema())
    return high - low <= _BLANK_RANGE


def _blank_page(number: int, image: Image.Image) -> Page:
    return Page(number=number, lines=(), source="ocr", width=image.width, height=image.height)


def _read_pdf_page(
    pdf: pypdfium2.PdfDocument, index: int, limits: ParseLimits, shrink: float = 1.0
) -> tuple[Page | None, Image.Image | None]:
    try:
        page = pdf[index]
    except pypdfium2.PdfiumError:
        msg = f"is a corrupt PDF (page {index + 1} cannot be loaded)"
        raise InvalidRequestError.single("file", msg) from None
    try:
        if _flattened(page):
            page.close()
            page = pdf[index]
        layer = text_layer(page, index + 1)
        if layer.characters >= _MIN_TEXT_CHARS and layer.unmapped <= _MAX_UNMAPPED:
            return Page(
                number=index + 1,
                lines=layer.lines,
                source="text",
                width=layer.width,
                height=layer.height,
            ), None
        return None, _render(page, limits, shrink)
    finally:
        page.close()


def _flattened(page: pypdfium2.PdfPage) -> bool:
    """Whether ``page``'s annotations (filled-in form fields, text typed onto the page, stamps)
    were drawn into its content, where its text layer reads them as the page shows them; the
    page must be loaded again to see it. A page with more than ``_MAX_ANNOTATIONS`` is left as
    it is."""
    count = pdfium_c.FPDFPage_GetAnnotCount(page.raw)
    if not 0 < count <= _MAX_ANNOTATIONS:
        return False
    # PDFium's own call: pypdfium2's wrapper insists on a form environment, which only a
    # document with an AcroForm has (a typed-on note or a stamp needs none).
    done = pdfium_c.FPDFPage_Flatten(page.raw, pdfium_c.FLAT_NORMALDISPLAY)
    return bool(done == pdfium_c.FLATTEN_SUCCESS)


def _render(page: pypdfium2.PdfPage, limits: ParseLimits, shrink: float = 1.0) -> Image.Image:
    width, height = page.get_size()
    scale = limits.ocr_dpi / 72
    pixels = abs(width * scale * height * scale)
    if pixels > limits.max_pixels:
        scale *= (limits.max_pixels / pixels) ** 0.5
    scale *= shrink**0.5  # the document's share of max_ocr_pixels
    if width * scale < 1 or height * scale < 1:
        msg = "has a page too small to render"
        raise InvalidRequestError.single("file", msg)
    bitmap = page.render(scale=scale, grayscale=True)
    try:
        image: Image.Image = bitmap.to_pil().copy()
        return image
    finally:
        bitmap.close()


async def render_page_images(
    document: Document, *, max_pages: int = 5, dpi: int = 150, max_pixels: int = 20_000_000
) -> list[bytes]:
    """PNG images of the first ``max_pages`` pages (for vision models)."""
    if document.mime_type != _PDF:
        return [document.content]

    def render_all() -> list[bytes]:
        out: list[bytes] = []
        pdf = pypdfium2.PdfDocument(document.content)
        try:
            for index in range(min(max_pages, len(pdf))):
                page = pdf[index]
                try:
                    limits = ParseLimits(ocr_dpi=dpi, max_pixels=max_pixels)
                    image = _render(page, limits)
                finally:
                    page.close()
                buf = io.BytesIO()
                image.save(buf, "PNG")
                out.append(buf.getvalue())
        finally:
            pdf.close()
        return out

    return await run_pdfium(render_all)
