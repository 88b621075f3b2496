"""A PDF page's text layer as lines of styled words, in the frame its text reads upright in.

PDFium reports each character's box in the page's own space. A page printed sideways and
turned back by ``/Rotate 90`` (a scan turned upright, a landscape print) has its lines
running up the page there; a landscape invoice printed onto a portrait page without
``/Rotate`` too. The frame is the quarter turn that sets most characters upright (PDFium
gives each its angle), usually the displayed page's; every box is turned into it first, so
the words read as a person turning the page would read them. An upright page saved with a
stray ``/Rotate`` still reads upright.
"""

from __future__ import annotations

import collections
import ctypes
import math
import statistics
from collections.abc import Sequence
from typing import Any

import attrs
import pypdfium2
import pypdfium2.raw as pdfium_c

from renderkit.parsing._protocol import Line, StyledWord
from renderkit.parsing.readers.spacing import join_spaced_letters

__all__ = ["TextLayer", "text_layer"]

# Font names of bold faces ("Inter-SemiBold", "Arial,Bold", "Helvetica-Black").
_BOLD_NAMES = ("bold", "black", "heavy", "semibd", "demi")
# Characters looked at, spread over the page, for the text's direction and unmapped share.
_SAMPLE = 100


@attrs.frozen(kw_only=True)
class TextLayer:
    """A page's text layer.

    Attributes:
        lines: the lines, boxes as fractions of the frame the text reads upright in (origin
            top left).
        width, height: that frame's size in points.
        unmapped: the share of the printed characters whose font maps them to no Unicode
            text (a font without its ToUnicode map: the "text" is glyph numbers).
    """

    lines: tuple[Line, ...]
    width: float
    height: float
    unmapped: float

    @property
    def characters(self) -> int:
        """How many characters the words hold."""
        return sum(len(w.text) for line in self.lines for w in line.words)


def text_layer(page: pypdfium2.PdfPage, number: int) -> TextLayer:
    """``page``'s text layer; ``number`` is its 1-based page number."""
    textpage = page.get_textpage()
    try:
        frame = _Frame(page, textpage)
        width, height = frame.size
        lines = _text_layer(textpage, number, frame)
        return TextLayer(lines=lines, width=width, height=height, unmapped=frame.unmapped)
    finally:
        textpage.close()


class _Frame:
    """Turns boxes from a page's own space into the frame its text reads upright in (PDF
    axes: y up), ``turn`` degrees clockwise from the page's own."""

    def __init__(self, page: pypdfium2.PdfPage, textpage: pypdfium2.PdfTextPage) -> None:
        left, bottom, right, top = page.get_bbox()
        self.left, self.bottom = left, bottom
        self.width, self.height = right - left, top - bottom
        rotation = page.get_rotation() % 360
        self.turn, self.unmapped = _sample(textpage, rotation)
        # On a turned page, or one whose text is turned, PDFium breaks lines between the
        # letters of one line (see _text_layer).
        self.loose_breaks = bool(self.turn or rotation)
        quarter = self.turn in (90, 270)
        self.size = (self.height, self.width) if quarter else (self.width, self.height)

    def upright(
        self, left: float, bottom: float, right: float, top: float
    ) -> tuple[float, float, float, float]:
        x0, x1 = left - self.left, right - self.left
        y0, y1 = bottom - self.bottom, top - self.bottom
        if self.turn == 90:
            return y0, self.width - x1, y1, self.width - x0
        if self.turn == 180:
            return self.width - x1, self.height - y1, self.width - x0, self.height - y0
        if self.turn == 270:
            return self.height - y1, x0, self.height - y0, x1
        return x0, y0, x1, y1


