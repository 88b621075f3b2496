"""Receipt text rows as OCR lines, for the receipt rules' tests (synthetic rows only)."""

from __future__ import annotations

from collections.abc import Sequence

from renderkit.parsing._protocol import Line, Word
from renderkit.parsing.extract.receipt import receipt_fields


def page_lines(rows: Sequence[str | tuple[str, float]]) -> list[Line]:
    """Rows spread down the whole page (row ``i`` of ``n`` at ``i / (n + 1)``), words 0.1 apart;
    a row given as ``(text, confidence)`` has that OCR confidence, else 0.95."""
    out = []
    for index, row in enumerate(rows):
        text, conf = (row, 0.95) if isinstance(row, str) else row
        y = index / (len(rows) + 1)
        words = tuple(
            Word(text=w, page=1, bbox=(0.1 * i, y, 0.1 * i + 0.08, y + 0.02), confidence=conf)
            for i, w in enumerate(text.split())
        )
        out.append(Line(words=words, page=1))
    return out


def header_lines(rows: Sequence[str], *, gap: float = 0.04, height: float = 0.02) -> list[Line]:
    """Rows stacked ``gap`` apart from near the top of the page, as a receipt's header prints
    them, each ``height`` tall."""
    return [
        Line(
            words=tuple(
                Word(
                    text=w,
                    page=1,
                    bbox=(
                        0.1 + 0.06 * i,
                        0.05 + gap * r,
                        0.15 + 0.06 * i,
                        0.05 + height + gap * r,
                    ),
                    confidence=0.95,
                )
                for i, w in enumerate(text.split())
            ),
            page=1,
        )
        for r, text in enumerate(rows)
    ]


def values(lines: Sequence[Line]) -> dict[str, object]:
    """The receipt fields' values read from ``lines`` (day-first dates)."""
    return {k: v.value for k, v in receipt_fields(list(lines), day_first=True).items()}
