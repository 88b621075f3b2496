"""PDFium, which is not thread-safe, behind one lock that is never taken on the event loop.

PDF generation (page counts), screenshots (page counts) and parsing (text layers, page
rendering) all call PDFium. Every call holds one lock, and holding it can take a while: a
parse renders a whole page for OCR inside it. Waiting for the lock on the event loop would
freeze every other request for that long, so the lock is private to this module and the only
ways in are :func:`run_pdfium` and :func:`page_count`, which wait for it (and do the work) in
a worker thread. :func:`first_page_png` is the one blocking entry, for synchronous display
hooks that have no event loop to spare.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from typing import TypeVar, TypeVarTuple

import anyio.to_thread
import pypdfium2

from renderkit.core.workers import WorkerPool

__all__ = ["first_page_png", "page_count", "run_pdfium"]

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

# Serialises every PDFium call across threads (PDFium is not thread-safe, even across
# documents). Only ever acquired in worker threads, or by first_page_png's caller.
_LOCK = threading.Lock()


async def run_pdfium(fn: Callable[[*Ts], T], *args: *Ts, workers: WorkerPool | None = None) -> T:
    """Run ``fn(*args)`` in a worker thread, holding the PDFium lock for the whole call.

    Group the PDFium work of one step (open a document and read a page, render and close)
    into one ``fn``, and keep work that needs no PDFium (OCR) outside it, so other callers
    wait as little as possible.

    With ``workers``, the call first takes one of the pool's workers, so callers beyond its
    queue are refused at once instead of each parking a thread on the lock.

    Raises:
        WorkersBusyError: ``workers`` is given, all busy, and its queue is full.
    """

    def locked() -> T:
        with _LOCK:
            return fn(*args)

    if workers is not None:
        return await workers.run(locked)
    return await anyio.to_thread.run_sync(locked)


def _count(content: bytes) -> int:
    document = pypdfium2.PdfDocument(content)
    try:
        return len(document)
    finally:
        document.close()


async def page_count(content: bytes) -> int:
    """The number of pages of a PDF, read in a worker thread.

    Raises:
        pypdfium2.PdfiumError: ``content`` is not a readable PDF.
    """
    return await run_pdfium(_count, content)


def first_page_png(content: bytes, *, scale: float = 1.0) -> bytes:
    """The first page of a PDF as a PNG, computed on the calling thread.

    This blocks while another thread holds the PDFium lock (a parse mid-page, say): it is for
    synchronous hooks such as Jupyter's ``_repr_png_``, never for code on an event loop,
    which awaits :func:`run_pdfium` instead.

    Raises:
        pypdfium2.PdfiumError: ``content`` is not a readable PDF.
    """
    with _LOCK:
        document = pypdfium2.PdfDocument(content)
        try:
            image = document[0].render(scale=scale).to_pil()
        finally:
            document.close()
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
