"""The arbiter over Anthropic's Messages API: a few output tokens, the text read strictly."""

from __future__ import annotations

from typing import Any

from renderkit.parsing.arbiter.base import SYSTEM_PROMPT, Choice, Question, prompt
from renderkit.parsing.arbiter.remote import RemoteArbiter
from renderkit.parsing.remote import AnthropicMessages

__all__ = ["AnthropicArbiter"]


class AnthropicArbiter(RemoteArbiter, AnthropicMessages):
    """Asks an Anthropic model (``POST {base_url}/v1/messages``).

    Args:
        api_key: sent as ``x-api-key``.
        model: e.g. ``claude-haiku-4-5``.
        base_url: default ``https://api.anthropic.com``.
        client, timeout, max_retries, retry_backoff, max_tokens, sleep: as for
            :class:`~renderkit.parsing.arbiter.remote.RemoteArbiter`.
    """

    name = "anthropic"

    def request_body(self, question: Question) -> dict[str, Any]:
        """The JSON body sent to the endpoint."""
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": 0,
            "system": SYSTEM_PROMPT,
            "messages": [{"role": "user", "content": prompt(question)}],
        }

    async def choose(self, question: Question) -> Choice:
        """Ask the model; see :class:`~renderkit.parsing.arbiter.Arbiter`."""

        async def call() -> Choice:
            # A refusal (stop_reason "refusal") comes without text: no number, so no choice.
            blocks, usage = await self.messages(self.request_body(question))
            text = "".join(
                str(b.get("text", ""))
                for b in blocks
                if isinstance(b, dict) and b.get("type") == "text"
            )
            return self._choice(text, question, usage)

        return await self._ask(call)
