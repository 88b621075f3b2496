"""A language-model arbiter for the name fields the rules are unsure of (off by default).

- :class:`Arbiter`: the protocol; :class:`OpenAIArbiter` (any OpenAI-compatible server:
  llama.cpp's, Ollama, vLLM, OpenAI), :class:`AnthropicArbiter`, :class:`MemoryArbiter`
  (scripted answers, the test fake).
- :class:`Question` and :class:`Choice`: what it is asked and what it answers.
- :func:`arbitrate`: when it is asked and what its answer changes (see
  :mod:`~renderkit.parsing.arbiter.ask`); :class:`~renderkit.parsing.LocalExtractor` calls it
  when given an ``arbiter``.
"""

from __future__ import annotations

from renderkit.parsing.arbiter.anthropic import AnthropicArbiter
from renderkit.parsing.arbiter.ask import (
    ARBITER_CONFIDENCE,
    DEFAULT_THRESHOLD,
    DEFAULT_TIMEOUT,
    NAME_FIELDS,
    Arbitration,
    arbitrate,
)
from renderkit.parsing.arbiter.base import Arbiter, Choice, Question, prompt, top_rows
from renderkit.parsing.arbiter.memory import MemoryArbiter
from renderkit.parsing.arbiter.openai import OpenAIArbiter

__all__ = [
    "ARBITER_CONFIDENCE",
    "DEFAULT_THRESHOLD",
    "DEFAULT_TIMEOUT",
    "NAME_FIELDS",
    "AnthropicArbiter",
    "Arbiter",
    "Arbitration",
    "Choice",
    "MemoryArbiter",
    "OpenAIArbiter",
    "Question",
    "arbitrate",
    "prompt",
    "top_rows",
]
