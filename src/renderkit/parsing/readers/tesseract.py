"""OCR with the Tesseract command-line program: words with boxes and confidences.

Tesseract is run directly (``tesseract stdin stdout ... tsv``) rather than through
pytesseract, so that each call can be given ``OMP_THREAD_LIMIT=1``: Tesseract's OpenMP
threads spin against each other on small machines, and one page took 5.4 s with them and 1.0 s
without on the two-core reference machine (the process-wide environment is left untouched).
The TSV it prints is the same table pytesseract's ``image_to_data`` returns.

Images are prepared before OCR: EXIF orientation applied, grayscale, very large scans halved
and tiny ones enlarged, and a small skew straightened by a projection-profile search. When the
first pass reads poorly (mean confidence under 0.8), a second pass binarises with Sauvola's
local threshold instead of Tesseract's global Otsu (it rescues receipts with a dark corner or
faint thermal print) and the reading with the higher mean confidence is kept; when the result
is still poor, Tesseract's orientation detection (OSD) is asked whether the page is turned by
90, 180 or 270 degrees; the turned reading is kept only if it reads more text with a higher
mean confidence.
(Autocontrast, colour-channel choices, enlarging 600-900 px wide scans, page segmentation
modes 3 and 4, unsharp masking and stroke thickening were measured on the receipts and did not
help.)
"""

from __future__ import annotations

import io
import math
import os
import shutil
from collections.abc import Sequence

import anyio
import anyio.to_thread
import attrs
from PIL import Image, ImageOps

from renderkit.core.errors import MissingDependencyError, ProviderError
from renderkit.core.workers import WorkerPool
from renderkit.parsing._protocol import Line, Page, Word

__all__ = ["TesseractOcr", "deskew_angle", "parse_tsv", "prepare_image"]

_INSTALL_HINT = "OCR needs the tesseract program: apt-get install tesseract-ocr tesseract-ocr-eng"


# A word whose confidence Tesseract reports below this is usually a smudge or a rule line.
_MIN_WORD_CONFIDENCE = 0.0
_RETRY_BELOW = 0.8
_ROTATE_BELOW = 0.6


def parse_tsv(tsv: str, *, page: int, width: int, height: int) -> tuple[Line, ...]:
    """Turn Tesseract's TSV output into lines of words with normalised boxes."""
    lines: dict[tuple[int, int, int], list[Word]] = {}
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5":
            continue
        text = cols[11].strip()
        try:
            conf = float(cols[10])
            left, top, w, h = (int(c) for c in cols[6:10])
        except ValueError:
            continue
        if not text or conf < _MIN_WORD_CONFIDENCE:
            continue
        key = (int(cols[2]), int(cols[3]), int(cols[4]))
        box = (
            _clamp(left / width),
            _clamp(top / height),
            _clamp((left + w) / width),
            _clamp((top + h) / height),
        )
        lines.setdefault(key, []).append(
            Word(text=text, page=page, bbox=box, confidence=round(conf / 100, 4))
        )
    ordered = sorted(lines.values(), key=lambda ws: (ws[0].bbox[1], ws[0].bbox[0]))
    return tuple(_split_line(ws, page) for ws in ordered if ws)


def _split_line(words: list[Word], page: int) -> Line:
    return Line(words=tuple(sorted(words, key=lambda w: w.bbox[0])), page=page)


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, round(value, 5)))


def prepare_image(image: Image.Image, *, max_side: int = 4000, min_width: int = 500) -> Image.Image:
    """Grayscale, autocontrast and rescale an image for OCR (pure, no Tesseract call)."""
    image = ImageOps.exif_transpose(image) or image
    if image.mode in ("RGBA", "LA", "P"):
        # Transparent areas become white paper rather than black.
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, rgba)
    gray = image.convert("L")
    width, height = gray.size
    scale = 1.0
    if width > 3000:
        scale = 0.5  # a 600 dpi scan reads as well at 300 dpi, in a quarter of the time
    elif width < min_width:
        scale = min(3.0, min_width / width)
    if max(width, height) * scale > max_side:
        scale = max_side / max(width, height)
    if abs(scale - 1.0) > 0.05:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        gray = gray.resize(size, Image.Resampling.LANCZOS)
    return gray


