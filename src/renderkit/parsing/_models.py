"""Request and result models for document parsing (POST /api/parse semantics)."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from renderkit.core import validators as v
from renderkit.core.converter import checked
from renderkit.core.errors import InvalidRequestError
from renderkit.parsing._display import parse_result_html, parse_result_repr
from renderkit.parsing._protocol import FieldProvenance, Usage
from renderkit.parsing.markdown import OUTPUTS, MarkdownDocument

__all__ = ["PARSE_MIME_TYPES", "FieldProvenance", "ParseRequest", "ParseResult", "Usage"]

#: Accepted ``mimeType`` values (``image/jpg`` is read as ``image/jpeg``).
PARSE_MIME_TYPES = ("application/pdf", "image/jpeg", "image/png", "image/webp")
_MIME_ALIASES = {
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "application/x-pdf": "application/pdf",
}

# base64 of the largest file any operator would allow; the real limit is ParseLimits.max_bytes.
_MAX_FILE_CHARS = 200_000_000
_MAX_SCHEMA_CHARS = 200_000
# Arrays and objects nested in a schema. jsonschema checks and validates by recursion, a few
# frames per level: 40 levels (20 nested object properties) stay far below Python's limit.
_MAX_SCHEMA_DEPTH = 40
# The smallest character budget: room for a heading, a paragraph and the note saying where
# the Markdown stops.
_MIN_CHARS = 500


def _nesting(value: object) -> int:
    """The deepest nesting of lists and dicts in ``value``, found without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        depth += 1
        if depth > _MAX_SCHEMA_DEPTH:
            return depth  # deep enough to refuse: no need to walk the rest
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


def check_schema_depth(schema: object) -> None:
    """Refuse a schema nested too deeply for recursive JSON Schema code to walk safely.

    Raises:
        InvalidRequestError: on field ``schema``.
    """
    if _nesting(schema) > _MAX_SCHEMA_DEPTH:
        msg = f"must nest arrays and objects at most {_MAX_SCHEMA_DEPTH} levels deep"
        raise InvalidRequestError.single("schema", msg)


def _mime(value: object) -> object:
    if not isinstance(value, str):
        return value
    base = value.split(";", 1)[0].strip().lower()
    return _MIME_ALIASES.get(base, base)


def _schema(inst: object, attribute: attrs.Attribute[Any], value: dict[str, Any] | None) -> None:
    if value is None:
        return
    check_schema_depth(value)  # before json.dumps, which recurses too
    try:
        size = len(json.dumps(value))
    except (TypeError, ValueError):
        raise InvalidRequestError.single("schema", "must be a JSON object") from None
    if size > _MAX_SCHEMA_CHARS:
        msg = f"must be at most {_MAX_SCHEMA_CHARS:,} characters of JSON"
        raise InvalidRequestError.single("schema", msg)


def _not_empty(inst: object, attribute: attrs.Attribute[Any], value: str) -> None:
    if not value:
        raise InvalidRequestError.single("file", "is empty: send the document, base64-encoded")


@checked
@attrs.frozen(kw_only=True)
class ParseRequest:
    """A request to extract structured data from a PDF or an image.

    Attributes:
        file: the document, base64-encoded (standard or URL-safe alphabet; a ``data:`` URL
            prefix is accepted).
        mimeType: ``application/pdf``, ``image/jpeg``, ``image/png`` or ``image/webp``; it must
            match the file's contents (alias mime_type).
        schema: a JSON Schema (an object with ``properties``) of the fields to extract; the
            result's ``data`` then has exactly these properties and is validated against it.
            Without it the document type is detected and its usual fields are extracted.
        hints: plain-language guidance, e.g. ``the total is labelled "Amount payable"`` or
            ``dates are US month-first``.
        include_provenance: also return the page and bounding box each field was read from.
        output: ``fields`` (default) the extracted fields; ``markdown`` the whole document as
            Markdown with the page and box of every block (no field extraction);
            ``fields+markdown`` both.
        max_chars: with Markdown, the most characters of it to return: it then ends at a
            block boundary with a line saying so, and ``truncated`` is true.
    """

    # Named as on the wire, so the generated JSON Schema and every error say "mimeType".
    __rk_aliases__: ClassVar[dict[str, str]] = {"mime_type": "mimeType"}
    # What check_schema() and decode_file() demand that the field types cannot say: a file
    # with content, and a schema of an object with 1-500 properties. (That the file decodes
    # and matches mimeType, and that the schema is valid JSON Schema, no schema can state.)
    __rk_schema_extra__: ClassVar[dict[str, Any]] = {
        "allOf": [
            {
                "properties": {
                    "file": {"type": "string", "minLength": 1},
                    "schema": {
                        "anyOf": [
                            {"type": "null"},
                            {
                                "type": "object",
                                "required": ["properties"],
                                "properties": {
                                    "properties": {
                                        "type": "object",
                                        "minProperties": 1,
                                        "maxProperties": 500,
                                    }
                                },
                            },
                        ]
                    },
                }
            }
        ]
    }

    file: str = attrs.field(
        validator=[v.max_length(_MAX_FILE_CHARS), _not_empty],
        repr=lambda f: f"<{len(f):,} chars>",
    )
    mimeType: str = attrs.field(converter=_mime, validator=v.choice(PARSE_MIME_TYPES))
    schema: dict[str, Any] | None = attrs.field(default=None, validator=_schema)
    hints: str | None = attrs.field(default=None, validator=v.optional(v.max_length(5_000)))
    include_provenance: bool = False
    output: str = attrs.field(default="fields", validator=v.choice(OUTPUTS))
    max_chars: int | None = attrs.field(
        default=None, validator=v.optional(v.in_range(_MIN_CHARS, 50_000_000))
    )

    @property
    def wants_fields(self) -> bool:
        """Whether the fields are extracted (``output`` is not ``markdown`` alone)."""
        return self.output != "markdown"

    @property
    def wants_markdown(self) -> bool:
        """Whether the document comes back as Markdown too."""
        return self.output != "fields"

    @property
    def mime_type(self) -> str:
        """The declared MIME type (``mimeType``)."""
        return self.mimeType

    @classmethod
    def from_bytes(
        cls,
        content: bytes,
        mime_type: str,
        *,
        schema: Mapping[str, Any] | None = None,
        hints: str | None = None,
        include_provenance: bool = False,
        output: str = "fields",
        max_chars: int | None = None,
    ) -> ParseRequest:
        """Build a request from raw file bytes (base64-encodes them).

        Raises:
            InvalidRequestError: ``content`` is not bytes, or another argument is invalid.
        """
        if not isinstance(content, bytes | bytearray | memoryview):
            raise InvalidRequestError.single("file", "must be bytes")
        return cls(
            file=base64.b64encode(content).decode("ascii"),
            mimeType=mime_type,
            # Anything but a mapping is left for the constructor to refuse, naming "schema".
            schema=dict(schema) if isinstance(schema, Mapping) else schema,
            hints=hints,
            include_provenance=include_provenance,
            output=output,
            max_chars=max_chars,
        )


