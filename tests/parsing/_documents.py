"""Documents made on the fly for the parsing tests (no dataset files in the repository)."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Mapping, Sequence

import pytest
from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(
    pages: Sequence[Sequence[str]],
    *,
    size: tuple[int, int] = (595, 842),
    watermark: str | None = None,
    letter_spacing: Mapping[str, float] | None = None,
    turn: int = 0,
    rotate: int = 0,
) -> bytes:
    """A PDF whose pages carry ``pages`` as a real text layer (Helvetica, 11 pt), and, when
    given, a ``watermark`` word in 60 pt set at 30 degrees across the lines; a line named in
    ``letter_spacing`` is set with that many points between its characters. With ``turn``
    (90, 180 or 270) the content is drawn turned that many degrees counter-clockwise, on a
    page turned to fit (a landscape media box for a quarter turn); ``rotate`` is the page's
    ``/Rotate`` (turning it clockwise for display)."""
    objects: list[bytes] = []
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, lines in enumerate(pages):
        ops = ["BT", "/F1 11 Tf", "14 TL", f"56 {size[1] - 72} Td"]
        for line in lines:
            spacing = (letter_spacing or {}).get(line)
            if spacing:
                # Each character moved on by the spacing inside one TJ array, as Chromium and
                # most generators write letter-spaced text (not the Tc operator).
                shift = f" {-spacing * 1000 / 11:.0f} "
                ops.append(f"[{shift.join(f'({_escape(c)})' for c in line)}] TJ T*")
            else:
                ops.append(f"({_escape(line)}) Tj T*")
        ops.append("ET")
        if watermark is not None:
            top = size[1] - 72
            ops += ["BT", "/F1 60 Tf", f"0.866 0.5 -0.5 0.866 120 {top - 160} Tm"]
            ops += [f"({_escape(watermark)}) Tj", "ET"]
        width, height = size
        placed = {
            0: "1 0 0 1 0 0",
            90: f"0 1 -1 0 {height} 0",
            180: f"-1 0 0 -1 {width} {height}",
            270: f"0 -1 1 0 0 {width}",
        }[turn]
        if turn in (90, 270):
            width, height = height, width
        if turn:
            ops = ["q", f"{placed} cm", *ops, "Q"]
        stream = "\n".join(ops).encode("latin-1")
        turned = f"/Rotate {rotate} " if rotate else ""
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] {turned}"
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    return _assemble(objects)


def _assemble(objects: list[bytes]) -> bytes:
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()


def many_pages_pdf(count: int) -> bytes:
    """A PDF of ``count`` blank pages."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + i} 0 R" for i in range(count))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>"] * count
    return _assemble(objects)


def image_pdf(image: Image.Image) -> bytes:
    """A PDF whose only page is ``image`` (a scan: no text layer)."""
    out = io.BytesIO()
    image.convert("RGB").save(out, "PDF", resolution=200.0)
    return out.getvalue()


RECEIPT_LINES = [
    "KEDAI BUKU MAJU SDN BHD",
    "(123456-X)",
    "NO. 12, JALAN MERDEKA 3",
    "47100 PUCHONG, SELANGOR",
    "TEL: 03-8888 1234",
    "TAX INVOICE",
    "DATE: 29/10/2017   18:31",
    "INVOICE NO: CS-10023",
    "NOTEBOOK A5          2   12.50",
    "PEN BLUE             1    3.20",
    "SUB-TOTAL                 28.20",
    "GST 6%                     1.69",
    "TOTAL                     29.89",
    "CASH                      50.00",
    "CHANGE                    20.11",
    "THANK YOU, PLEASE COME AGAIN",
]


def receipt_image(lines: Sequence[str] = RECEIPT_LINES, *, rotate: int = 0) -> Image.Image:
    """A clean receipt drawn with a monospaced TrueType font (about 300 dpi text size)."""
    font = ImageFont.truetype(FONT, 30)
    height = 80 + 48 * len(lines)
    image = Image.new("L", (900, height), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((40, 40 + 48 * i), line, font=font, fill=0)
    return image.rotate(rotate, expand=True, fillcolor=255) if rotate else image


def encode(image: Image.Image, fmt: str = "PNG", **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def require_tesseract() -> None:
    """Skip without tesseract, except in CI (RENDERKIT_REQUIRE_BROWSER set), where it fails."""
    if shutil.which("tesseract"):
        return
    if os.environ.get("RENDERKIT_REQUIRE_BROWSER"):
        pytest.fail("tesseract is required in CI (RENDERKIT_REQUIRE_BROWSER is set)")
    pytest.skip("tesseract not installed")