def deskew_angle(image: Image.Image, *, limit: float = 6.0, step: float = 0.5) -> float:
    """The rotation (degrees, counter-clockwise) that best straightens text lines.

    Projection-profile search: rotate a small, inverted copy by each candidate angle and keep
    the one whose row sums vary the most (text lines then fall on rows, gaps between them).
    """
    small = image.convert("L")
    small.thumbnail((600, 600))
    ink = ImageOps.invert(small)
    best, best_score = 0.0, -1.0
    steps = int(limit / step)
    for i in range(-steps, steps + 1):
        angle = i * step
        turned = ink.rotate(angle, resample=Image.Resampling.BILINEAR, expand=False)
        rows = list(turned.resize((1, turned.height), Image.Resampling.BOX).tobytes())
        mean = sum(rows) / len(rows)
        score = sum((r - mean) ** 2 for r in rows)
        # Prefer no rotation unless another angle is clearly better.
        if score > best_score * (1.02 if angle else 1.0):
            best, best_score = angle, score
    return best


@attrs.frozen
class _Reading:
    lines: tuple[Line, ...]
    rotation: float
    width: int
    height: int

    @property
    def quality(self) -> float:
        words = [w for line in self.lines for w in line.words]
        if not words:
            return 0.0
        conf = sum(w.confidence * len(w.text) for w in words) / sum(len(w.text) for w in words)
        return conf * math.sqrt(1 + len(words))

    @property
    def mean_confidence(self) -> float:
        words = [w for line in self.lines for w in line.words]
        if not words:
            return 0.0
        return sum(w.confidence * len(w.text) for w in words) / sum(len(w.text) for w in words)


class TesseractOcr:
    """The :class:`~renderkit.parsing.OcrEngine` running the ``tesseract`` program (Debian
    ``tesseract-ocr``).

    Args:
        executable: the program, looked up on PATH when not absolute.
        languages: Tesseract language codes joined by ``+`` (``eng``, ``eng+deu``).
        psm: page segmentation mode; 6 (one block of text) reads receipts and forms best on
            the dev set, 3 (automatic) suits multi-column pages.
        timeout: seconds allowed for one page.
        deskew: straighten small skews before OCR.
        workers: the pool a page holds a worker of while it is read (its Tesseract runs
            and image preparation, one after the other); by default the engine's own, one
            worker per CPU.
    """

    def __init__(
        self,
        *,
        executable: str = "tesseract",
        languages: str = "eng",
        psm: int = 6,
        timeout: float = 60.0,
        deskew: bool = True,
        workers: WorkerPool | None = None,
    ) -> None:
        self.executable = executable
        self.languages = languages
        self.psm = psm
        self.timeout = timeout
        self.deskew = deskew
        self.workers = workers if workers is not None else WorkerPool(name="ocr")

    def _command(self, *args: str) -> list[str]:
        path = shutil.which(self.executable)
        if path is None:
            raise MissingDependencyError(_INSTALL_HINT)
        return [path, "stdin", "stdout", "-l", self.languages, *args]

    async def _run(self, image: Image.Image, *args: str) -> str:
        command = self._command(*args)
        data = await anyio.to_thread.run_sync(_encode, image)
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        with anyio.fail_after(self.timeout):
            result = await anyio.run_process(command, input=data, check=False, env=env)
        if result.returncode != 0:
            msg = "OCR failed on a page image"
            raise ProviderError(msg, provider="tesseract")
        return result.stdout.decode("utf-8", errors="replace")

    async def _read(self, image: Image.Image, page: int, rotation: float, *extra: str) -> _Reading:
        tsv = await self._run(image, "--psm", str(self.psm), "--dpi", "300", *extra, "tsv")
        lines = parse_tsv(tsv, page=page, width=image.width, height=image.height)
        return _Reading(lines=lines, rotation=rotation, width=image.width, height=image.height)

    async def orientation(self, image: Image.Image) -> int:
        """Clockwise degrees (0, 90, 180, 270) that would make the page upright, per OSD."""
        small = image.copy()
        small.thumbnail((1200, 1200))
        try:
            out = await self._run(small, "--psm", "0", "--dpi", "150")
        except ProviderError:
            return 0  # too little text for OSD: keep the page as it is
        rotate, confidence = 0, 0.0
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Rotate":
                rotate = int(value.strip() or 0)
            elif key.strip() == "Orientation confidence":
                confidence = float(value.strip() or 0)
        return rotate if confidence >= 1.0 else 0

    async def recognize(
        self, image: Image.Image, *, page: int = 1, detect_orientation: bool = True
    ) -> Page:
        """Read one page image; see the module docstring for the preparation steps.

        Raises:
            MissingDependencyError: ``tesseract`` is not installed.
            ProviderError: Tesseract failed on the image.
            WorkersBusyError: every OCR worker is busy and the pool's queue is full.
        """
        async with self.workers.slot():
            return await self._recognize(image, page, detect_orientation)

    async def _recognize(self, image: Image.Image, page: int, detect_orientation: bool) -> Page:
        prepared = await anyio.to_thread.run_sync(self._prepare, image)
        reading = await self._read(prepared, page, 0.0)
        if reading.mean_confidence < _RETRY_BELOW:
            sauvola = await self._read(prepared, page, 0.0, "-c", "thresholding_method=2")
            if _better_binarisation(sauvola, reading):
                reading = sauvola
        image_read = prepared
        if detect_orientation and (
            reading.mean_confidence < _ROTATE_BELOW
            or sum(len(ln.words) for ln in reading.lines) < 8
        ):
            rotate = await self.orientation(prepared)
            if rotate:
                turned = await anyio.to_thread.run_sync(
                    lambda: prepared.rotate(-rotate, expand=True, fillcolor=255)
                )
                second = await self._read(turned, page, float(rotate))
                if _better_orientation(second, reading):
                    reading, image_read = second, turned
        reading = await self._reread_top(image_read, reading, page)
        return Page(
            number=page,
            lines=reading.lines,
            source="ocr",
            width=float(reading.width),
            height=float(reading.height),
            rotation=reading.rotation,
        )

    async def _reread_top(self, image: Image.Image, reading: _Reading, page: int) -> _Reading:
        """``reading`` with the lines that only a read of the band above its first line finds.

        In one-block mode Tesseract skips a line printed much larger than the text below it
        (the shop name on a till receipt): it sizes letters by the block's body text. Read on
        its own, the band above the first line read gives such a line back. Only confident
        lines are added; nothing already read is changed.
        """
        if not reading.lines:
            return reading
        first = reading.lines[0].words
        top = min(w.bbox[1] for w in first)
        line_height = max(w.bbox[3] for w in first) - top
        height = round(image.height * top)
        if top < 2 * line_height or height < 16:
            return reading  # no room above the first line for a larger one
        crop = image.crop((0, 0, image.width, height))
        tsv = await self._run(crop, "--psm", str(self.psm), "--dpi", "300", "tsv")
        found = parse_tsv(tsv, page=page, width=crop.width, height=crop.height)
        added = [_rescaled(line, top) for line in found if _confident_text(line)]
        if not added:
            return reading
        return attrs.evolve(reading, lines=(*added, *reading.lines))

    def _prepare(self, image: Image.Image) -> Image.Image:
        prepared = prepare_image(image)
        if self.deskew:
            angle = deskew_angle(prepared)
            if angle:
                prepared = prepared.rotate(
                    angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255
                )
        return prepared


