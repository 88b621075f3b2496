"""Synthetic pages for the layout tests: words with boxes placed where a test says."""

from __future__ import annotations

from collections.abc import Sequence

from renderkit.parsing._protocol import Document, Line, Page, Word

#: Text height as a fraction of the page height; a character is 0.009 of the page width wide.
HEIGHT = 0.012
_CHAR = 0.009
_SPACE = 0.006


def page(
    cells: Sequence[tuple[float, float, str]], *, width: float = 600, height: float = 800
) -> Page:
    """A page with each ``(x, y, text)`` printed from ``(x, y)``, words a space apart."""
    lines = tuple(
        Line(words=tuple(sized_words(x, y, text, HEIGHT)), page=1) for x, y, text in cells
    )
    return Page(number=1, lines=lines, source="text", width=width, height=height)


def sized_words(x: float, y: float, text: str, height: float) -> list[Word]:
    """``text``'s words from ``(x, y)``, in type ``height`` tall (a page fraction); a letter is
    0.75 of the height wide, as in :func:`page`."""
    out = []
    scale = height / HEIGHT
    for part in text.split():
        width = _CHAR * len(part) * scale
        out.append(Word(text=part, page=1, bbox=(x, y, x + width, y + height)))
        x += width + _SPACE * scale
    return out


def sized_document(cells: Sequence[tuple[float, float, str, float]]) -> Document:
    """A one-page PDF document; each cell ``(x, y, text, height)`` is one printed line."""
    lines = tuple(Line(words=tuple(sized_words(*cell)), page=1) for cell in cells)
    page = Page(number=1, lines=lines, source="text", width=600, height=800)
    return Document(mime_type="application/pdf", content=b"", pages=(page,))
