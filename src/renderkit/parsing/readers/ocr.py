"""The OCR protocol and the choice of engine by name.

:func:`ocr_engine` picks the engine: :class:`~renderkit.parsing.RapidOcr` (PP-OCR models, in
:mod:`~renderkit.parsing.readers.rapidocr`) when rapidocr and onnxruntime are installed, since it
reads receipts and scans markedly better (see docs/parsing.md), and
:class:`~renderkit.parsing.TesseractOcr` (:mod:`~renderkit.parsing.readers.tesseract`) otherwise.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PIL import Image

from renderkit.core.errors import ConfigurationError
from renderkit.core.workers import WorkerPool
from renderkit.parsing._protocol import Page
from renderkit.parsing.readers.rapidocr import RapidOcr, rapidocr_available
from renderkit.parsing.readers.tesseract import TesseractOcr

__all__ = ["OCR_ENGINES", "OcrEngine", "ocr_engine"]

#: The engines :func:`ocr_engine` knows by name.
OCR_ENGINES: tuple[str, ...] = ("rapidocr", "tesseract")


@runtime_checkable
class OcrEngine(Protocol):
    """Reads the words of one page image."""

    async def recognize(self, image: Image.Image, *, page: int, detect_orientation: bool) -> Page:
        """Return the page's lines of words (boxes normalised to the image size).

        Raises:
            MissingDependencyError: the OCR program is not installed.
            ProviderError: the OCR program failed on this image.
            WorkersBusyError: the engine's worker pool is full.
        """
        ...


def ocr_engine(name: str | None = None, *, workers: WorkerPool | None = None) -> OcrEngine:
    """The OCR engine called ``name`` (one of :data:`OCR_ENGINES`), or the default one.

    The default is RapidOCR when ``rapidocr`` and ``onnxruntime`` are installed (the ``ocr``
    extra), else Tesseract. A named engine is returned even if it is missing: its first
    page then raises :class:`~renderkit.core.errors.MissingDependencyError` with a hint.
    ``workers`` bounds the pages read at once (the engine's own pool when None).

    Raises:
        ConfigurationError: ``name`` is not an engine renderkit knows.
    """
    if name is None:
        name = "rapidocr" if rapidocr_available() else "tesseract"
    if name == "rapidocr":
        return RapidOcr(workers=workers)
    if name == "tesseract":
        return TesseractOcr(workers=workers)
    msg = f"unknown OCR engine {name!r}; choose one of {', '.join(OCR_ENGINES)}"
    raise ConfigurationError(msg)
