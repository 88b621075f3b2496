"""Documents as Markdown, every block with the page and box it was read from.

:func:`to_markdown` turns a read :class:`~renderkit.parsing.Document` (a PDF's text layer or
OCR) into a :class:`MarkdownDocument`: headings from font sizes and weights, paragraphs
joined across line breaks and hyphenation, lists, tables, reading order across columns,
running headers and footers dropped, each page marked; ``parse(..., output="markdown")``
returns it. See :mod:`.document` for the stages.
"""

from __future__ import annotations

from renderkit.parsing.markdown._model import (
    BLOCK_KINDS,
    OUTPUTS,
    MarkdownBlock,
    MarkdownDocument,
)
from renderkit.parsing.markdown.document import to_markdown

__all__ = ["BLOCK_KINDS", "OUTPUTS", "MarkdownBlock", "MarkdownDocument", "to_markdown"]
