"""What the production operations render, speak and parse with, and the pools they run in."""

from __future__ import annotations

import logging

import attrs

from renderkit import RenderkitError
from renderkit.browser import Browser
from renderkit.core.workers import WorkerPool
from renderkit.parsing import Extractor, OcrEngine, ParseLimits, RapidOcr
from renderkit.pdfops import PdfOpsLimits, Signer
from renderkit.speech import KokoroSpeechProvider, SpeechProvider, SpeechRouter
from renderkit_server.settings import Settings

__all__ = ["Engines", "Workers", "warm_speech", "workers"]

logger = logging.getLogger(__name__)


@attrs.frozen(kw_only=True)
class Workers:
    """The server's CPU worker pools, one per kind of work, each sized from the settings.

    Separate pools keep one kind (a burst of scanned PDFs) from queueing the others out;
    PDFium work is serialised by its lock anyway, so ``pdf`` adds little CPU.
    """

    ocr: WorkerPool
    audio: WorkerPool
    pdf: WorkerPool
    #: Previews of produced images for MCP results (decoding a full-page screenshot).
    image: WorkerPool

    def all(self) -> tuple[WorkerPool, ...]:
        """Every pool (for metrics and health)."""
        return (self.ocr, self.audio, self.pdf, self.image)


def workers(settings: Settings) -> Workers:
    """The worker pools the settings describe (``workers`` per pool, ``workers_queue``)."""

    def pool(name: str) -> WorkerPool:
        return WorkerPool(name=name, max_workers=settings.workers, max_queue=settings.workers_queue)

    return Workers(ocr=pool("ocr"), audio=pool("audio"), pdf=pool("pdf"), image=pool("image"))


@attrs.frozen(kw_only=True)
class Engines:
    """The live engines one operation runs on, and the bounds the settings put on them.

    Attributes:
        browser: renders images, PDFs and screenshots (seen as one key per call: see
            :func:`renderkit_server.operations.execute`).
        speech: the speech provider.
        extractor: reads fields out of parsed documents.
        ocr: the OCR engine of every parse (one instance, so its models load once).
        parse_limits: the document bounds of a parse.
        workers: the bounded pools CPU-heavy work runs in (``ocr`` holds ``workers.ocr``).
        pdf_max_pages: the page cap of a rendered PDF or screenshot.
        parse_timeout: seconds a parse may take.
        pdfops_limits: the input bounds of a pdf-ops call (its time: ``parse_timeout``).
        signer: the operator's signer of pdf-ops ``sign``; None: signing is not enabled.
        speech_timeout: seconds a synthesis may take; it also bounds the script's length
            (:func:`renderkit.speech.budget.check_budget`).
    """

    browser: Browser
    speech: SpeechProvider
    extractor: Extractor
    ocr: OcrEngine
    parse_limits: ParseLimits
    workers: Workers
    pdf_max_pages: int
    parse_timeout: float
    speech_timeout: float
    pdfops_limits: PdfOpsLimits = attrs.field(factory=PdfOpsLimits)
    signer: Signer | None = None

    @property
    def ocr_tool(self) -> str:
        """The system tool the OCR engine needs installed (a key of the health ``tools``)."""
        return "rapidocr" if isinstance(self.ocr, RapidOcr) else "tesseract"


async def warm_speech(speech: SpeechProvider) -> None:
    """Warm the default speech engine when it is Kokoro (see
    :meth:`~renderkit.speech.KokoroSpeechProvider.warm_up`), so the first request after a
    start gets its first audio as fast as the next ones; run by the app's lifespan.

    Kokoro only as the default: warming it costs its memory (about 0.9 GB), which a server
    that merely offers its voices beside espeak-ng spends on first use instead. A failure is
    logged; the first request meets it again and answers it.
    """
    engine = speech.default if isinstance(speech, SpeechRouter) else speech
    if not isinstance(engine, KokoroSpeechProvider):
        return
    try:
        await engine.warm_up()
    except RenderkitError:
        logger.warning("warming the Kokoro speech engine failed", exc_info=True)