def _sample(textpage: pypdfium2.PdfTextPage, rotation: int) -> tuple[int, float]:
    """From characters spread over the page: the clockwise quarter turn (degrees) that sets
    most of them upright, and the share of them their fonts map to no text.

    PDFium gives each character's angle clockwise in the page's space, so text at a quarter
    turn q reads upright after turning 360 - q; where no character tells (slanted or
    angle-less text) the turn is the page's ``/Rotate``.
    """
    quarters: collections.Counter[int] = collections.Counter()
    raw = textpage.raw
    count = textpage.count_chars()
    printed = unmapped = 0
    for i in range(0, count, max(1, count // _SAMPLE)):
        if chr(pdfium_c.FPDFText_GetUnicode(raw, i)).isspace():
            continue
        printed += 1
        unmapped += pdfium_c.FPDFText_HasUnicodeMapError(raw, i) == 1
        angle = pdfium_c.FPDFText_GetCharAngle(raw, i)
        if angle >= 0 and not _slanted(angle):
            quarters[round(angle / (math.pi / 2)) % 4] += 1
    turn = (4 - quarters.most_common(1)[0][0]) % 4 * 90 if quarters else rotation
    return turn, unmapped / printed if printed else 0.0


def _text_layer(textpage: pypdfium2.PdfTextPage, number: int, frame: _Frame) -> tuple[Line, ...]:
    count = textpage.count_chars()
    width, height = frame.size
    lines: list[Line] = []
    words: list[StyledWord] = []
    # Per word, the median gap between its letters' boxes (None for one letter), to find
    # letter-spaced words PDFium cut into letters.
    spacings: list[float | None] = []
    # Per word, whether it follows the previous one without a space character of the PDF's
    # own: PDFium generated one, or a visual gap parted them.
    soft: list[bool] = []
    typed_space = [False]
    chars: list[str] = []
    box: list[float] = []
    gaps: list[float] = []
    bold: list[bool] = []

    def end_word() -> None:
        if chars and box:
            x0, y0, x1, y1 = box
            # PDF space has its origin at the bottom left; flip to top-left fractions.
            bbox = (
                _frac(x0 / width),
                _frac(1 - y1 / height),
                _frac(x1 / width),
                _frac(1 - y0 / height),
            )
            words.append(
                StyledWord(text="".join(chars), page=number, bbox=bbox, bold=bool(bold and bold[0]))
            )
            spacings.append(statistics.median(gaps) / width if gaps else None)
            soft.append(not typed_space[0])
            typed_space[0] = False
        chars.clear()
        box.clear()
        gaps.clear()
        bold.clear()

    def end_line() -> None:
        end_word()
        if words:
            joined = join_spaced_letters(words, spacings, soft, aspect=height / width)
            lines.append(Line(words=tuple(joined), page=number))
        words.clear()
        spacings.clear()
        soft.clear()
        typed_space[0] = False

    # On a turned page PDFium breaks lines between letters of one line: a break it generated
    # there waits for the next character, which ends the line only on another row.
    pending = False
    last: tuple[float, float, float, float] | None = None
    upright_page = not frame.loose_breaks

    raw = textpage.raw
    for i in range(count):
        code = pdfium_c.FPDFText_GetUnicode(raw, i)
        if code in (10, 13):
            generated = pdfium_c.FPDFText_IsGenerated(raw, i)
            if generated and (frame.loose_breaks or _beside_slant(raw, i, count)):
                pending = True
            else:
                end_line()
            continue
        char = chr(code) if 0 < code < 0x110000 else ""
        if not char or char.isspace() or code == 0xFFFE:
            generated = pdfium_c.FPDFText_IsGenerated(raw, i)
            if char.isspace() and generated and _beside_slant(raw, i, count):
                # PDFium's own space beside a watermark drawn mid-line: the gap decides.
                pending = True
                continue
            end_word()
            if char.isspace() and not generated:
                typed_space[0] = True
            continue
        if 0xD800 <= code <= 0xDFFF:
            continue  # half of a surrogate pair: pdfium reports the pair as two chars
        if _slanted(pdfium_c.FPDFText_GetCharAngle(raw, i)):
            # Text set at a slant across the page is a watermark or a stamp ("COPY",
            # "DUPLICATE", "PAID"), never a field; its letters would land inside the lines
            # it crosses ("Invoice DUPLICATE reference: ..."). A generator may draw it in the
            # middle of a word ("Werksta", the watermark, "tt"): the word goes on after it
            # unless a gap or another row says otherwise.
            continue
        try:
            left, bottom, right, top = frame.upright(*textpage.get_charbox(i, loose=True))
        except pypdfium2.PdfiumError:
            chars.append(char)
            continue
        if right <= 0 or top <= 0 or left >= width or bottom >= height:
            # Drawn off the page (a template's parked field, text beyond the crop box): no
            # reader sees it, so it is no text of the page.
            end_word()
            continue
        here = (left, bottom, right, top)
        if pending:
            pending = False
            if last is None or not _same_row(last, here):
                end_line()
            elif left - last[2] > 0.1 * (top - bottom):
                end_word()  # the break stood for a space between two words
        elif (
            upright_page
            and (words or chars)
            and last is not None
            # A letter further along the same run stands on the same row: no need to look.
            and (bottom != last[1] or top != last[3] or left < last[0])
            and not _same_row(last, here)
        ):
            # PDFium ran on into another row without a break: text drawn out of reading
            # order, or from form fields' appearances one after another. (On a turned page
            # the letters of a ligature it spells out stand apart: its own breaks rule there.)
            end_line()
        last = here
        # A visual gap without a space character ends a word; measured against the taller of
        # the character and the word so far, since "." or "," alone is only a point high.
        tall = max(top - bottom, box[3] - box[1]) if box else top - bottom
        if box and left > box[2] + tall * 0.6 and right > box[2]:
            end_word()
        if not chars:
            bold.append(_is_bold(raw, i))
        chars.append(char)
        if box:
            gaps.append(left - box[2])
            box[:] = [min(box[0], left), min(box[1], bottom), max(box[2], right), max(box[3], top)]
        else:
            box.extend([left, bottom, right, top])
    end_line()
    if frame.loose_breaks:
        # PDFium orders a turned page's lines as they run in the page's own space (bottom up
        # for a stray /Rotate); read them top down, left to right, as they show.
        lines.sort(key=lambda line: (round(line.bbox[1], 3), line.bbox[0]))
    return tuple(lines)


def _same_row(before: Sequence[float], box: Sequence[float]) -> bool:
    """Whether ``box`` continues the row of the character ``before`` (PDF axes): it shares
    half the lower one's height and does not start left of it."""
    overlap = min(before[3], box[3]) - max(before[1], box[1])
    low = min(before[3] - before[1], box[3] - box[1])
    return overlap >= 0.5 * low and box[0] >= before[0]


# How far (radians) a character's angle may be from a quarter turn and still be set
# straight: pdfium reports angles in [0, 2 pi), an upright character at 0.
_STRAIGHT = 0.05


def _beside_slant(raw: Any, index: int, count: int) -> bool:
    """Whether the printed character before or after ``index`` (past breaks and spaces) is
    slanted: a space or break PDFium generated around a watermark drawn mid-line stands for
    the watermark, not for a gap in the text."""
    for step, stop in ((-1, -1), (1, count)):
        for j in range(index + step, stop, step):
            if not chr(pdfium_c.FPDFText_GetUnicode(raw, j)).isspace():
                if _slanted(pdfium_c.FPDFText_GetCharAngle(raw, j)):
                    return True
                break
    return False


def _slanted(angle: float) -> bool:
    """Whether a character set at ``angle`` (radians, as pdfium reports it; negative for
    unknown) runs at a slant: neither horizontal nor vertical."""
    if angle < 0:
        return False
    off = math.fmod(angle, math.pi / 2)
    return _STRAIGHT < off < math.pi / 2 - _STRAIGHT


def _is_bold(raw: Any, index: int) -> bool:
    """Whether character ``index`` is set in a bold face, by its font's name."""
    name = ctypes.create_string_buffer(96)
    flags = ctypes.c_int()
    if not pdfium_c.FPDFText_GetFontInfo(raw, index, name, len(name), ctypes.byref(flags)):
        return False
    lowered = name.value.decode("latin-1").lower()
    return any(mark in lowered for mark in _BOLD_NAMES)


def _frac(value: float) -> float:
    return min(1.0, max(0.0, round(value, 5)))
