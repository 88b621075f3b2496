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
    placed: Sequence[tuple[float, float, str]] = (),
) -> bytes:
    """A PDF whose pages carry ``pages`` as a real text layer (Helvetica, 11 pt), and, when
    given, a ``watermark`` word in 60 pt set at 30 degrees across the lines; a line named in
    ``letter_spacing`` is set with that many points between its characters. With ``turn``
    (90, 180 or 270) the content is drawn turned that many degrees counter-clockwise, on a
    page turned to fit (a landscape media box for a quarter turn); ``rotate`` is the page's
    ``/Rotate`` (turning it clockwise for display). ``placed`` texts are drawn at their (x, y)
    in points on every page, on it or off it."""
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
        for x, y, text in placed:
            ops += ["BT", "/F1 11 Tf", f"{x} {y} Td", f"({_escape(text)}) Tj", "ET"]
        if watermark is not None:
            top = size[1] - 72
            ops += ["BT", "/F1 60 Tf", f"0.866 0.5 -0.5 0.866 120 {top - 160} Tm"]
            ops += [f"({_escape(watermark)}) Tj", "ET"]
        width, height = size
        matrix = {
            0: "1 0 0 1 0 0",
            90: f"0 1 -1 0 {height} 0",
            180: f"-1 0 0 -1 {width} {height}",
            270: f"0 -1 1 0 0 {width}",
        }[turn]
        if turn in (90, 270):
            width, height = height, width
        if turn:
            ops = ["q", f"{matrix} cm", *ops, "Q"]
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


def form_pdf(
    rows: Sequence[tuple[str, str]], *, size: tuple[int, int] = (595, 842), form: bool = True
) -> bytes:
    """A one-page PDF form: each row's label printed in the page's content (Helvetica, 11 pt),
    its value only in a filled-in text field beside it (a widget annotation drawing the value
    from its own appearance stream), as fillable invoice templates are sent. A label of ""
    prints nothing. Without ``form`` the values are notes typed onto the page (FreeText
    annotations, no AcroForm), and a link annotation covers the first row."""
    count = len(rows)
    fields = " ".join(f"{6 + 2 * i} 0 R" for i in range(count))
    link = f" {6 + 2 * count} 0 R" if not form else ""
    acroform = (
        f" /AcroForm << /Fields [{fields}] /DR << /Font << /Helv 3 0 R >> >> "
        "/DA (/Helv 11 Tf 0 g) >>"
        if form
        else ""
    )
    objects = [
        f"<< /Type /Catalog /Pages 2 0 R{acroform} >>".encode(),
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {size[0]} {size[1]}] "
        f"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R "
        f"/Annots [{fields}{link}] >>".encode(),
    ]
    ops = ["BT", "/F1 11 Tf"]
    tops = [size[1] - 72 - 20 * i for i in range(count)]
    for (label, _), top in zip(rows, tops, strict=True):
        if label:
            ops.append(f"1 0 0 1 56 {top} Tm ({_escape(label)}) Tj")
    ops.append("ET")
    stream = "\n".join(ops).encode("latin-1")
    objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    for i, ((_, value), top) in enumerate(zip(rows, tops, strict=True)):
        kind = (
            f"/Widget /FT /Tx /T (field{i}) /V ({_escape(value)})"
            if form
            else f"/FreeText /Contents ({_escape(value)})"
        )
        widget = (
            f"<< /Type /Annot /Subtype {kind} "
            f"/Rect [200 {top - 4} 400 {top + 13}] /P 4 0 R /DA (/Helv 11 Tf 0 g) "
            f"/AP << /N {7 + 2 * i} 0 R >> /F 4 >>"
        )
        look = f"/Tx BMC q BT /Helv 11 Tf 0 g 2 4 Td ({_escape(value)}) Tj ET Q EMC".encode()
        objects.append(widget.encode())
        objects.append(
            b"<< /Type /XObject /Subtype /Form /BBox [0 0 200 17] "
            b"/Resources << /Font << /Helv 3 0 R >> >> /Length %d >>\nstream\n"
            % len(look)
            + look
            + b"\nendstream"
        )
    if not form:
        top = tops[0]
        objects.append(
            f"<< /Type /Annot /Subtype /Link /Rect [56 {top - 4} 300 {top + 13}] "
            "/A << /S /URI /URI (https://example.com/) >> >>".encode()
        )
    return _assemble(objects)


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
