"""The arbiter over any OpenAI-compatible chat-completions server.

The answer is constrained where the server can: ``response_format`` carries a JSON Schema whose
root is an integer enum (``{"type": "integer", "enum": [0, 1, 2, 3]}``), so a server that
compiles schemas to a grammar (llama.cpp's ``llama-server``, Ollama, vLLM) can only emit one of
the offered numbers, and the number's JSON is the bare digit: one token. ``logit_bias`` needs
token ids, which differ per model, and a raw ``grammar`` field is llama.cpp's alone, so neither
is portable. OpenAI's hosted API accepts only an object at a schema's root: there, pass
``constrained=False``; the prompt, ``max_tokens`` and :func:`~renderkit.parsing.arbiter.base.
read_answer` still keep anything but a number out.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx

from renderkit.core.errors import ProviderError
from renderkit.core.retry import Sleep
from renderkit.parsing.arbiter.base import SYSTEM_PROMPT, Choice, Question, prompt
from renderkit.parsing.arbiter.remote import RemoteArbiter
from renderkit.parsing.remote import OpenAIChat

__all__ = ["OpenAIArbiter"]


class OpenAIArbiter(RemoteArbiter, OpenAIChat):
    """Asks an OpenAI-compatible model (``POST {base_url}/chat/completions``).

    Args:
        api_key: sent as ``Authorization: Bearer`` (a local server that needs none ignores it).
        model: the model name as the server knows it.
        base_url: e.g. ``http://127.0.0.1:8080/v1`` (llama-server) or
            ``http://127.0.0.1:11434/v1`` (Ollama); default OpenAI's API.
        constrained: send the integer-enum ``response_format`` (default True; False for
            OpenAI's hosted API).
        client, timeout, max_retries, retry_backoff, max_tokens, sleep: as for
            :class:`~renderkit.parsing.arbiter.remote.RemoteArbiter`.
    """

    name = "openai"

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        constrained: bool = True,
        client: httpx.AsyncClient | None = None,
        timeout: float = 5.0,
        max_retries: int = 2,
        retry_backoff: float = 0.25,
        max_tokens: int = 3,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        super().__init__(
            api_key=api_key,
            model=model,
            base_url=base_url,
            client=client,
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
            max_tokens=max_tokens,
            sleep=sleep,
        )
        self.constrained = constrained

    def request_body(self, question: Question) -> dict[str, Any]:
        """The JSON body sent to the endpoint."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": prompt(question)},
            ],
            "max_tokens": self.max_tokens,
            "temperature": 0,
        }
        if self.constrained:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": "choice",
                    "schema": {
                        "type": "integer",
                        "enum": list(range(len(question.candidates) + 1)),
                    },
                },
            }
        return body

    async def choose(self, question: Question) -> Choice:
        """Ask the model; see :class:`~renderkit.parsing.arbiter.Arbiter`."""

        async def call() -> Choice:
            message, usage = await self.chat(self.request_body(question))
            if message.get("refusal"):
                msg = "the model refused to answer"
                raise ProviderError(msg, provider=self.provider)
            content = message.get("content")
            return self._choice(content if isinstance(content, str) else "", question, usage)

        return await self._ask(call)
