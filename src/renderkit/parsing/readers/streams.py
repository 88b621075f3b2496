"""What a PDF's streams decode to, bounded, measured on the raw bytes before PDFium reads them.

PDFium inflates a stream whole when it reads it (a page's content, an attachment), with no
ceiling: 0.5 MB of Flate data can become 512 MB. So before any PDFium call the file is
scanned here, and every stream is decoded as far as its ceiling and no further:

- an embedded file (``/Type /EmbeddedFile``, an attachment): ``max_embedded_bytes``;
- an image (``/Subtype /Image``): at most ``max_pixels`` declared pixels, and at most what its
  declared size holds (4 bytes a sample, one predictor byte a row) once decoded;
- any other stream (page content, fonts, forms): ``max_inflated_bytes``, which also bounds
  all of those streams together.

The scan does not trust the cross-reference table or ``/Length``: every ``stream`` keyword in
the file is decoded from its first byte until its compressed data ends, so a stream hidden
inside another one's declared length, or an object the xref does not list, is still
measured, and a shared stream is measured once. Streams cannot live in object streams (ISO
32000-1, 7.5.7), so every one of them is in the raw bytes. A stream whose filter cannot be
read (an indirect ``/Filter``) is tried as Flate, the only filter that decodes to much.
Encrypted PDFs cannot be measured this way (their streams are ciphertext); PDFium opens
those only with an empty user password, and they are refused (see :func:`check_streams`).
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib

from renderkit.core.errors import InvalidRequestError

__all__ = ["StreamCeilings", "check_streams"]

_STREAM = re.compile(rb">>\s*stream(?:\r\n|\r|\n)?")
_FILTER = re.compile(rb"/Filter\s*(\[[^\]]*\]|/[^\s/\[\]<>()]+)")
_NAME = re.compile(rb"/([^\s/\[\]<>()]+)")
_EMBEDDED = re.compile(rb"/Type\s*/EmbeddedFile\b")
_IMAGE = re.compile(rb"/Subtype\s*/Image\b")
_WIDTH = re.compile(rb"/Width\s+(\d{1,9})(?!\s+\d+\s+R)")
_HEIGHT = re.compile(rb"/Height\s+(\d{1,9})(?!\s+\d+\s+R)")
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

    __slots__ = ("embedded", "inflated", "pixels")

    def __init__(self, *, embedded: int, inflated: int, pixels: int) -> None:
        self.embedded = embedded
        self.inflated = inflated
        self.pixels = pixels


def check_streams(content: bytes, ceilings: StreamCeilings) -> None:
    """Refuse a PDF any of whose streams decodes past its ceiling (see the module docstring).

    Pure Python over the raw bytes; it holds no PDFium lock. Time is linear in the file plus
    the bytes decoded, which the ceilings bound.

    Raises:
        InvalidRequestError: on field ``file``, naming the ceiling that was passed.
    """
    if _ENCRYPT.search(content):  # anywhere: an update's trailer may sit mid-file
        # Ciphertext cannot be measured; owner-password-only PDFs are the only ones PDFium
        # would open, and their streams would be inflated unmeasured.
        msg = "is an encrypted PDF; send it decrypted"
        raise InvalidRequestError.single("file", msg)
    view = memoryview(content)
    other_total = 0
    for match in _STREAM.finditer(content):
        window = content[max(0, match.start() - _DICT_WINDOW) : match.start()]
        window = window[window.rfind(b"obj") + 1 :]  # this object's dictionary only
        filters = _filters(window)
        data = view[match.end() :]
        if _EMBEDDED.search(window):
            size = _decoded_size(data, filters, ceilings.embedded)
            if size > ceilings.embedded:
                msg = (
                    f"embeds a file that decodes to more than the {_mb(ceilings.embedded)} "
                    "limit (max_embedded_bytes)"
                )
                raise InvalidRequestError.single("file", msg)
            continue
        if _IMAGE.search(window) and (bound := _image_bound(window, ceilings.pixels)) is not None:
            if _decoded_size(data, filters, bound) > bound:
                msg = "has an image whose data decodes to more than its declared size"
                raise InvalidRequestError.single("file", msg)
            continue
        budget = ceilings.inflated - other_total
        other_total += _decoded_size(data, filters, budget)
        if other_total > ceilings.inflated:
            msg = (
                f"has streams that decode to more than the {_mb(ceilings.inflated)} limit "
                "(max_inflated_bytes)"
            )
            raise InvalidRequestError.single("file", msg)


def _mb(n: int) -> str:
    return f"{n / 1_000_000:g} MB"


def _filters(window: bytes) -> list[bytes]:
    found = _FILTER.search(window)
    if found is None:
        return [b"FlateDecode"]  # no readable filter: try the one that decodes to much
    return _NAME.findall(found.group(1))


def _image_bound(window: bytes, max_pixels: int) -> int | None:
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
        raise InvalidRequestError.single("file", msg)
    return w * h * 4 + h + 4096


def _decoded_size(data: memoryview, filters: list[bytes], limit: int) -> int:
    """What ``data`` decodes to through ``filters``, counted up to just past ``limit``.

    Filters that never expand (hex, ASCII85) are applied only ahead of one that does; image
    codecs (DCT, JPX, CCITT, JBIG2) end the count, their output being bounded by the declared
    image size. Undecodable data counts what was decoded before the error.
    """
    current: bytes | memoryview = data
    size = len(data)
    expanded = False
    for index, name in enumerate(filters):
        keep = index < len(filters) - 1
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
        expanded = expanded or (name not in _HEX and name not in _A85)
        if size > limit or out is None:
            break
        current = out
    return size if expanded else 0


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
    text = bytes(data)
    end = text.find(b">" if hex_digits else b"~>")
    text = text if end < 0 else text[:end]
    try:
        if hex_digits:
            digits = bytes(c for c in text if c not in b"\x00\t\n\x0c\r ")
            return binascii.unhexlify(digits + b"0" * (len(digits) % 2))
        return base64.a85decode(text.lstrip(b"<~") + b"~>", adobe=True)
    except (binascii.Error, ValueError):
        return b""