@attrs.frozen(kw_only=True)
class ParseResult:
    """Structured data extracted from a document.

    Confidence follows one rule (:mod:`renderkit.parsing.fill.confidence`): each found field has
    its own, from the extractor (how often its rule is right, times the OCR confidence of the
    words read), capped low when the field fails the schema or an arithmetic or checksum
    check; the overall ``confidence`` is the weakest requested field's (the schema's
    properties, or the document type's usual fields) times the share of them found.

    Attributes:
        data: the extracted fields; exactly the schema's properties when one was given.
        document_type: invoice, receipt, purchase_order, contract, letter, resume,
            bank_statement, id_form or other.
        confidence: in [0, 1]; see above.
        field_confidence: per found field, a confidence in [0, 1] that its value is right.
        warnings: problems, one sentence each (fields not found, schema mismatches...).
        usage: model tokens used (zeros for the local extractor).
        pages: pages read.
        provenance: per field, the page and bounding box it was read from (only with
            include_provenance).
        extractor: which extractor produced the data (local, openai, anthropic...).
        markdown: the document as Markdown with each block's page and box (with ``output``
            ``markdown`` or ``fields+markdown``).
        output: what was asked for; with ``markdown`` alone no fields were extracted, and
            ``data`` is empty.
    """

    data: dict[str, Any]
    document_type: str
    confidence: float
    field_confidence: dict[str, float] = attrs.field(factory=dict)
    warnings: tuple[str, ...] = ()
    usage: Usage = attrs.field(factory=Usage)
    pages: int = 0
    provenance: dict[str, FieldProvenance] | None = None
    extractor: str = "local"
    markdown: MarkdownDocument | None = None
    output: str = "fields"

    def to_dict(self) -> dict[str, Any]:
        """The result as the JSON body of the HTTP API (both interface variants' fields).

        ``output`` decides what it holds: the fields, the Markdown (``markdown``, ``blocks``,
        ``truncated``), or both; ``pages`` and ``warnings`` always.
        """
        if self.output == "markdown":
            head = {"success": True, "warnings": list(self.warnings), "pages": self.pages}
            return {**head, **self._markdown_body()}
        body: dict[str, Any] = {
            "success": True,
            "data": self.data,
            "document_type": self.document_type,
            "confidence": self.confidence,
            "field_confidence": self.field_confidence,
            "warnings": list(self.warnings),
            "usage": attrs.asdict(self.usage),
            "pages": self.pages,
        }
        if self.provenance is not None:
            body["provenance"] = {
                name: {"page": p.page, "bbox": list(p.bbox), "text": p.text}
                for name, p in self.provenance.items()
            }
        return {**body, **self._markdown_body()}

    def _markdown_body(self) -> dict[str, Any]:
        if self.markdown is None:
            return {}
        document = self.markdown.to_dict()
        return {key: document[key] for key in ("markdown", "blocks", "truncated")}

    def __repr__(self) -> str:
        # Short on purpose: data can hold pages of contract text.
        return parse_result_repr(self)

    # Jupyter shows a table of the fields with their confidence through this hook.
    def _repr_html_(self) -> str:
        return parse_result_html(self)
