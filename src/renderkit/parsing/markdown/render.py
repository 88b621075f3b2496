"""Writing pieces as Markdown: paragraphs joined across line breaks, lists, tables, a budget."""

from __future__ import annotations

import re
from collections.abc import Sequence

from renderkit.parsing.markdown._model import MarkdownBlock, MarkdownDocument
from renderkit.parsing.markdown.blocks import BULLET
from renderkit.parsing.markdown.pieces import Piece

__all__ = ["block_markdown", "inert", "join_lines", "render"]

# A word broken at a line's end: a letter, a hyphen; the next line goes on in lower case.
_BROKEN = re.compile(r"[^\W\d_]-$")
_SOFT_HYPHEN = "\u00ad"
# Characters Markdown would read as syntax at the start of a paragraph's line.
_INERT = re.compile(r"[\\<>\[\]`]")
_LEADING_SYNTAX = re.compile(r"^(#{1,6}\s|[>|]|[-+*]\s|\d+[.)]\s)")


def join_lines(lines: Sequence[str]) -> str:
    """Lines of one paragraph as one line: words broken by a hyphen at a line's end joined."""
    text = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        broken = _BROKEN.search(text) is not None and line[:1].islower()
        if text.endswith(_SOFT_HYPHEN) or broken:
            text = text[:-1] + line
        else:
            text = f"{text} {line}" if text else line
    return text.replace(_SOFT_HYPHEN, "")


def inert(text: str) -> str:
    """``text`` with the characters that make links, images, raw HTML and code escaped.

    A document's text is untrusted: written as is, ``![](https://host/?q=...)`` or ``<img>``
    would make a client that shows the Markdown fetch a URL the document chose, and a forged
    ``<!-- page 9 -->`` would misplace what follows. Escaped, each shows as the characters it
    is. Words are untouched (``_`` and ``*`` stay, so identifiers read as printed).
    """
    return _INERT.sub(r"\\\g<0>", text)


def _cell(text: str) -> str:
    return inert(text).replace("|", "\\|").replace("\n", " ").strip()


def _table(piece: Piece) -> str:
    header, *body = piece.cells
    out = ["| " + " | ".join(_cell(c) for c in header) + " |"]
    out.append("|" + "|".join(" --- " for _ in header) + "|")
    out.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in body)
    return "\n".join(out)


def _escape(text: str) -> str:
    return "\\" + text if _LEADING_SYNTAX.match(text) else text


def block_markdown(piece: Piece) -> str:
    """The Markdown of one piece."""
    if piece.kind == "table":
        return _table(piece)
    if piece.kind == "heading":
        return "#" * piece.level + " " + inert(join_lines(piece.lines))
    if piece.kind == "list":
        return "\n".join(_item(line.strip()) for line in piece.lines)
    return _escape(inert(join_lines(piece.lines)))


def _item(line: str) -> str:
    """A list item: a bullet drawn as a character becomes ``-``; a number or letter is kept,
    since the text refers to it ("as set out in 6 above"): ``6.`` as an ordered item."""
    marker = BULLET.match(line)
    if marker is None:
        return "- " + inert(line)
    mark = marker.group(0).strip()
    rest = inert(line[marker.end() :])
    if mark[:1].isdigit() and mark.endswith("."):
        return f"{mark} {rest}"
    if mark[:1].isalnum() or mark.startswith("("):
        return f"- {inert(mark)} {rest}"
    return f"- {rest}"


def _page_mark(number: int) -> str:
    return f"<!-- page {number} -->"


def _note(kept: int, total: int, page: int) -> str:
    return (
        f"[Truncated: {kept} of {total} blocks fit the character budget; the rest, from "
        f"page {page} on, is left out.]"
    )


def render(pages: Sequence[Sequence[Piece]], *, max_chars: int | None) -> MarkdownDocument:
    """The pages' pieces, in order, as one Markdown document.

    With ``max_chars``, the Markdown (its closing note included) stops before the first
    block that would not fit, and says so.
    """
    total = sum(len(p) for p in pages)
    parts: list[str] = []
    blocks: list[MarkdownBlock] = []
    length = 0
    # Room kept for the note saying where the Markdown stops.
    reserve = len(_note(total, total, 9999)) + 2 if max_chars is not None else 0
    for number, pieces in enumerate(pages, start=1):
        mark = _page_mark(number)
        for index, piece in enumerate(pieces):
            text = block_markdown(piece)
            head = [mark] if index == 0 else []
            added = sum(len(x) + 2 for x in (*head, text))
            if max_chars is not None and length + added > max_chars - reserve:
                parts.append(_note(len(blocks), total, piece.page))
                return MarkdownDocument(
                    markdown="\n\n".join(parts) + "\n",
                    blocks=tuple(blocks),
                    pages=len(pages),
                    truncated=True,
                )
            parts.extend((*head, text))
            length += added
            blocks.append(
                MarkdownBlock(page=piece.page, bbox=piece.bbox, kind=piece.kind, text=text)
            )
        if not pieces:
            parts.append(mark)
            length += len(mark) + 2
    return MarkdownDocument(
        markdown="\n\n".join(parts) + "\n", blocks=tuple(blocks), pages=len(pages)
    )
