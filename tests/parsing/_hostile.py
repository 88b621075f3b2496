"""Hostile documents, built byte by byte for the adversarial parsing tests (no files, no
downloads): Flate bombs, huge pages and images, broken structure."""

from __future__ import annotations

import functools
import io
import struct
import zlib

from PIL import Image

from ._documents import _assemble, encode


def deflated_zeros(size: int) -> bytes:
    """Flate data that inflates to ``size`` zero bytes (about 1/1000 of it), made in steps."""
    packer = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    parts = [packer.compress(chunk) for _ in range(size >> 20)]
    parts.append(packer.compress(bytes(size & ((1 << 20) - 1))))
    parts.append(packer.flush())
    return b"".join(parts)


def _stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< %s /Length %d >>\nstream\n" % (dictionary, len(data)) + data + b"\nendstream"


def _page(size: tuple[float, float] = (595, 842), contents: str = "") -> bytes:
    box = f"[0 0 {size[0]:g} {size[1]:g}]".encode()
    return b"<< /Type /Page /Parent 2 0 R /MediaBox %s%s >>" % (box, contents.encode())


@functools.cache
def attachment_bomb_pdf(inflated: int = 512_000_000, references: int = 1) -> bytes:
    """Finding 1: a one-page PDF whose Factur-X attachment inflates to ``inflated`` bytes,
    named by ``references`` attachments that all point at the one stream."""
    names = b" ".join(b"(factur-x-%d.xml) 5 0 R" % i for i in range(references))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles 4 0 R >> >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        _page(),
        b"<< /Names [%s] >>" % names,
        b"<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /EF << /F 6 0 R >> >>",
        _stream(
            b"/Type /EmbeddedFile /Subtype /text#2Fxml /Filter /FlateDecode",
            deflated_zeros(inflated),
        ),
    ]
    return _assemble(objects)


@functools.cache
def content_bomb_pdf(inflated: int = 512_000_000, filters: bytes = b"/FlateDecode") -> bytes:
    """A one-page PDF whose content stream inflates to ``inflated`` bytes of zeros."""
    data = deflated_zeros(inflated)
    if filters.count(b"Flate") == 2:
        data = zlib.compress(data, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        _page(contents=" /Contents 4 0 R"),
        _stream(b"/Filter %s" % filters, data),
    ]
    return _assemble(objects)


def huge_blank_pages_pdf(count: int = 50, inches: float = 200) -> bytes:
    """Finding 2: ``count`` blank pages ``inches`` square, no text layer (a few KB)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + i} 0 R" for i in range(count))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    objects += [_page((inches * 72, inches * 72))] * count
    return _assemble(objects)


def pages_cycle_pdf() -> bytes:
    """A page tree whose /Pages node lists itself as a kid (and a page)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
        _page(),
    ]
    return _assemble(objects)


def reference_loop_pdf() -> bytes:
    """Objects that point at each other (a /Resources chain and a /Length loop)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        _page(contents=" /Resources 4 0 R /Contents 5 0 R"),
        b"<< /Font 4 0 R /XObject 4 0 R >>",
        b"<< /Length 6 0 R >>\nstream\nBT ET\nendstream",
        b"6 0 R",
    ]
    return _assemble(objects)


def nested_arrays_pdf(depth: int = 100_000) -> bytes:
    """A page whose /MediaBox is an array nested ``depth`` deep."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox " + b"[" * depth + b"]" * depth + b" >>",
    ]
    return _assemble(objects)


def huge_image_pdf(side: int = 100_000) -> bytes:
    """A page drawing an image declared ``side`` x ``side`` pixels, with 1 KB of data."""
    data = deflated_zeros(1000)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        _page(contents=" /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R"),
        _stream(b"", b"q 595 0 0 842 0 0 cm /Im0 Do Q"),
        _stream(
            b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode" % (side, side),
            data,
        ),
    ]
    return _assemble(objects)


def image_claiming(width: int, height: int, fmt: str = "JPEG") -> bytes:
    """Finding 3: a tiny image whose header claims ``width`` x ``height`` pixels."""
    content = encode(Image.new("L", (16, 16), 200), fmt)
    if fmt == "JPEG":
        at = content.index(b"\xff\xc0") + 5  # SOF0: length, precision, then height, width
        return content[:at] + struct.pack(">HH", height, width) + content[at + 4 :]
    # PNG: IHDR is the first chunk; its CRC must follow the new size for Pillow to read it.
    ihdr = b"IHDR" + struct.pack(">II", width, height) + content[24:29]
    return content[:12] + ihdr + struct.pack(">I", zlib.crc32(ihdr)) + content[33:]


def png_with_chunk(kind: bytes, data: bytes) -> bytes:
    """A small PNG carrying an extra ancillary chunk ``kind`` (zTXt, iCCP...) of ``data``."""
    content = encode(Image.new("L", (32, 32), 255), "PNG")
    chunk = struct.pack(">I", len(data)) + kind + data
    chunk += struct.pack(">I", zlib.crc32(kind + data))
    return content[:33] + chunk + content[33:]


def animated_gif(frames: int = 2000) -> bytes:
    """A GIF of ``frames`` frames (GIF is not accepted by parse)."""
    out = io.BytesIO()
    images = [Image.new("L", (64, 64), i % 256) for i in range(frames)]
    images[0].save(out, "GIF", save_all=True, append_images=images[1:])
    return out.getvalue()


PDF, PNG, JPEG = "application/pdf", "image/png", "image/jpeg"

#: The named hostile documents: (expression over this module, mime type). Expressions rather
#: than bytes, so a child process builds its own and nothing large crosses a pipe.
NAMED = {
    "finding 1: a Factur-X attachment inflating to 512 MB": ("attachment_bomb_pdf()", PDF),
    "finding 2: 50 blank pages of 200 inches": ("huge_blank_pages_pdf()", PDF),
    "finding 3: a 335-byte JPEG claiming 7000x7000": ("image_claiming(7000, 7000)", JPEG),
    "32 attachments naming one 6 MB stream": ("attachment_bomb_pdf(6_000_000, 32)", PDF),
    "a content stream inflating to 512 MB": ("content_bomb_pdf()", PDF),
    "a twice-deflated content stream of 64 MB": (
        'content_bomb_pdf(64_000_000, b"[/FlateDecode /FlateDecode]")',
        PDF,
    ),
    "an image declared 100000x100000 in a PDF": ("huge_image_pdf()", PDF),
    "a /Pages tree listing itself": ("pages_cycle_pdf()", PDF),
    "objects referring to each other": ("reference_loop_pdf()", PDF),
    "a /MediaBox nested 100,000 arrays deep": ("nested_arrays_pdf()", PDF),
    "a PNG claiming 60000x60000": ('image_claiming(60000, 60000, "PNG")', PNG),
    "a PNG with a 64 MB zTXt chunk": (
        'png_with_chunk(b"zTXt", b"k\\0\\0" + deflated_zeros(64_000_000))',
        PNG,
    ),
    "a PNG with a 64 MB iCCP profile": (
        'png_with_chunk(b"iCCP", b"p\\0\\0" + deflated_zeros(64_000_000))',
        PNG,
    ),
    "an animated GIF of 2000 frames": ("animated_gif()", "image/png"),
}
