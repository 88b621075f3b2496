"""Drawing over pages: text and image watermarks, page numbers.

Each stamp is a Form XObject drawn after the page's own content, which is wrapped in
``q``/``Q`` (so whatever graphics state it leaves cannot move the stamp); the page's
content streams are never decoded. Positions
are given on the page *as displayed*: the stamp's content starts with the matrix that undoes
the page's ``/Rotate`` and its box's offset. Text uses Helvetica, one of the 14 fonts every
reader has, so nothing is embedded; its widths (for centring) come from pypdf's AFM tables.
"""

from __future__ import annotations

import io
import math
import zlib
from collections.abc import Sequence

import pikepdf
from PIL import Image, UnidentifiedImageError

# The standard 14 fonts' AFM widths; pypdf (already a dependency) is their only packaged
# source, pikepdf's canvas leaves Helvetica's text_width unimplemented.
from pypdf._codecs.core_font_metrics import CORE_FONT_METRICS

from renderkit.core.colors import parse_color
from renderkit.core.errors import InvalidRequestError
from renderkit.pdfops._models import PageNumbers, Watermark

__all__ = [
    "StampImage",
    "encoded_text",
    "load_image",
    "number_pages",
    "stamp_image",
    "stamp_text",
]

_MARGIN = 36.0  # half an inch from the page's edge
_HELVETICA = CORE_FONT_METRICS["Helvetica"]
_CAP_HEIGHT = 0.718


def encoded_text(text: str, field: str) -> bytes:
    """``text`` in WinAnsi (Windows-1252), the encoding the standard font is used with."""
    try:
        return text.encode("cp1252")
    except UnicodeEncodeError:
        msg = "may hold only Latin-1/Windows-1252 characters (the standard Helvetica font)"
        raise InvalidRequestError.single(field, msg) from None


def _text_width(text: str, size: float) -> float:
    widths = _HELVETICA.character_widths
    default = widths["default"]
    return sum(widths.get(char, default) for char in text) * size / 1000


def _literal(data: bytes) -> bytes:
    escaped = data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    return b"(" + escaped.replace(b"\r", b"\\r").replace(b"\n", b"\\n") + b")"


def _num(value: float) -> bytes:
    return f"{value:.4f}".rstrip("0").rstrip(".").encode() or b"0"


def _rgb(color: str) -> tuple[float, float, float, float]:
    parsed = parse_color(color)
    return parsed if parsed is not None else (0.5, 0.5, 0.5, 1.0)


class _Frame:
    """A page's visible box as displayed: its size, and the matrix from there to user space."""

    def __init__(self, page: pikepdf.Page) -> None:
        x0, y0, x1, y1 = (float(v) for v in page.cropbox)
        self.box = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
        left, bottom, right, top = self.box
        w, h = right - left, top - bottom
        rotate = int(page.obj.get("/Rotate", 0)) % 360
        # Displayed (u, v) -> user (x, y), for a page turned clockwise by /Rotate.
        matrix = {
            0: (1, 0, 0, 1, 0, 0),
            90: (0, 1, -1, 0, w, 0),
            180: (-1, 0, 0, -1, w, h),
            270: (0, -1, 1, 0, 0, h),
        }.get(rotate, (1, 0, 0, 1, 0, 0))
        a, b, c, d, e, f = matrix
        self.matrix = (a, b, c, d, e + left, f + bottom)
        self.width, self.height = (h, w) if rotate in (90, 270) else (w, h)

    def anchor(self, position: str, width: float, height: float) -> tuple[float, float]:
        """The centre of a ``width`` x ``height`` item at ``position``, displayed coordinates."""
        vertical, _, horizontal = position.partition("-")
        if position == "center":
            vertical = horizontal = "center"
        x = {
            "left": _MARGIN + width / 2,
            "right": self.width - _MARGIN - width / 2,
        }.get(horizontal, self.width / 2)
        y = {
            "bottom": _MARGIN / 2 + height / 2,
            "top": self.height - _MARGIN / 2 - height / 2,
        }.get(vertical, self.height / 2)
        return x, y


def _place(frame: _Frame, centre: tuple[float, float], angle: float) -> bytes:
    """``cm`` operators moving the origin to ``centre`` (displayed), turned by ``angle``."""
    radians = math.radians(angle)
    cos, sin = math.cos(radians), math.sin(radians)
    to_user = b" ".join(_num(v) for v in frame.matrix)
    turn = b" ".join(_num(v) for v in (cos, sin, -sin, cos, centre[0], centre[1]))
    return to_user + b" cm " + turn + b" cm\n"


def _overlay(
    pdf: pikepdf.Pdf,
    page: pikepdf.Page,
    frame: _Frame,
    content: bytes,
    resources: pikepdf.Dictionary,
) -> None:
    form = pikepdf.Stream(pdf, content)
    form.Type = pikepdf.Name.XObject
    form.Subtype = pikepdf.Name.Form
    form.BBox = pikepdf.Array(list(frame.box))
    form.Resources = resources
    # Not Page.add_overlay: it coalesces the page's content streams (decoding them) and
    # fits the form into the page by its own rules. Here the page's content is wrapped in
    # q/Q as separate streams (nothing decoded) and the form drawn in user space as is.
    name = page.add_resource(form, pikepdf.Name.XObject, prefix="RkS")
    page.contents_add(b"q\n", prepend=True)
    page.contents_add(b"\nQ\nq " + str(name).encode() + b" Do Q\n", prepend=False)


def _font(pdf: pikepdf.Pdf) -> pikepdf.Object:
    return pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font,
            Subtype=pikepdf.Name.Type1,
            BaseFont=pikepdf.Name.Helvetica,
            Encoding=pikepdf.Name.WinAnsiEncoding,
        )
    )


