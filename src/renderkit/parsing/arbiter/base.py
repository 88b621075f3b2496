"""The arbiter protocol: a question (a field, the top of the document, numbered candidates) in,
the number of one candidate (or none) out.

The question is small on purpose: the first rows of the document (at most
:data:`CONTEXT_ROWS` lines and :data:`CONTEXT_CHARS` characters, a few hundred tokens) and at
most :data:`MAX_CANDIDATES` candidates of at most :data:`CANDIDATE_CHARS` characters each, so
a small local model answers in about a second. The answer is read strictly
(:func:`read_answer`): one of the offered numbers, ``0`` or ``none``; anything else is ignored,
so no text the model writes can reach a field.
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

import attrs

from renderkit.parsing._protocol import Document, Usage

__all__ = [
    "CANDIDATE_CHARS",
    "CONTEXT_CHARS",
    "CONTEXT_ROWS",
    "MAX_CANDIDATES",
    "SYSTEM_PROMPT",
    "Arbiter",
    "Choice",
    "Question",
    "declined",
    "prompt",
    "read_answer",
    "top_rows",
]

#: Lines of the first page shown to the model.
CONTEXT_ROWS = 15
#: Characters of those lines shown at most (about 400 tokens of Latin text).
CONTEXT_CHARS = 1_500
#: Candidates offered at most (one digit each: the answer is one token).
MAX_CANDIDATES = 6
#: Characters of one candidate shown at most.
CANDIDATE_CHARS = 80

#: The system prompt of every provider: short, because every token of it is paid per call.
SYSTEM_PROMPT = (
    "You pick which candidate, read from a document, is the field asked for. "
    "Answer with the candidate's number only, or 0 if none of them is."
)


def top_rows(document: Document, *, rows: int = CONTEXT_ROWS, chars: int = CONTEXT_CHARS) -> str:
    """The first ``rows`` lines of the first page, one a line, cut to ``chars`` characters."""
    lines = document.pages[0].lines[:rows] if document.pages else ()
    text = "\n".join(line.text for line in lines)
    return text[:chars]


@attrs.frozen(kw_only=True)
class Question:
    """What the arbiter is asked.

    Attributes:
        field: the field's name (``company``).
        description: what the field is, in a few words, for the model.
        context: the top of the document (:func:`top_rows`).
        candidates: the values to choose from, best first by the rules; the model sees them
            numbered from 1.
    """

    field: str
    description: str
    context: str
    candidates: tuple[str, ...]


@attrs.frozen(kw_only=True)
class Choice:
    """What the arbiter answered.

    Attributes:
        index: the chosen candidate (0-based into :attr:`Question.candidates`), or None when
            the model chose none of them or answered something that is not one of the offered
            numbers.
        answer: what the model answered, cut to 16 characters (for the warning that says why
            an answer was not used; never a field's value).
        usage: the tokens the call cost, as the provider counted them.
    """

    index: int | None
    answer: str = ""
    usage: Usage = attrs.field(factory=Usage)


@runtime_checkable
class Arbiter(Protocol):
    """Chooses one of a few candidates for a field the rules are unsure of.

    Implementations: :class:`~renderkit.parsing.arbiter.OpenAIArbiter` (any OpenAI-compatible
    chat-completions server: llama.cpp's, Ollama, vLLM, OpenAI),
    :class:`~renderkit.parsing.arbiter.AnthropicArbiter` and
    :class:`~renderkit.parsing.arbiter.MemoryArbiter` (scripted answers; the test fake).
    """

    #: A short name for warnings and logs (``openai``, ``anthropic``, ``memory``).
    name: str

    async def choose(self, question: Question) -> Choice:
        """Ask which candidate is the field.

        An answer that is not one of the offered numbers is a :class:`Choice` with index None,
        not an error.

        Raises:
            ProviderError: the provider refused the call (a rejected key: ``status`` 401 or
                403) or answered with something that is not an answer.
            ProviderUnavailableError: the provider could not be reached, or stayed
                rate-limited or failing after the retries.
        """
        ...

    async def aclose(self) -> None:
        """Release connections; calling it twice is a no-op."""
        ...


def prompt(question: Question) -> str:
    """The user message: the field, the top of the document, the numbered candidates."""
    numbered = "\n".join(
        f"{number}. {_one_line(candidate)[:CANDIDATE_CHARS]}"
        for number, candidate in enumerate(question.candidates, start=1)
    )
    return (
        f"Field: {question.field} ({question.description})\n"
        f"Top of the document:\n<<<\n{question.context}\n>>>\n"
        f"Candidates:\n{numbered}\n"
        f"Which candidate is the {question.field}? Answer 1 to {len(question.candidates)}, "
        "or 0 for none."
    )


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


_NUMBER = re.compile(r"\d{1,2}")


def read_answer(text: str, count: int) -> int | None:
    """The 0-based candidate ``text`` names, or None.

    Only a bare number (``2``, ``2.``) from 1 to ``count`` names a candidate; ``0``,
    ``none``, a number out of range and any other text are None (see :func:`declined`).
    """
    cleaned = text.strip().rstrip(".").strip()
    if _NUMBER.fullmatch(cleaned) is None:
        return None
    number = int(cleaned)
    return number - 1 if 1 <= number <= count else None


def declined(text: str) -> bool:
    """Whether ``text`` is the model saying that none of the candidates is the field."""
    return text.strip().rstrip(".").strip().lower() in ("0", "none")