def _better_binarisation(candidate: _Reading, current: _Reading) -> bool:
    """Whether ``candidate``, the same image binarised differently, reads better.

    The mean confidence decides, not :attr:`_Reading.quality`: on one image, more words
    usually means more specks read as letters. A reading that lost many words loses.
    """
    words = sum(len(line.words) for line in candidate.lines)
    if words < 0.7 * sum(len(line.words) for line in current.lines):
        return False
    return candidate.mean_confidence > current.mean_confidence


def _rescaled(line: Line, band: float) -> Line:
    # Boxes read on the top band, as fractions of the whole page.
    words = tuple(
        attrs.evolve(w, bbox=(w.bbox[0], w.bbox[1] * band, w.bbox[2], w.bbox[3] * band))
        for w in line.words
    )
    return Line(words=words, page=line.page)


def _confident_text(line: Line) -> bool:
    text = "".join(w.text for w in line.words)
    letters = sum(c.isalpha() for c in text)
    if letters < 3 or letters < 0.6 * len(text):
        return False
    return sum(w.confidence for w in line.words) / len(line.words) >= 0.75


def _better_orientation(candidate: _Reading, current: _Reading) -> bool:
    """Whether ``candidate``, the page turned as OSD suggested, reads better than ``current``.

    Both the amount of text (:attr:`_Reading.quality`) and the mean confidence must rise: a page
    turned the wrong way reads as many short, unsure specks, which alone can outweigh a
    correct but poorly printed reading on quality.
    """
    return (
        candidate.quality > current.quality and candidate.mean_confidence > current.mean_confidence
    )


def _encode(image: Image.Image) -> bytes:
    # PGM/PPM: no compression work, and Tesseract (Leptonica) reads it from stdin.
    out = io.BytesIO()
    image.save(out, "PPM")
    return out.getvalue()


def words_of(lines: Sequence[Line]) -> list[Word]:
    """Every word of ``lines`` in order."""
    return [w for line in lines for w in line.words]
