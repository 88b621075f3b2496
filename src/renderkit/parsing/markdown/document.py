"""A read document as Markdown: the stages in the order they run, page by page.

1. the layout model (:mod:`renderkit.parsing.layout`) groups the page's words into rows,
   segments and blocks, whatever read them (a text layer or OCR);
2. :mod:`.tables` takes the runs of rows that line up in columns;
3. :mod:`.blocks` cuts the other blocks into paragraphs and lists where the style changes;
4. :mod:`.order` puts them in reading order, column after column, and a paragraph going on
   in the next column is joined to its start;

then, over the whole document, :mod:`.furniture` drops running headers and footers,
:mod:`.headings` marks headings by size and weight, and :mod:`.render` writes the Markdown
within the character budget.
"""

from __future__ import annotations

import attrs

from renderkit.parsing._protocol import Document, Page, union_bbox
from renderkit.parsing.layout.model import build_layout
from renderkit.parsing.markdown._model import MarkdownDocument
from renderkit.parsing.markdown.blocks import text_pieces
from renderkit.parsing.markdown.furniture import drop_furniture
from renderkit.parsing.markdown.headings import mark_headings
from renderkit.parsing.markdown.order import reading_order
from renderkit.parsing.markdown.pieces import Piece
from renderkit.parsing.markdown.render import render
from renderkit.parsing.markdown.tables import find_tables

__all__ = ["page_pieces", "to_markdown"]


def _continued(pieces: list[Piece]) -> list[Piece]:
    """Paragraphs that go on in the next column made one: the first ends mid-sentence and
    the next starts in lower case."""
    out: list[Piece] = []
    for piece in pieces:
        last = out[-1] if out else None
        if (
            last is not None
            and last.kind == piece.kind == "paragraph"
            and last.lines
            and piece.lines
            and not last.lines[-1].rstrip().endswith((".", "!", "?", ":"))
            and piece.lines[0][:1].islower()
            and abs(last.size - piece.size) <= 0.1 * max(last.size, piece.size)
        ):
            out[-1] = attrs.evolve(
                last, lines=last.lines + piece.lines, bbox=union_bbox((last.bbox, piece.bbox))
            )
            continue
        out.append(piece)
    return out


def page_pieces(page: Page) -> list[Piece]:
    """One page's tables, paragraphs and lists in reading order."""
    layout = build_layout(page)
    ocr = page.source == "ocr"
    aspect = page.height / page.width if page.width and page.height else 1.0
    tables = find_tables(layout, ocr=ocr)
    taken = frozenset(s for t in tables for s in t.segments)
    pieces = [t.piece for t in tables] + text_pieces(layout, taken=taken, aspect=aspect, ocr=ocr)
    return _continued(reading_order(pieces))


def to_markdown(document: Document, *, max_chars: int | None = None) -> MarkdownDocument:
    """``document`` as Markdown, with the page and box of every block.

    Args:
        document: a read document (:func:`~renderkit.parsing.read_document`).
        max_chars: the most characters of Markdown to return; it then ends at a block
            boundary with a line saying so, and ``truncated`` is true. None: no limit.
    """
    pages = drop_furniture([page_pieces(page) for page in document.pages])
    flat = mark_headings([p for page in pages for p in page])
    # mark_headings keeps the order, so the flat list is cut back into the same pages.
    out: list[list[Piece]] = []
    at = 0
    for page in pages:
        out.append(flat[at : at + len(page)])
        at += len(page)
    return render(out, max_chars=max_chars)
