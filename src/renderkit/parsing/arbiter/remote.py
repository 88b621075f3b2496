"""What the OpenAI-compatible and Anthropic arbiters share: short timeouts and few retries
(an arbiter only refines an answer the rules already have), and a rejected key logged once."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio
import httpx

from renderkit.core.errors import ProviderError
from renderkit.core.retry import Sleep
from renderkit.parsing._protocol import Usage
from renderkit.parsing.arbiter.base import Choice, Question, declined, read_answer
from renderkit.parsing.remote import RemoteModel

__all__ = ["RemoteArbiter"]

logger = logging.getLogger("renderkit.parsing.arbiter")

# An answer is a digit and perhaps an end-of-turn token; 3 leaves room for "2." or "10".
_MAX_TOKENS = 3


class RemoteArbiter(RemoteModel):
    """An arbiter behind an HTTP API (see :class:`~renderkit.parsing.remote.RemoteModel`).

    Args:
        api_key, model, base_url, client, sleep: as for
            :class:`~renderkit.parsing.remote.RemoteModel`.
        timeout: seconds per HTTP attempt (default 5); the caller also bounds the whole call.
        max_retries: extra attempts after a 429, a 5xx or a network error (default 2, with
            waits from 0.25 s and at most 2 s; a 429 asking to wait longer is not retried).
        max_tokens: the most the model may answer (default 3: a number).
    """

    name = "remote"

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        timeout: float = 5.0,
        max_retries: int = 2,
        retry_backoff: float = 0.25,
        max_tokens: int = _MAX_TOKENS,
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
            max_retry_delay=2.0,
            max_retry_after=2.0,
            sleep=sleep,
        )
        self.max_tokens = max_tokens
        self._rejection_logged = False

    async def _ask(self, call: Callable[[], Awaitable[Choice]]) -> Choice:
        try:
            return await call()
        except ProviderError as exc:
            if exc.status in (401, 403) and not self._rejection_logged:
                # A configuration error: said once, not per document (and not retried).
                self._rejection_logged = True
                logger.error(
                    "the %s arbiter's API key was rejected (HTTP %s); parses keep the rules' "
                    "choices until it is fixed",
                    self.provider,
                    exc.status,
                )
            raise

    def _choice(self, text: str, question: Question, usage: Usage) -> Choice:
        index = read_answer(text, len(question.candidates))
        answer = text.strip()[:16]
        if index is None and declined(text):
            answer = "none"
        return Choice(index=index, answer=answer, usage=usage)
