"""When the arbiter is asked, and what its answer changes.

After the rules have chosen, a name field (:data:`NAME_FIELDS`) of a document type it names goes
to the arbiter when

- its confidence, as the result would report it (the rule's times the OCR factor of its line),
  is below the threshold (default :data:`DEFAULT_THRESHOLD`, the band that must be right 97%
  of the time), and
- the rules weighed at least two distinct values for it (the chosen one and its
  :attr:`~renderkit.parsing.extract.found.Found.alternatives`).

The arbiter sees the top of the document and those values, numbered, best first. A value it
chooses replaces the rules' (with the lines it was read from, for provenance) and reports the
confidence :data:`ARBITER_CONFIDENCE`; a warning says the arbiter chose it. Anything else
keeps the rules' value: "none", an answer that is not one of the numbers, a provider error or
no answer within the timeout each add a warning, never an error. The tokens every call cost
are the result's usage.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import anyio
import attrs

from renderkit.core.errors import RenderkitError
from renderkit.parsing._protocol import Document, Usage
from renderkit.parsing.arbiter.base import MAX_CANDIDATES, Arbiter, Question, top_rows
from renderkit.parsing.extract.found import Found
from renderkit.parsing.fill.confidence import ocr_factor

__all__ = [
    "ARBITER_CONFIDENCE",
    "DEFAULT_THRESHOLD",
    "DEFAULT_TIMEOUT",
    "NAME_FIELDS",
    "Arbitration",
    "arbitrate",
    "candidates",
]

#: The fields the arbiter may be asked about: what each is (for the model), and the document
#: types where it is that (a contract's parties are a list, not one of a few candidates).
NAME_FIELDS: Mapping[str, tuple[str, frozenset[str]]] = {
    "company": (
        "the name of the company or shop that issued the document: the seller, not the buyer",
        frozenset({"receipt", "invoice", "purchase_order"}),
    ),
}

#: Fields below this confidence are asked about.
DEFAULT_THRESHOLD = 0.8

#: Seconds the arbiter may take for one document, retries included.
DEFAULT_TIMEOUT = 5.0

#: The confidence of a value the arbiter chose (before the OCR factor of its line). Below the
#: 0.8 band on purpose: how often a model picks right depends on the model, and none could be
#: measured here. A value with this confidence and the "chosen by the arbiter" warning came
#: from the model; the rules' own confidences for names are 0.85, 0.7, 0.55 and 0.4.
ARBITER_CONFIDENCE = 0.75


@attrs.frozen(kw_only=True)
class Arbitration:
    """What asking the arbiter changed.

    Attributes:
        fields: the found fields, with the arbiter's choices in place.
        warnings: per question, what happened when it was not a plain choice, or that it was.
        usage: the tokens every call cost, summed.
        asked: the fields the arbiter was asked about.
    """

    fields: dict[str, Found]
    warnings: tuple[str, ...] = ()
    usage: Usage = attrs.field(factory=Usage)
    asked: tuple[str, ...] = ()


def _key(value: object) -> str:
    return re.sub(r"\s+", " ", str(value)).strip().casefold()


def candidates(found: Found) -> list[Found]:
    """The chosen value and its alternatives, each distinct value once, at most
    :data:`MAX_CANDIDATES`."""
    out: list[Found] = []
    seen: set[str] = set()
    for item in (found, *found.alternatives):
        key = _key(item.value)
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out[:MAX_CANDIDATES]


def _confidence(found: Found) -> float:
    return found.confidence * ocr_factor(w.confidence for line in found.lines for w in line.words)


async def arbitrate(
    fields: Mapping[str, Found],
    document: Document,
    arbiter: Arbiter,
    *,
    kind: str,
    threshold: float = DEFAULT_THRESHOLD,
    timeout: float = DEFAULT_TIMEOUT,
) -> Arbitration:
    """Ask ``arbiter`` about each unsure name field of ``fields``; never raises for its failures.

    Args:
        fields: what the rules found, per field.
        document: the document (its top rows are the question's context).
        arbiter: the model to ask.
        kind: the document's type (:data:`~renderkit.parsing.DOCUMENT_TYPES`).
        threshold: fields whose confidence is at or above it are not asked about.
        timeout: seconds every question of this document may take together.
    """
    out = dict(fields)
    warnings: list[str] = []
    asked: list[str] = []
    inputs = outputs = 0
    context: str | None = None
    with anyio.move_on_after(timeout) as scope:
        for name, (description, kinds) in NAME_FIELDS.items():
            found = out.get(name)
            if kind not in kinds or found is None or _confidence(found) >= threshold:
                continue
            options = candidates(found)
            if len(options) < 2:
                continue
            if context is None:
                context = top_rows(document)
            question = Question(
                field=name,
                description=description,
                context=context,
                candidates=tuple(str(o.value) for o in options),
            )
            asked.append(name)
            try:
                choice = await arbiter.choose(question)
            except RenderkitError as exc:
                warnings.append(f"{name}: the arbiter failed ({exc}); the rules' choice stays")
                continue
            inputs += choice.usage.input_tokens
            outputs += choice.usage.output_tokens
            count = len(options)
            if choice.index is None or not 0 <= choice.index < count:
                said = "none of them" if choice.answer == "none" else repr(choice.answer)
                warnings.append(
                    f"{name}: the arbiter answered {said} for {count} candidates; "
                    "the rules' choice stays"
                )
                continue
            picked = options[choice.index]
            out[name] = Found(value=picked.value, confidence=ARBITER_CONFIDENCE, lines=picked.lines)
            warnings.append(
                f"{name}: chosen by the arbiter ({arbiter.name}), candidate "
                f"{choice.index + 1} of {count}"
            )
    if scope.cancelled_caught:
        warnings.append(
            f"{asked[-1] if asked else 'arbiter'}: the arbiter did not answer within "
            f"{timeout:g} s; the rules' choice stays"
        )
    return Arbitration(
        fields=out,
        warnings=tuple(warnings),
        usage=Usage(input_tokens=inputs, output_tokens=outputs),
        asked=tuple(asked),
    )
