"""What reading a document as Markdown returns: the text, and where each block stands."""

from __future__ import annotations

from typing import Any

import attrs

from renderkit.core.converter import unstructure
from renderkit.parsing._protocol import BBox

__all__ = ["BLOCK_KINDS", "OUTPUTS", "MarkdownBlock", "MarkdownDocument"]

#: What a block of the Markdown is.
BLOCK_KINDS: tuple[str, ...] = ("heading", "paragraph", "list", "table")

#: What ``parse`` answers: the fields, the document as Markdown, or both.
OUTPUTS: tuple[str, ...] = ("fields", "markdown", "fields+markdown")


@attrs.frozen(kw_only=True)
class MarkdownBlock:
    """One block of the Markdown and where it was read, so an answer can cite its source.

    Attributes:
        page: 1-based page number.
        bbox: ``(x0, y0, x1, y1)`` as fractions of the page's width and height, origin at the
            top left.
        kind: one of :data:`BLOCK_KINDS`.
        text: the block's Markdown, exactly as it appears in the document's Markdown.
    """

    page: int
    bbox: BBox
    kind: str
    text: str


@attrs.frozen(kw_only=True)
class MarkdownDocument:
    """A whole document as Markdown, with the provenance of each block.

    Attributes:
        markdown: the document: headings, paragraphs, lists and tables in reading order,
            each page opened by a ``<!-- page N -->`` comment.
        blocks: the blocks the Markdown is made of, in the same order.
        pages: pages read.
        truncated: the character budget ended the Markdown early, at a block boundary (a
            last line then says so).
    """

    markdown: str
    blocks: tuple[MarkdownBlock, ...]
    pages: int
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The document as JSON-ready data (bounding boxes as lists)."""
        data: dict[str, Any] = unstructure(self)
        data["blocks"] = [{**b, "bbox": list(b["bbox"])} for b in data["blocks"]]
        return data
