"""An arbiter that answers from a script: for tests, demos and checking the wiring offline."""

from __future__ import annotations

from collections.abc import Iterable

from renderkit.parsing._protocol import Usage
from renderkit.parsing.arbiter.base import Choice, Question, declined, read_answer

__all__ = ["MemoryArbiter"]


class MemoryArbiter:
    """Answers each question with the next scripted answer, as a model would write it.

    Args:
        answers: per question, in order: a candidate's number as the model sees it (1 is the
            first), ``0`` or ``"none"`` for none, any other text (read as a model's answer
            is), or an exception to raise. Once they run out, every answer is ``"none"``.
        usage: the tokens each answer reports.

    Attributes:
        questions: every question asked, in order.
    """

    name = "memory"

    def __init__(
        self, answers: Iterable[int | str | BaseException] = (), *, usage: Usage | None = None
    ) -> None:
        self._answers = list(answers)
        self._usage = usage if usage is not None else Usage()
        self.questions: list[Question] = []

    async def choose(self, question: Question) -> Choice:
        """The next scripted answer; see :class:`~renderkit.parsing.arbiter.Arbiter`."""
        self.questions.append(question)
        answer = self._answers.pop(0) if self._answers else "none"
        if isinstance(answer, BaseException):
            raise answer
        text = str(answer)
        index = read_answer(text, len(question.candidates))
        return Choice(
            index=index,
            answer="none" if index is None and declined(text) else text[:16],
            usage=self._usage,
        )

    async def aclose(self) -> None:
        """Nothing to release."""
