"""PDFium, which is not thread-safe, behind one lock that is never waited for on the event loop.

PDF generation (page counts), screenshots (page counts) and parsing (text layers, page
rendering) all call PDFium. Every call holds one lock, and holding it can take a while: a
parse renders a whole page for OCR inside it. Waiting for the lock on the event loop would
freeze every other request for that long, so the lock is private to this module and the only
ways in are :func:`run_pdfium` and :func:`page_count`, which wait for it (and do the work) in
a worker thread; :func:`page_count` counts a small file at once when the lock is free, never
waiting for it on the loop. :func:`first_page_png` is the one blocking entry, for
synchronous display hooks that have no event loop to spare.
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
# documents). Waited for only in worker threads or by first_page_png's caller; page_count
# merely tries it on the loop.
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


#: Files up to this size are counted on the calling thread when PDFium is free: opening one
#: takes PDFium microseconds (a 2-page invoice of 47 KiB: ~20 us), less than the hop to a
#: worker thread and back, which wakes a sleeping thread and then the loop (~50 us back to
#: back, several times that on a loaded machine between renders).
_INLINE_BYTES = 256 * 1024


async def page_count(content: bytes) -> int:
    """The number of pages of a PDF: a small file at once when no other PDFium call is under
    way (the lock is only tried, never waited for, on the loop), else in a worker thread.

    Raises:
        pypdfium2.PdfiumError: ``content`` is not a readable PDF.
    """
    if len(content) <= _INLINE_BYTES and _LOCK.acquire(blocking=False):
        try:
            return _count(content)
        finally:
            _LOCK.release()
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
