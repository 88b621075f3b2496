"""The document model every extractor reads, the Extractor protocol and what it returns."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import attrs

__all__ = [
    "DOCUMENT_TYPES",
    "Document",
    "Extraction",
    "Extractor",
    "FieldProvenance",
    "Line",
    "Page",
    "StyledWord",
    "Usage",
    "Word",
    "WordRun",
    "stand_over",
]

#: The document types the local extractor detects (an LLM may answer these too).
DOCUMENT_TYPES: tuple[str, ...] = (
    "invoice",
    "receipt",
    "purchase_order",
    "contract",
    "letter",
    "resume",
    "bank_statement",
    "id_form",
    "other",
)

BBox = tuple[float, float, float, float]


@attrs.frozen(kw_only=True)
class Word:
    """One word with its position.

    Attributes:
        text: the word as read.
        page: 1-based page number.
        bbox: ``(x0, y0, x1, y1)`` as fractions of the page's width and height, origin at the
            top left.
        confidence: OCR confidence in [0, 1]; 1.0 for words read from a PDF's text layer.
    """

    text: str
    page: int
    bbox: BBox
    confidence: float = 1.0


@attrs.frozen(kw_only=True)
class StyledWord(Word):
    """A word read from a PDF's text layer, with what its font says about it.

    A subclass rather than a field of :class:`Word`, so OCR pages pickled before it existed
    (evaluation caches) still compare and read as before.

    Attributes:
        bold: the word's font is a bold, semibold, black or heavy face (by its name: PDFium's
            weight is often missing or wrong for subset fonts).
    """

    bold: bool = False


class WordRun:
    """What a run of words (a :class:`Line`, a layout segment) says and where it stands."""

    __slots__ = ()
    words: tuple[Word, ...]

    @property
    def text(self) -> str:
        """The words joined by single spaces."""
        return " ".join(w.text for w in self.words)

    @property
    def bbox(self) -> BBox:
        """The union of the words' boxes."""
        return union_bbox(w.bbox for w in self.words)

    @property
    def height(self) -> float:
        """The text height (median word height)."""
        return statistics.median(w.bbox[3] - w.bbox[1] for w in self.words)


@attrs.frozen(kw_only=True)
class Line(WordRun):
    """Words that share a text line, in reading order.

    Attributes:
        words: the words, left to right.
        page: 1-based page number.
    """

    words: tuple[Word, ...]
    page: int

    @property
    def confidence(self) -> float:
        """The lowest word confidence of the line."""
        return min((w.confidence for w in self.words), default=0.0)


@attrs.frozen(kw_only=True)
class Page:
    """One page of a document.

    Attributes:
        number: 1-based page number.
        lines: the text lines in reading order.
        source: ``text`` (read from a PDF text layer) or ``ocr``.
        width, height: the page size (PDF points, or pixels for OCR'd images).
        rotation: degrees the page image was turned before OCR (0 for text layers).
    """

    number: int
    lines: tuple[Line, ...]
    source: str
    width: float
    height: float
    rotation: float = 0.0

    @property
    def words(self) -> tuple[Word, ...]:
        """Every word of the page in reading order."""
        return tuple(w for line in self.lines for w in line.words)

    @property
    def text(self) -> str:
        """The page's text, one line per line."""
        return "\n".join(line.text for line in self.lines)


@attrs.frozen(kw_only=True)
class Document:
    """A decoded, size-checked document and its text with positions.

    Attributes:
        mime_type: the verified type of ``content``.
        content: the file.
        pages: the pages, each read from the text layer or by OCR.
    """

    mime_type: str
    content: bytes = attrs.field(repr=False)
    pages: tuple[Page, ...]

    @property
    def lines(self) -> tuple[Line, ...]:
        """Every line of every page."""
        return tuple(line for page in self.pages for line in page.lines)

    @property
    def text(self) -> str:
        """The whole text; pages are separated by a form feed."""
        return "\n\f".join(page.text for page in self.pages)

    @property
    def ocr_confidence(self) -> float:
        """Mean word confidence weighted by word length; 0.0 for a document without words."""
        total = weight = 0.0
        for page in self.pages:
            for word in page.words:
                total += word.confidence * len(word.text)
                weight += len(word.text)
        return total / weight if weight else 0.0


