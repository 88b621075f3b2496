"""What a PDF's streams decode to, bounded, measured on the raw bytes before a PDF library
reads them.

Shared by ``parse`` (before PDFium) and ``pdfops`` (before qpdf), hence in ``core``.

PDFium inflates a stream whole when it reads it (a page's content, an attachment), with no
ceiling: 0.5 MB of Flate data can become 512 MB. So before any PDFium call the file is
scanned here, and every stream is decoded as far as its ceiling and no further:

- an embedded file (``/Type /EmbeddedFile``, an attachment): ``max_embedded_bytes``;
- an image (``/Subtype /Image``): at most ``max_pixels`` declared pixels, and at most what its
  declared size holds (4 bytes a sample, one predictor byte a row) once decoded; all images
  together ``images`` (4 bytes a pixel of ``max_ocr_pixels``);
- any other stream (page content, fonts, forms): ``max_inflated_bytes``, which also bounds
  all of those streams and the embedded files together, so the scan's own work is bounded.

The scan does not trust the cross-reference table: every ``stream`` keyword in the file is
decoded from its first byte (Flate until its compressed data ends, whatever ``/Length``
says; other filters to ``/Length`` when ``endstream`` follows it, else to the next
``endstream``), so a stream hidden inside another one's declared length, or an object the
xref does not list, is still measured, and a shared stream is measured once. Streams cannot
live in object streams (ISO 32000-1, 7.5.7), so every one of them is in the raw bytes. A
stream whose filter cannot be read (an indirect ``/Filter``) is tried as Flate.
Encrypted PDFs cannot be measured this way (their streams are ciphertext); PDFium opens
those only with an empty user password, and they are refused (see :func:`check_streams`).
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib

from renderkit.core.errors import InvalidRequestError

__all__ = ["StreamCeilings", "check_streams", "is_encrypted"]

_STREAM = re.compile(rb">>\s*stream(?:\r\n|\r|\n)?")
_FILTER = re.compile(rb"/Filter\s*(\[[^\]]*\]|/[^\s/\[\]<>()]+)")
_NAME = re.compile(rb"/([^\s/\[\]<>()]+)")
_EMBEDDED = re.compile(rb"/Type\s*/EmbeddedFile\b")
_IMAGE = re.compile(rb"/Subtype\s*/Image\b")
_WIDTH = re.compile(rb"/Width\s+(\d{1,9})(?![\d.])(?!\s+\d+\s+R)")
_HEIGHT = re.compile(rb"/Height\s+(\d{1,9})(?![\d.])(?!\s+\d+\s+R)")
_LENGTH = re.compile(rb"/Length\s+(\d{1,10})(?![\d.])(?!\s+\d+\s+R)")
_ENCRYPT = re.compile(rb"/Encrypt\s*(?:<<|\d+\s+\d+\s+R)")
# How far back from "stream" a stream's dictionary is looked for (real ones are < 1 KB).
_DICT_WINDOW = 8192
_CHUNK = 1 << 16

_FLATE = {b"FlateDecode", b"Fl"}
_HEX = {b"ASCIIHexDecode", b"AHx"}
_A85 = {b"ASCII85Decode", b"A85"}
_RUNLENGTH = {b"RunLengthDecode", b"RL"}
_LZW = {b"LZWDecode", b"LZW"}


class StreamCeilings:
    """The three ceilings :func:`check_streams` applies (from :class:`ParseLimits`)."""

    __slots__ = ("embedded", "images", "inflated", "pixels")

    def __init__(self, *, embedded: int, inflated: int, pixels: int, images: int) -> None:
        self.embedded = embedded
        self.inflated = inflated
        self.pixels = pixels
        self.images = images


def is_encrypted(content: bytes) -> bool:
    """Whether the raw bytes carry an ``/Encrypt`` dictionary anywhere (any revision)."""
    return _ENCRYPT.search(content) is not None


def check_streams(content: bytes, ceilings: StreamCeilings, *, field: str = "file") -> None:
    """Refuse a PDF any of whose streams decodes past its ceiling (see the module docstring).

    Pure Python over the raw bytes; it holds no PDFium lock. Time is linear in the file plus
    the bytes decoded, which the ceilings bound.

    Raises:
        InvalidRequestError: on ``field`` (the request field that carried the PDF), naming
            the ceiling that was passed.
    """
    if is_encrypted(content):  # anywhere: an update's trailer may sit mid-file
        # Ciphertext cannot be measured; owner-password-only PDFs are the only ones PDFium
        # would open, and their streams would be inflated unmeasured.
        msg = "is an encrypted PDF; send it decrypted"
        raise InvalidRequestError.single(field, msg)
    view = memoryview(content)
    other_total = image_total = 0
    for match in _STREAM.finditer(content):
        window = content[max(0, match.start() - _DICT_WINDOW) : match.start()]
        window = window[window.rfind(b"obj") + 1 :]  # this object's dictionary only
        filters = _filters(window)
        end = _end(content, match, window, filters[0] if filters else b"")
        data, extent = view[match.end() :], view[match.end() : end]
        budget = ceilings.inflated - other_total
        if _EMBEDDED.search(window):
            size = _decoded_size(data, extent, filters, min(ceilings.embedded, budget))
            if size > ceilings.embedded:
                msg = (
                    f"embeds a file that decodes to more than the {_mb(ceilings.embedded)} "
                    "limit (max_embedded_bytes)"
                )
                raise InvalidRequestError.single(field, msg)
        elif _IMAGE.search(window) and (bound := _image_bound(window, ceilings.pixels, field)):
            size = _decoded_size(data, extent, filters, bound)
            if size > bound:
                msg = "has an image whose data decodes to more than its declared size"
                raise InvalidRequestError.single(field, msg)
            image_total += size
            if image_total > ceilings.images:
                msg = (
                    f"has images that decode to more than {_mb(ceilings.images)} together "
                    "(4 bytes a pixel of max_ocr_pixels)"
                )
                raise InvalidRequestError.single(field, msg)
            continue
        else:
            size = _decoded_size(data, extent, filters, budget)
        other_total += size  # attachments too: the whole scan's work stays bounded
        if other_total > ceilings.inflated:
            msg = (
                f"has streams that decode to more than the {_mb(ceilings.inflated)} limit "
                "(max_inflated_bytes)"
            )
            raise InvalidRequestError.single(field, msg)


def _mb(n: int) -> str:
    return f"{n / 1_000_000:g} MB"


def _end(content: bytes, match: re.Match[bytes], window: bytes, first_filter: bytes) -> int:
    """Where a stream's data ends as PDFium reads it: at ``/Length`` when ``endstream``
    follows there, else at the next ``endstream`` (the end of the file without one); hex and
    ASCII85 data end at their end-of-data marker."""
    marker = b">" if first_filter in _HEX else b"~>" if first_filter in _A85 else b""
    if marker and (found := content.find(marker, match.end())) >= 0:
        return found
    length = _LENGTH.search(window)
    if length is not None:
        end = match.end() + int(length.group(1))
        if content[end : end + 32].lstrip().startswith(b"endstream"):
            return end
    end = content.find(b"endstream", match.end())
    return len(content) if end < 0 else end


def _filters(window: bytes) -> list[bytes]:
    found = _FILTER.search(window)
    if found is None:
        return [b"FlateDecode"]  # no readable filter: try the one that decodes to much
    return _NAME.findall(found.group(1))


def _image_bound(window: bytes, max_pixels: int, field: str) -> int | None:
    """Bytes the declared image may decode to, or None when its size is not stated directly.

    Raises:
        InvalidRequestError: the declared pixel count is over ``max_pixels``.
    """
    width, height = _WIDTH.search(window), _HEIGHT.search(window)
    if width is None or height is None:
        return None  # measured as any other stream
    w, h = int(width.group(1)), int(height.group(1))
    if w * h > max_pixels:
        msg = f"has an image of {w}x{h} pixels (at most {max_pixels:,})"
        raise InvalidRequestError.single(field, msg)
    return w * h * 4 + h + 4096


def _decoded_size(data: memoryview, extent: memoryview, filters: list[bytes], limit: int) -> int:
    """What a stream decodes to through ``filters``, counted up to just past ``limit``.

    Flate reads ``data`` (the rest of the file) until its compressed stream ends, so a wrong
    ``/Length`` cannot hide bytes; the other filters read ``extent`` (the stream as PDFium
    delimits it). Image codecs (DCT, JPX, CCITT, JBIG2) end the count, their output being
    bounded by the declared image size. Undecodable data counts what decoded before the error.
    """
    current: bytes | memoryview = extent
    size = 0
    for index, name in enumerate(filters):
        keep = index < len(filters) - 1
        if index == 0 and name in _FLATE:
            current = data
        if name in _FLATE:
            size, out = _inflate(current, limit, keep=keep)
        elif name in _RUNLENGTH:
            out = _run_length(current, limit)
            size = len(out)
        elif name in _LZW:
            size, out = _lzw(current, limit)
        elif name in _HEX or name in _A85:
            out = _ascii(current, hex_digits=name in _HEX)
            size = len(out)
        else:
            break
        if size > limit or out is None:
            break
        current = out
    return size


def _inflate(data: bytes | memoryview, limit: int, *, keep: bool) -> tuple[int, bytes | None]:
    """Inflate ``data`` in bounded steps until its zlib stream ends or ``limit`` is passed."""
    start = 0
    while start < len(data) and data[start] in b"\x00\t\n\x0c\r ":
        start += 1
    inflater = zlib.decompressobj()
    size, parts = 0, []
    try:
        for offset in range(start, len(data), _CHUNK):
            pending = bytes(data[offset : offset + _CHUNK])
            while pending and not inflater.eof:
                out = inflater.decompress(pending, _CHUNK)
                size += len(out)
                if keep:
                    parts.append(out)
                if size > limit:
                    return size, None
                pending = inflater.unconsumed_tail
            if inflater.eof:
                break
    except zlib.error:
        pass  # counts what inflated before the error (PDFium stops there too)
    return size, b"".join(parts) if keep else None


def _run_length(data: bytes | memoryview, limit: int) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data) and len(out) <= limit:
        length = data[i]
        if length == 128:
            break
        if length < 128:
            out += data[i + 1 : i + 2 + length]
            i += 2 + length
        else:
            out += bytes(data[i + 1 : i + 2]) * (257 - length)
            i += 2
    return bytes(out)


def _lzw(data: bytes | memoryview, limit: int) -> tuple[int, bytes | None]:
    # pypdf's decoder stops at a given output length; LZW is rare (PDF 1.0-1.1), so it is
    # imported only when a stream uses it.
    from pypdf._codecs._codecs import LzwCodec
    from pypdf.errors import LimitReachedError, PdfStreamError

    try:
        out = LzwCodec(max_output_length=limit).decode(bytes(data))
    except LimitReachedError:
        return limit + 1, None
    except (PdfStreamError, IndexError, KeyError):
        return 0, None  # not LZW data: PDFium decodes nothing from it either
    return len(out), out


def _ascii(data: bytes | memoryview, *, hex_digits: bool) -> bytes:
    """Hex or ASCII85 text decoded (never longer than its input); garbage decodes to nothing."""
    text = bytes(data)  # already cut at the end-of-data marker (see _end)
    try:
        if hex_digits:
            digits = text.translate(None, b"\x00\t\n\x0c\r ")
            return binascii.unhexlify(digits + b"0" * (len(digits) % 2))
        return base64.a85decode(text.lstrip(b"<~") + b"~>", adobe=True)
    except (binascii.Error, ValueError):
        return b""