def _state(pdf: pikepdf.Pdf, opacity: float) -> pikepdf.Object:
    return pdf.make_indirect(
        pikepdf.Dictionary(Type=pikepdf.Name.ExtGState, ca=opacity, CA=opacity)
    )


def _text_ops(text: str, size: float, color: str, field: str) -> tuple[bytes, float, float]:
    """Content drawing ``text`` centred on the origin, and its width and height."""
    data = encoded_text(text, field)
    width, height = _text_width(text, size), size * _CAP_HEIGHT
    r, g, b, _ = _rgb(color)
    ops = b"%s %s %s rg BT /RkF %s Tf %s %s Td %s Tj ET" % (
        _num(r),
        _num(g),
        _num(b),
        _num(size),
        _num(-width / 2),
        _num(-height / 2),
        _literal(data),
    )
    return ops, width, height


def stamp_text(pdf: pikepdf.Pdf, indexes: Sequence[int], mark: Watermark) -> None:
    """Draw ``mark.text`` over the pages at ``indexes``."""
    assert mark.text is not None
    ops, width, height = _text_ops(mark.text, mark.font_size, mark.color, "watermark.text")
    alpha = mark.opacity * _rgb(mark.color)[3]
    resources = pikepdf.Dictionary(
        Font=pikepdf.Dictionary(RkF=_font(pdf)),
        ExtGState=pikepdf.Dictionary(RkG=_state(pdf, alpha)),
    )
    for index in sorted(set(indexes)):
        page = pdf.pages[index]
        frame = _Frame(page)
        centre = frame.anchor(mark.position, width, height)
        content = b"q /RkG gs " + _place(frame, centre, mark.angle) + ops + b" Q\n"
        _overlay(pdf, page, frame, content, resources)


class StampImage:
    """A decoded stamp image: RGB samples, an alpha channel when it has one, its size."""

    __slots__ = ("alpha", "height", "rgb", "width")

    def __init__(self, rgb: bytes, alpha: bytes | None, width: int, height: int) -> None:
        self.rgb, self.alpha, self.width, self.height = rgb, alpha, width, height


def load_image(content: bytes, *, max_pixels: int, field: str) -> StampImage:
    """Decode a PNG or JPEG stamp, its pixel count read from the header first.

    Raises:
        InvalidRequestError: on ``field``: not PNG/JPEG, corrupt, or over ``max_pixels``.
    """
    try:
        with Image.open(io.BytesIO(content)) as image:
            if image.format not in ("PNG", "JPEG"):
                raise InvalidRequestError.single(field, "must be a PNG or JPEG image")
            width, height = image.size
            if width * height > max_pixels:
                msg = f"is {width}x{height} pixels; at most {max_pixels:,} are accepted"
                raise InvalidRequestError.single(field, msg)
            image.load()
            has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
            rgba = image.convert("RGBA" if has_alpha else "RGB")
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
        raise InvalidRequestError.single(field, "is not a readable PNG or JPEG image") from None
    if has_alpha:
        return StampImage(
            rgba.convert("RGB").tobytes(), rgba.getchannel("A").tobytes(), width, height
        )
    return StampImage(rgba.tobytes(), None, width, height)


def _image_object(pdf: pikepdf.Pdf, image: StampImage) -> pikepdf.Object:
    def stream(data: bytes, space: pikepdf.Name) -> pikepdf.Stream:
        made = pikepdf.Stream(pdf, zlib.compress(data, 6))
        made.Type = pikepdf.Name.XObject
        made.Subtype = pikepdf.Name.Image
        made.Width, made.Height = image.width, image.height
        made.ColorSpace = space
        made.BitsPerComponent = 8
        made.Filter = pikepdf.Name.FlateDecode
        return made

    main = stream(image.rgb, pikepdf.Name.DeviceRGB)
    if image.alpha is not None:
        main.SMask = stream(image.alpha, pikepdf.Name.DeviceGray)
    return pdf.make_indirect(main)


def stamp_image(
    pdf: pikepdf.Pdf, indexes: Sequence[int], mark: Watermark, image: StampImage
) -> None:
    """Draw ``image`` over the pages at ``indexes`` (``mark.width`` wide, default 40% of
    the page as displayed, never wider than the page)."""
    resources = pikepdf.Dictionary(
        XObject=pikepdf.Dictionary(RkI=_image_object(pdf, image)),
        ExtGState=pikepdf.Dictionary(RkG=_state(pdf, mark.opacity)),
    )
    for index in sorted(set(indexes)):
        page = pdf.pages[index]
        frame = _Frame(page)
        width = min(mark.width or frame.width * 0.4, frame.width)
        height = width * image.height / image.width
        centre = frame.anchor(mark.position, width, height)
        scale = b"%s 0 0 %s %s %s cm" % (
            _num(width),
            _num(height),
            _num(-width / 2),
            _num(-height / 2),
        )
        content = b"q /RkG gs " + _place(frame, centre, mark.angle) + scale + b" /RkI Do Q\n"
        _overlay(pdf, page, frame, content, resources)


def number_pages(pdf: pikepdf.Pdf, numbers: PageNumbers) -> None:
    """Print ``numbers.format`` on every page, ``{n}`` counting from ``numbers.start``."""
    total = len(pdf.pages)
    resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(RkF=_font(pdf)))
    for index, page in enumerate(pdf.pages):
        text = numbers.format.replace("{n}", str(numbers.start + index)).replace(
            "{total}", str(total)
        )
        ops, width, height = _text_ops(
            text, numbers.font_size, numbers.color, "page_numbers.format"
        )
        frame = _Frame(page)
        centre = frame.anchor(numbers.position, width, height)
        content = b"q " + _place(frame, centre, 0) + ops + b" Q\n"
        _overlay(pdf, page, frame, content, resources)