@attrs.frozen(kw_only=True)
class Usage:
    """Tokens an extractor's model consumed (zeros for the local extractor).

    Attributes:
        input_tokens: prompt tokens as counted by the provider.
        output_tokens: completion tokens as counted by the provider.
    """

    input_tokens: int = 0
    output_tokens: int = 0


@attrs.frozen(kw_only=True)
class FieldProvenance:
    """Where a field's value was read.

    Attributes:
        page: 1-based page number.
        bbox: ``(x0, y0, x1, y1)`` as fractions of the page size, origin top left.
        text: the text the value was read from.
    """

    page: int
    bbox: BBox
    text: str


@attrs.frozen(kw_only=True)
class Extraction:
    """What an extractor found; :func:`renderkit.parse` turns it into a ParseResult.

    Attributes:
        data: the extracted fields (the schema's properties when a schema was given).
        document_type: one of :data:`DOCUMENT_TYPES`.
        field_confidence: per top-level field, a confidence in [0, 1] that the value is right
            (before schema validation); fields absent from ``data`` or null are "not found".
        expected_fields: the fields the extractor looked for (the schema's properties, or the
            fields usual for the document type): the denominator of the coverage.
        warnings: human-readable problems (missing fields, unparseable answers...).
        usage: model tokens consumed.
        provenance: per field path, where its value was read.
    """

    data: dict[str, Any]
    document_type: str = "other"
    field_confidence: dict[str, float] = attrs.field(factory=dict)
    expected_fields: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    usage: Usage = attrs.field(factory=Usage)
    provenance: dict[str, FieldProvenance] = attrs.field(factory=dict)


@runtime_checkable
class Extractor(Protocol):
    """Turns a read document into structured data.

    Implementations: :class:`~renderkit.parsing.LocalExtractor` (offline rules, the default),
    :class:`~renderkit.parsing.OpenAIExtractor`, :class:`~renderkit.parsing.AnthropicExtractor`
    and :class:`~renderkit.testing.FakeExtractor`.
    """

    #: A short name reported in logs (``local``, ``openai``...).
    name: str

    async def extract(
        self,
        document: Document,
        *,
        schema: Mapping[str, Any] | None,
        hints: str | None,
    ) -> Extraction:
        """Extract fields from ``document``.

        ``schema`` is an already-validated JSON Schema (fill exactly its properties) or None
        (detect the type and extract what is there). Validation of the output against the
        schema happens afterwards, in :func:`renderkit.parse`.

        Raises:
            ProviderError: a remote model failed (bad key, unusable answer).
            ProviderUnavailableError: a remote model could not be reached after retries.
        """
        ...

    async def aclose(self) -> None:
        """Release connections; calling it twice is a no-op."""
        ...


def union_bbox(boxes: Any) -> BBox:
    """The smallest box holding every box of ``boxes`` ((0, 0, 0, 0) for none)."""
    x0 = y0 = 1.0
    x1 = y1 = 0.0
    seen = False
    for b in boxes:
        seen = True
        x0, y0, x1, y1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
    return (x0, y0, x1, y1) if seen else (0.0, 0.0, 0.0, 0.0)


# The share of the narrower of two runs' widths they may span together and still stand side
# by side as parts of one printed line (slanted boxes of neighbours overlap a little at their
# ends).
_SHARED_WIDTH = 0.3


def stand_over(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two runs of text spanning ``a`` and ``b`` (left and right edges) stand over
    each other: together they span a third of the narrower one's width. The parts of one
    printed line never do."""
    shared = min(a[1], b[1]) - max(a[0], b[0])
    return shared > _SHARED_WIDTH * min(a[1] - a[0], b[1] - b[0])
