"""OCR with RapidOCR (PP-OCR models run by ONNX Runtime), offline, from the wheel's own models.

RapidOCR detects text lines, classifies each line as upright or upside down, and recognises it;
with ``return_word_box`` it also gives a box per word. Only the three models bundled in the
``rapidocr`` wheel are used, named by path: asking RapidOCR for another language or model
version makes it download one, which fails offline. The recognition model is loaded trimmed to
the characters of Latin-script documents when the ``onnx`` package is installed (``latin_only``,
the default; see ``_rapid_trim``): its output layer shrinks from 18,710 classes to 578,
which cut recognition's CPU time by a quarter on a receipt. Every dev receipt line the full model
read in Latin characters reads the same; the few it read with CJK or full-width characters (20
of 2,160, e.g. a full-width colon after "TEL") come out as their Latin look-alikes.

Threads follow the number of pages being read and the machine's load: a page read alone (a
photo, a one-page scan) on an otherwise idle machine runs its models on every core
(``intra_op_num_threads`` = the usable CPUs; a receipt photo took 1.6 s instead of 2.7 s on 2
cores); a page read while others are in flight, or while other processes keep the cores busy
(more tasks runnable right now than leave a core free), runs on one ONNX thread. ONNX Runtime's
threads wait for each other at every operator, so on busy cores two threads were slower than
one (5.8 s against 3.7 s at a load average of 4.8 on 2 cores); and several pages in parallel,
one per core, finish sooner than pages spread over every core in turn. The two settings are two
sessions of the same models, each loaded on first use. At most one page per usable CPU
(:func:`renderkit.core.workers.usable_cpus`, which honours the affinity mask) is read at once
per process.

The page's orientation comes from the detected lines: when most text lines are taller than
wide the page is turned a quarter, and the line classifier's "180" votes tell which way; when
most lines are upright-shaped but upside down, the page is turned by half. A turned page is
rotated and read again, so word boxes and reading order are those of the upright page.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import statistics
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
from PIL import Image, ImageOps

from renderkit.core.errors import ConfigurationError, MissingDependencyError, ProviderError
from renderkit.core.workers import WorkerPool, usable_cpus
from renderkit.parsing._protocol import Line, Page, Word, stand_over
from renderkit.parsing.readers._rapid_trim import onnx_available, trimmed_model

__all__ = ["RapidOcr", "Segment", "group_lines", "rapidocr_available"]

_INSTALL_HINT = "RapidOCR is not installed: pip install 'renderkit[ocr]' (rapidocr, onnxruntime)"


# A line box this much taller than wide holds vertical text (RapidOCR turns such crops by 90°
# before recognising them, with the same threshold).
_TALL = 1.5
# The share of the (length-weighted) 180° votes above which the page is upside down.
_FLIPPED = 0.5


def rapidocr_available() -> bool:
    """Whether ``rapidocr`` and ``onnxruntime`` can be imported (without importing them)."""
    return all(importlib.util.find_spec(name) is not None for name in ("rapidocr", "onnxruntime"))


@attrs.frozen(kw_only=True)
class Segment:
    """One text line as detected: its words and the quadrilateral around it.

    Attributes:
        words: ``(text, confidence, box)`` with ``box`` as ``(x0, y0, x1, y1)`` in pixels.
        quad: the line's four corners in pixels, clockwise from the top left.
    """

    words: tuple[tuple[str, float, tuple[float, float, float, float]], ...]
    quad: tuple[tuple[float, float], ...]


def group_lines(
    segments: Sequence[Segment], *, page: int, width: int, height: int
) -> tuple[Line, ...]:
    """Join detected segments into text lines, top to bottom, words left to right.

    The detector cuts a printed line wherever a wide gap separates its parts ("TOTAL" and
    "23.25" at the far right come as two segments). Segments whose vertical centres fall
    within half a line height of each other, measured along the page's skew (the median slope
    of the long segments), form one line, unless they stand over each other: the parts of
    one line never share their horizontal extent, so a segment over a third of whose width
    (or its neighbour's) a line's segment already spans belongs to another line (on a
    photographed page, tight lines and a tall logo word beside them fall within half a line
    height of each other and were read as one line, their words interleaved).
    """
    if not segments:
        return ()
    slope = _skew(segments)
    placed: list[tuple[float, float, Segment]] = []  # (centre along the skew, height, segment)
    for seg in segments:
        xs = [p[0] for p in seg.quad]
        ys = [p[1] for p in seg.quad]
        centre_x, centre_y = sum(xs) / 4, sum(ys) / 4
        placed.append((centre_y - slope * centre_x, max(1.0, max(ys) - min(ys)), seg))
    placed.sort(key=lambda item: item[0])
    rows: list[list[tuple[float, float, Segment]]] = []
    for item in placed:
        fits = []
        # The last few rows: a line's right part can come after the next line's left part.
        for row in rows[-_OPEN_ROWS:]:
            centre = sum(c for c, _, _ in row) / len(row)
            line_height = min(statistics.median(h for _, h, _ in row), item[1])
            distance = abs(item[0] - centre)
            if distance < 0.5 * line_height and not any(_stacked(item[2], s) for *_, s in row):
                fits.append((distance, row))
        if fits:
            min(fits, key=lambda fit: fit[0])[1].append(item)
        else:
            rows.append([item])
    lines: list[Line] = []
    for row in rows:
        words = [
            Word(
                text=text,
                page=page,
                bbox=(
                    _frac(box[0] / width),
                    _frac(box[1] / height),
                    _frac(box[2] / width),
                    _frac(box[3] / height),
                ),
                confidence=round(min(1.0, max(0.0, conf)), 4),
            )
            for _, _, seg in row
            for text, conf, box in seg.words
        ]
        words.sort(key=lambda w: w.bbox[0])
        if words:
            lines.append(Line(words=tuple(words), page=page))
    return tuple(lines)


# How many of the latest rows a segment may join.
_OPEN_ROWS = 3


def _stacked(a: Segment, b: Segment) -> bool:
    """Whether segments ``a`` and ``b`` stand over each other (:func:`stand_over`)."""
    return stand_over(
        (min(x for x, _ in a.quad), max(x for x, _ in a.quad)),
        (min(x for x, _ in b.quad), max(x for x, _ in b.quad)),
    )


def _skew(segments: Sequence[Segment]) -> float:
    """The page's skew: the median slope of its long segments.

    On a page turned by a degree or so, the detector returns part of the boxes square to the
    image (slope exactly 0) and the rest at the page's slope: where a third or more are
    slanted, and nearly all of those one way, the square ones say nothing of the skew and are
    left out (with half of them square, the median was 0 and a receipt's amounts, a line
    lower at the right, were paired with the labels of the line below). A stamp or two
    slanted on a straight page stays under a third; a curled receipt, its top tilted one way
    and its foot the other, keeps the median of all.
    """
    slopes = []
    for seg in segments:
        (x0, y0), (x1, y1) = seg.quad[0], seg.quad[1]
        if x1 - x0 > 3 * _height(seg.quad):
            slopes.append((y1 - y0) / (x1 - x0))
    slanted = [s for s in slopes if s]
    one_way = max(sum(s > 0 for s in slanted), sum(s < 0 for s in slanted))
    if len(slanted) >= len(slopes) / 3 and one_way >= _ONE_WAY * len(slanted):
        slopes = slanted
    return statistics.median(slopes) if slopes else 0.0


# The share of the slanted boxes that must lean one way for the square ones to be left out.
_ONE_WAY = 0.8


def _height(quad: Sequence[tuple[float, float]]) -> float:
    return math.dist(quad[1], quad[2])


def _frac(value: float) -> float:
    return min(1.0, max(0.0, round(value, 5)))


def turn_of(
    quads: Sequence[Sequence[tuple[float, float]]], labels: Sequence[tuple[str, Any]]
) -> int:
    """Clockwise degrees (0, 90, 180, 270) to turn the page by so that its text is upright.

    Each line votes with its length, for "upside down" by the classifier's probability of
    180° (its scores on receipts are often far from certain, so they are weighed, not cut).

    Args:
        quads: the detected lines' corners, clockwise from the top left.
        labels: the line classifier's ``(label, score)`` per line, label ``"0"`` or ``"180"``.
    """
    tall = flat = tall_flipped = flat_flipped = 0.0
    for quad, (label, score) in zip(quads, labels, strict=False):
        width, height = math.dist(quad[0], quad[1]), _height(quad)
        long, short = max(width, height), min(width, height)
        if long < 2 * short:
            continue  # a word or a character: its shape says little about the direction
        flipped = float(score) if "180" in label else 1.0 - float(score)
        if height >= _TALL * width:
            tall += long
            tall_flipped += long * flipped
        else:
            flat += long
            flat_flipped += long * flipped
    if tall > flat:
        # RapidOCR turns a tall crop a quarter counter-clockwise before classifying it: text
        # running downwards then reads upright, text running upwards reads upside down.
        return 90 if tall_flipped > _FLIPPED * tall else 270
    if flat and flat_flipped > _FLIPPED * flat:
        return 180
    return 0


class RapidOcr:
    """:class:`~renderkit.parsing.OcrEngine` running RapidOCR's bundled PP-OCR models.

    The models are loaded on the first page read (once per engine, under a lock) and shared by
    every later page; recognition runs in the threads of a bounded worker pool, never on the
    event loop.

    Args:
        text_score: lines recognised with a lower confidence are dropped.
        max_side: images are scaled down so that their longer side is at most this many
            pixels before detection (boxes are reported in the original image's terms).
        threads: ONNX threads per page, always; None (the default) means every core for a
            page read alone and one per page for pages read together.
        latin_only: recognise only the characters of Latin-script documents with a
            recognition model trimmed to them (see ``_rapid_trim``; a quarter less
            recognition time), when the ``onnx`` package is installed; False (or no ``onnx``)
            keeps the bundled model's Chinese and Latin characters.
        workers: the pool pages are read in (one page per worker); by default the engine's
            own, one worker per CPU. Share one pool between engines to bound them together.
    """

    def __init__(
        self,
        *,
        text_score: float = 0.5,
        max_side: int = 2000,
        threads: int | None = None,
        latin_only: bool = True,
        workers: WorkerPool | None = None,
    ) -> None:
        if threads is not None and threads < 1:
            msg = f"RapidOcr threads must be at least 1 (got {threads})"
            raise ConfigurationError(msg)
        self.text_score = text_score
        self.max_side = max_side
        self.threads = threads
        self.latin_only = latin_only
        self._engines: dict[int, Any] = {}  # by ONNX threads per model run
        self._lock = threading.Lock()
        self.workers = workers if workers is not None else WorkerPool(name="ocr")
        self._in_flight = 0  # pages being recognised now (under _lock)

    def engine(self, threads: int = 1) -> Any:
        """The RapidOCR object running its models on ``threads`` threads, created on first use
        (thread-safe).

        Raises:
            MissingDependencyError: rapidocr or onnxruntime is not installed, or the wheel
                lacks its bundled models.
        """
        engine = self._engines.get(threads)
        if engine is None:
            with self._lock:
                engine = self._engines.get(threads)
                if engine is None:
                    engine = self._engines[threads] = self._create(threads)
        return engine

    def _create(self, threads: int) -> Any:
        try:
            import onnxruntime  # noqa: F401  # rapidocr imports it late; fail here, with the hint
            import rapidocr
        except ImportError:
            raise MissingDependencyError(_INSTALL_HINT) from None
        models = Path(rapidocr.__file__).parent / "models"
        paths = {task: sorted(models.glob(f"*{task}*.onnx")) for task in ("det", "cls", "rec")}
        if any(len(found) != 1 for found in paths.values()):
            msg = "the rapidocr package does not carry its det, cls and rec models"
            raise MissingDependencyError(msg)
        with tempfile.TemporaryDirectory(prefix="renderkit-rapidocr-") as folder:
            rec = self._rec_model(paths["rec"][0], Path(folder))
            onnx = "EngineConfig.onnxruntime"
            params: dict[str, Any] = {
                "Global.log_level": "error",
                "Global.text_score": self.text_score,
                "Global.max_side_len": self.max_side,
                "Global.return_word_box": True,
                f"{onnx}.intra_op_num_threads": threads,
                f"{onnx}.inter_op_num_threads": 1,
                # Explicit paths: RapidOCR never looks for (or downloads) a model by name.
                "Det.model_path": str(paths["det"][0]),
                "Cls.model_path": str(paths["cls"][0]),
                "Rec.model_path": str(rec),
            }
            engine: Any = rapidocr.RapidOCR(params=params)
            # RapidOCR reads a model on first use; the trimmed one is read now, while its
            # temporary file exists (ONNX Runtime keeps the whole model in memory).
            engine._load_rec_model()
        return engine

    def _rec_model(self, bundled: Path, folder: Path) -> Path:
        """The recognition model to load: the bundled one, or its trimmed copy in ``folder``."""
        if not (self.latin_only and onnx_available()):
            return bundled
        try:
            trimmed = trimmed_model(bundled)
        except ValueError:
            return bundled  # a model shaped otherwise than expected still reads, untrimmed
        path = folder / bundled.name
        path.write_bytes(trimmed)
        return path

    async def recognize(
        self, image: Image.Image, *, page: int = 1, detect_orientation: bool = True
    ) -> Page:
        """Read one page image into lines of words (see the module docstring).

        Raises:
            MissingDependencyError: rapidocr or onnxruntime is not installed.
            ProviderError: RapidOCR failed on the image.
            WorkersBusyError: every OCR worker is busy and the pool's queue is full.
        """
        return await self.workers.run(
            self._recognize, image, page, detect_orientation, abandon_on_cancel=True
        )

    def _recognize(self, image: Image.Image, page: int, detect_orientation: bool) -> Page:
        upright = _prepare(image)
        with self._one_page() as alone:
            # Decided once per page: a page that started alone keeps every core until it
            # ends, even if others start meanwhile (the cores are then briefly shared).
            engine = self.engine(self.threads or (usable_cpus() if alone and _idle() else 1))
            try:
                segments, turn = _read(engine, upright, detect_orientation=detect_orientation)
                if turn:
                    upright = upright.rotate(-turn, expand=True, fillcolor=(255, 255, 255))
                    segments, _ = _read(engine, upright, detect_orientation=False)
            except (RuntimeError, ValueError, IndexError) as exc:
                msg = "OCR failed on a page image"
                raise ProviderError(msg, provider="rapidocr") from exc
        lines = group_lines(segments, page=page, width=upright.width, height=upright.height)
        return Page(
            number=page,
            lines=lines,
            source="ocr",
            width=float(upright.width),
            height=float(upright.height),
            rotation=float(turn),
        )

    @contextlib.contextmanager
    def _one_page(self) -> Iterator[bool]:
        """Count a page in flight; yields whether it is the only one this engine reads."""
        with self._lock:
            self._in_flight += 1
            alone = self._in_flight == 1
        try:
            yield alone
        finally:
            with self._lock:
                self._in_flight -= 1


def _idle() -> bool:
    """Whether a core is free for a second ONNX thread right now.

    The instantaneous count of runnable tasks (``/proc/loadavg``'s fourth field, which
    includes the reader) says whether anything else is running; the 1-minute load average
    is only the fallback, because it lags and counts this process's own previous pages:
    after one receipt it reads about 1.0 on an idle 2-core machine, which used to send the
    next receipt to one thread (2.3 s instead of 1.7 s).
    """
    cores = usable_cpus()
    runnable = _runnable()
    if runnable is None:
        try:
            return os.getloadavg()[0] <= cores - 1
        except OSError:  # not available on this platform
            return True
    # Everything runnable besides the reading thread must leave one core free.
    return runnable - 1 <= cores - 2


def _runnable() -> int | None:
    """Tasks runnable on the machine at this instant, the reader included (Linux only)."""
    try:
        with open("/proc/loadavg") as stat:
            return int(stat.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


def _prepare(image: Image.Image) -> Image.Image:
    image = ImageOps.exif_transpose(image) or image
    if image.mode in ("RGBA", "LA", "P"):
        # Transparent areas become white paper rather than black.
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, rgba)
    return image.convert("RGB")


def _read(
    engine: Any, image: Image.Image, *, detect_orientation: bool
) -> tuple[list[Segment], int]:
    """The page's segments, or the turn that makes it upright (then no segments).

    RapidOCR's ``__call__`` split in its steps, so that the orientation is decided after
    detection and line classification and before the costly recognition.
    """
    from rapidocr.main import RapidOCRError

    original = engine.load_img(image)
    resized, record = engine.preprocess_img(original)
    try:
        crops, detected = engine.detect_and_crop(resized, record)
    except RapidOCRError:
        return [], 0  # no text found
    upright_crops, classified = engine.cls_and_rotate(crops)
    if detect_orientation:
        quads = [[(float(x), float(y)) for x, y in q] for q in detected.boxes]
        turn = turn_of(quads, classified.cls_res)
        if turn:
            return [], turn
    try:
        recognised = engine.recognize_txt(upright_crops)
    except RapidOCRError:
        return [], 0
    output = engine.build_final_output(original, detected, classified, recognised, crops, record)
    return _segments(output), 0


def _segments(output: Any) -> list[Segment]:
    texts = getattr(output, "txts", None) or ()
    boxes = getattr(output, "boxes", None)
    scores = getattr(output, "scores", None) or ()
    groups = getattr(output, "word_results", None) or ()
    if boxes is None or not texts:
        return []
    aligned = len(groups) == len(texts) and all(
        "".join(w[0] for w in group).replace(" ", "") == text.replace(" ", "")
        for group, text in zip(groups, texts, strict=True)
    )
    segments = []
    for i, (text, score, box) in enumerate(zip(texts, scores, boxes, strict=True)):
        quad = tuple((float(x), float(y)) for x, y in box)
        if aligned:
            words = tuple(
                (str(t), float(c), _bounds([(float(x), float(y)) for x, y in q]))
                for t, c, q in groups[i]
            )
        else:
            words = _split_evenly(str(text), float(score), _bounds(quad))
        segments.append(Segment(words=words, quad=quad))
    return segments


def _bounds(points: Sequence[tuple[float, float]]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def _split_evenly(
    text: str, score: float, box: tuple[float, float, float, float]
) -> tuple[tuple[str, float, tuple[float, float, float, float]], ...]:
    # Without word boxes, each word gets a share of the line's box by its length.
    parts = text.split()
    total = sum(len(p) for p in parts) + len(parts) - 1
    x0, y0, x1, y1 = box
    step = (x1 - x0) / max(1, total)
    out = []
    start = 0
    for part in parts:
        out.append((part, score, (x0 + start * step, y0, x0 + (start + len(part)) * step, y1)))
        start += len(part) + 1
    return tuple(out)
