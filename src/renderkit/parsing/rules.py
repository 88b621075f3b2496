"""The local extractor: offline rules over the document's words, no model, no downloads.

It reads a document the way the tree is laid out: the type is decided once
(:mod:`~renderkit.parsing.extract.classify`), the rules of that type extract what they can
(:mod:`~renderkit.parsing.extract`), and the found values fill the schema's properties, or the
type's usual fields without a schema (:mod:`~renderkit.parsing.fill.fields`). Given an
``arbiter``, a name the rules are unsure of goes to a language model between the last two steps
(:mod:`~renderkit.parsing.arbiter`).
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Any

import anyio.to_thread
import attrs

from renderkit.parsing._protocol import Document, Extraction
from renderkit.parsing.arbiter.ask import DEFAULT_THRESHOLD, DEFAULT_TIMEOUT, arbitrate
from renderkit.parsing.arbiter.base import Arbiter
from renderkit.parsing.extract.classify import classify
from renderkit.parsing.extract.documents import Extracted, extract_fields
from renderkit.parsing.fill.calibration import load_calibration
from renderkit.parsing.fill.fields import fill_schema, type_fields
from renderkit.parsing.rank.switches import DEFAULT_RANKERS, Rankers

__all__ = ["LocalExtractor"]


@functools.cache
def _month_first_hint() -> re.Pattern[str]:
    """What hints say to ask for month-first dates (``lexicons/hints.toml``)."""
    path = resources.files("renderkit.parsing.lexicons") / "hints.toml"
    return re.compile(tomllib.loads(path.read_text(encoding="utf-8"))["month_first"], re.I)


def _property_words(schema: Mapping[str, Any] | None) -> list[str]:
    """A schema's property names as words ("invoice_number", "dueDate" -> "invoice number",
    "due date")."""
    properties = schema.get("properties") if schema is not None else None
    if not isinstance(properties, Mapping):
        return []
    return [
        re.sub(r"(?<=[a-z])(?=[A-Z])", " ", str(name)).replace("_", " ").replace("-", " ").lower()
        for name in properties
    ]


def _day_first(hints: str | None) -> bool:
    # Day first unless the hints ask for month first ("US dates", "mm/dd").
    return not (hints and _month_first_hint().search(hints))


class LocalExtractor:
    """The offline :class:`~renderkit.parsing.Extractor`: keyword type detection and
    layout/label rules for receipts, invoices and contracts, plus label matching for any schema.

    Args:
        day_first: read ambiguous numeric dates (03/04/2024) day first. None (default) means
            day first unless the hints ask for month first (``"US dates"``, ``"mm/dd"``).
        arbiter: a language model asked to choose between the candidates of a name field the
            rules are unsure of (:mod:`~renderkit.parsing.arbiter`); None (default) asks
            nothing and sends nothing anywhere. It is closed with the extractor.
        arbiter_threshold: name fields whose confidence is at or above it are not asked about.
        arbiter_timeout: seconds the arbiter may take per document, retries included; past
            it the rules' choice stays (with a warning).
        rankers: which fields the learned rankers (:mod:`~renderkit.parsing.rank`) choose,
            their calibrated probability as the confidence: by default those that passed the
            dev set's decision rule (an invoice's total, issue date and issuer, a contract's
            term; docs/parsing.md, "Learned ranking"); :data:`~renderkit.parsing.RULES_ONLY`
            keeps the rules' choices.
        calibrated: map each field's confidence through the calibration fitted on synthetic
            documents (:mod:`~renderkit.parsing.fill.calibration`); False reports the rules'
            raw figures. Values are the same either way.
    """

    name = "local"

    def __init__(
        self,
        *,
        day_first: bool | None = None,
        arbiter: Arbiter | None = None,
        arbiter_threshold: float = DEFAULT_THRESHOLD,
        arbiter_timeout: float = DEFAULT_TIMEOUT,
        rankers: Rankers = DEFAULT_RANKERS,
        calibrated: bool = True,
    ) -> None:
        self.day_first = day_first
        self.arbiter = arbiter
        self.arbiter_threshold = arbiter_threshold
        self.arbiter_timeout = arbiter_timeout
        self.rankers = rankers
        self.calibrated = calibrated

    async def extract(
        self, document: Document, *, schema: Mapping[str, Any] | None, hints: str | None
    ) -> Extraction:
        """Extract fields; CPU work runs in a worker thread. Never raises for content, nor for
        the arbiter's failures (they become warnings)."""
        if self.arbiter is None:
            return await anyio.to_thread.run_sync(self.extract_sync, document, schema, hints)
        kind, extracted = await anyio.to_thread.run_sync(self._found, document, schema, hints)
        arbitration = await arbitrate(
            extracted.fields,
            document,
            self.arbiter,
            kind=kind,
            threshold=self.arbiter_threshold,
            timeout=self.arbiter_timeout,
        )
        extracted = attrs.evolve(
            extracted,
            fields=arbitration.fields,
            warnings=(*extracted.warnings, *arbitration.warnings),
        )
        extraction = await anyio.to_thread.run_sync(
            self._fill, kind, extracted, document, schema, hints
        )
        return attrs.evolve(extraction, usage=arbitration.usage)

    async def aclose(self) -> None:
        """Close the arbiter, if any; nothing else to release."""
        if self.arbiter is not None:
            await self.arbiter.aclose()

    def extract_sync(
        self, document: Document, schema: Mapping[str, Any] | None, hints: str | None
    ) -> Extraction:
        """The same as :meth:`extract` without the arbiter, blocking."""
        kind, extracted = self._found(document, schema, hints)
        return self._fill(kind, extracted, document, schema, hints)

    def _found(
        self, document: Document, schema: Mapping[str, Any] | None, hints: str | None
    ) -> tuple[str, Extracted]:
        # What the caller asks for says what they hold: a schema asking for an invoice number,
        # a due date and an IBAN counts toward an invoice as hints do, where the page alone
        # reads like a till receipt (a rounding line, a deposit, "Total" three times).
        asked = " ".join(_property_words(schema))
        cues = "\n".join(t for t in (hints, asked) if t)
        kind, _ = classify(document.text + ("\n" + cues if cues else ""))
        day_first = self.day_first if self.day_first is not None else _day_first(hints)
        return kind, extract_fields(
            kind,
            document,
            day_first=day_first,
            rankers=self.rankers,
        )

    def _fill(
        self,
        kind: str,
        extracted: Extracted,
        document: Document,
        schema: Mapping[str, Any] | None,
        hints: str | None,
    ) -> Extraction:
        lines = list(document.lines)
        if schema is not None and isinstance(schema.get("properties"), Mapping):
            extraction = fill_schema(kind, extracted.fields, lines, schema, hints)
        else:
            extraction = type_fields(kind, extracted.fields, lines)
        if extracted.warnings:
            extraction = attrs.evolve(
                extraction, warnings=(*extraction.warnings, *extracted.warnings)
            )
        if self.calibrated:
            calibrated = load_calibration().apply(kind, extraction.field_confidence)
            extraction = attrs.evolve(extraction, field_confidence=calibrated)
        return extraction
