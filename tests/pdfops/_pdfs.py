"""Reading produced PDFs back for the pdfops tests (pypdfium2 text, pikepdf structure)."""

from __future__ import annotations

import base64
import io

import pikepdf
import pypdfium2

__all__ = ["b64", "page_texts", "rotations"]


def b64(content: bytes) -> str:
    return base64.b64encode(content).decode()


def page_texts(content: bytes, password: str | None = None) -> list[str]:
    document = pypdfium2.PdfDocument(content, password=password)
    try:
        return [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()


def rotations(content: bytes) -> list[int]:
    with pikepdf.open(io.BytesIO(content)) as pdf:
        return [int(page.obj.get("/Rotate", 0)) for page in pdf.pages]
