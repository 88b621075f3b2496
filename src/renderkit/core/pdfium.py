"""The one lock around PDFium, which is not thread-safe.

PDF generation (page counts) and parsing (text layers, page rendering) both call PDFium,
from the event loop and from worker threads; every call holds this lock.
"""

from __future__ import annotations

import threading

__all__ = ["PDFIUM_LOCK"]

PDFIUM_LOCK = threading.Lock()
