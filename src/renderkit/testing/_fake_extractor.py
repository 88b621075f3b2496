"""An in-memory Extractor for tests that should not depend on OCR rules or a model."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from renderkit.parsing import Document, Extraction, Usage

__all__ = ["FakeExtractor", "RecordedExtraction"]


@attrs.frozen(kw_only=True)
class RecordedExtraction:
    """One call the fake received."""

    document: Document
    schema: Mapping[str, Any] | None
    hints: str | None


class FakeExtractor:
    """A real :class:`~renderkit.parsing.Extractor` that answers from a fixed mapping.

    Without a schema it returns ``data`` as given; with one it returns exactly the schema's
    properties, taken from ``data`` (null, with a warning, for the ones ``data`` lacks). Each
    call is recorded in :attr:`calls`; ``handler`` may raise to inject failures (e.g. a
    :class:`~renderkit.ProviderUnavailableError`).

    Args:
        data: the fields to answer with.
        document_type: the type to report.
        usage: the token usage to report.
        handler: called with each :class:`RecordedExtraction` before answering.
    """

    name = "fake"

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        *,
        document_type: str = "other",
        usage: Usage | None = None,
        handler: Callable[[RecordedExtraction], None] | None = None,
    ) -> None:
        self.data = dict(data or {})
        self.document_type = document_type
        self.usage = usage or Usage()
        self.calls: list[RecordedExtraction] = []
        self.closed = False
        self._handler = handler

    async def extract(
        self, document: Document, *, schema: Mapping[str, Any] | None, hints: str | None
    ) -> Extraction:
        """Record the call and answer from :attr:`data`."""
        call = RecordedExtraction(document=document, schema=schema, hints=hints)
        self.calls.append(call)
        if self._handler is not None:
            self._handler(call)
        warnings: list[str] = []
        if schema is not None and isinstance(schema.get("properties"), Mapping):
            names = tuple(schema["properties"])
            data = {name: self.data.get(name) for name in names}
            warnings = [
                f"{name}: not found in the document" for name in names if data[name] is None
            ]
        else:
            names = tuple(self.data)
            data = dict(self.data)
        return Extraction(
            data=data,
            document_type=self.document_type,
            field_confidence={k: 1.0 for k, v in data.items() if v is not None},
            expected_fields=names,
            warnings=tuple(warnings),
            usage=self.usage,
        )

    async def aclose(self) -> None:
        """Mark the fake closed."""
        self.closed = True
