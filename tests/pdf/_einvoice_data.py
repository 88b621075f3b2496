"""The sample Factur-X request (renderkit.demo's, the one the e-invoice guide shows) and
helpers."""

from __future__ import annotations

import copy
import io
from typing import Any

from pypdf import PdfWriter

from renderkit.demo import EINVOICE_SAMPLE

SAMPLE: dict[str, Any] = EINVOICE_SAMPLE


def sample(**changes: Any) -> dict[str, Any]:
    """A deep copy of SAMPLE with top-level ``changes``."""
    request = copy.deepcopy(SAMPLE)
    request.update(changes)
    return request


def blank_pdf() -> bytes:
    """A one-page PDF without text (the XML carries everything)."""
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def pdf_carrying(name: str, xml: bytes) -> bytes:
    """A blank PDF with ``xml`` attached as ``name``."""
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    writer.add_attachment(name, xml)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
