"""The text of a document's headings (``h1``-``h6``), in document order, as a reader hears it.

Chromium titles the outline of a tagged PDF with each heading's text runs in visual order,
so a right-to-left heading comes out with its words reversed; the finishing puts them back
in the order this module reads from the HTML (see :mod:`renderkit.pdf._pdfa`).
"""

from __future__ import annotations

from html.parser import HTMLParser

__all__ = ["heading_texts"]

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"})


class _HeadingReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._heading: str | None = None
        self._text: list[str] = []
        # The element hidden from assistive technology (aria-hidden) and how deep in it we are.
        self._hidden: str | None = None
        self._hidden_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._heading is None:
            if tag in _HEADINGS:
                self._heading, self._text = tag, []
            return
        if tag in _VOID:
            return
        if self._hidden is not None:
            self._hidden_depth += tag == self._hidden
        elif dict(attrs).get("aria-hidden") == "true":
            self._hidden, self._hidden_depth = tag, 1

    def handle_endtag(self, tag: str) -> None:
        if self._hidden is not None and tag == self._hidden:
            self._hidden_depth -= 1
            if self._hidden_depth == 0:
                self._hidden = None
        elif tag == self._heading:
            self.found.append(" ".join("".join(self._text).split()))
            self._heading, self._hidden = None, None

    def handle_data(self, data: str) -> None:
        if self._heading is not None and self._hidden is None:
            self._text.append(data)


def heading_texts(html: str) -> list[str]:
    """The whitespace-normalised text of every ``h1``-``h6`` in ``html``, in document order,
    without what ``aria-hidden="true"`` hides."""
    reader = _HeadingReader()
    reader.feed(html)
    reader.close()
    return reader.found
