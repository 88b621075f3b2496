"""Talking to a remote language model over httpx: what the extractors and the arbiters share.

- :class:`RemoteModel`: the key (kept out of reprs and messages), the base URL, the client
  (created on first use and closed by ``aclose`` unless the caller passed one), the retry
  policy (:mod:`renderkit.core.retry`), and :meth:`RemoteModel.post`, which maps every failure
  to the library's errors.
- :class:`OpenAIChat` and :class:`AnthropicMessages`: the two providers' endpoints, headers and
  token counts (``POST {base_url}/chat/completions`` with a Bearer key; ``POST
  {base_url}/v1/messages`` with ``x-api-key``).

The extractors (:mod:`renderkit.parsing.llm`) and the arbiters
(:mod:`renderkit.parsing.arbiter`) subclass these, so a retry, a key or an error message is
handled the same way wherever a model is asked.
"""

from __future__ import annotations

import functools
from typing import Any

import anyio
import httpx

from renderkit.core.errors import ConfigurationError, ProviderError, ProviderUnavailableError
from renderkit.core.retry import RetryPolicy, Sleep, is_retryable_status, send_with_retries
from renderkit.parsing._protocol import Usage

__all__ = ["ANTHROPIC_VERSION", "AnthropicMessages", "OpenAIChat", "RemoteModel"]

#: The ``anthropic-version`` header every Messages API call sends.
ANTHROPIC_VERSION = "2023-06-01"


class RemoteModel:
    """A model behind an HTTP API: key, model name, base URL, client and retries.

    Args:
        api_key: the provider's key; never shown in a repr, a message or a log.
        model: the model name.
        base_url: default :attr:`default_base_url` (the provider's public API).
        client: an httpx client to use (tests pass one with ``httpx.MockTransport``); one is
            created on first use otherwise, and closed by :meth:`aclose`.
        timeout: seconds per HTTP attempt.
        max_retries: extra attempts after a 429, a 5xx or a network error.
        retry_backoff: the first wait between attempts, doubled on each retry.
        max_retry_delay: the longest wait between attempts (see :class:`RetryPolicy`).
        max_retry_after: a ``Retry-After`` longer than this ends the retries instead of being
            waited for (None: every one is waited for, capped at ``max_retry_delay``).
        sleep: awaited between attempts (injectable for tests).

    Raises:
        ConfigurationError: no key, no model, or a negative ``max_retries``.
    """

    #: The provider's name in errors and logs.
    provider = "llm"
    #: The provider's public API, used when no ``base_url`` is given.
    default_base_url = ""

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
        retry_backoff: float = 1.0,
        max_retry_delay: float = 30.0,
        max_retry_after: float | None = None,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        if not api_key:
            msg = f"{type(self).__name__} needs an api_key"
            raise ConfigurationError(msg)
        if not model:
            msg = f"{type(self).__name__} needs a model name"
            raise ConfigurationError(msg)
        if max_retries < 0:
            msg = "max_retries must be 0 or more"
            raise ConfigurationError(msg)
        self._api_key = api_key
        self.model = model
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self._client = client
        self._owns_client = client is None
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_backoff = retry_backoff
        self.max_retry_delay = max_retry_delay
        self.max_retry_after = max_retry_after
        self._sleep = sleep

    def __repr__(self) -> str:
        # The key stays out of reprs, logs and tracebacks.
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def client(self) -> httpx.AsyncClient:
        """The HTTP client (created on first use when none was given)."""
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout)
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client if this object created it; calling it twice is a no-op."""
        if self._client is not None and self._owns_client:
            await self._client.aclose()
            self._client = None

    @property
    def retry_policy(self) -> RetryPolicy:
        """How calls are retried: network errors, 429 and 5xx, with jittered backoff."""
        return RetryPolicy(
            max_retries=self.max_retries,
            backoff=self.retry_backoff,
            max_delay=self.max_retry_delay,
            jitter=0.5,
            max_retry_after=self.max_retry_after,
        )

    async def post(self, url: str, headers: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        """POST ``body`` as JSON with retries; the answer's JSON object.

        Raises:
            ProviderError: a rejected key (401/403, ``status`` set), another 4xx, or a body
                that is not a JSON object.
            ProviderUnavailableError: 429/5xx after the retries, or the network failed.
        """
        send = functools.partial(
            self.client.post, url, headers=headers, json=body, timeout=self.timeout
        )
        try:
            response = await send_with_retries(send, self.retry_policy, sleep=self._sleep)
        except httpx.TransportError as exc:
            msg = f"{self.provider} could not be reached ({type(exc).__name__})"
            raise ProviderUnavailableError(msg, provider=self.provider) from None
        status = response.status_code
        if status in (401, 403):
            msg = f"{self.provider} rejected the API key (HTTP {status})"
            raise ProviderError(msg, provider=self.provider, status=status)
        if is_retryable_status(status):  # still failing once the retries are used up
            msg = (
                f"{self.provider} is unavailable or rate-limited (HTTP {status}) "
                f"after {self.max_retries + 1} attempts"
            )
            raise ProviderUnavailableError(msg, provider=self.provider, status=status)
        if status >= 400:
            msg = f"{self.provider} refused the request (HTTP {status}{_error_type(response)})"
            raise ProviderError(msg, provider=self.provider, status=status)
        try:
            payload = response.json()
        except ValueError:
            msg = f"{self.provider} answered with a body that is not JSON"
            raise ProviderError(msg, provider=self.provider, status=status) from None
        if not isinstance(payload, dict):
            msg = f"{self.provider} answered with an unexpected body"
            raise ProviderError(msg, provider=self.provider, status=status)
        return payload


def _error_type(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return f", {str(kind)[:60]}" if isinstance(kind, str) else ""


class OpenAIChat(RemoteModel):
    """An OpenAI-compatible chat-completions endpoint (``POST {base_url}/chat/completions``)."""

    provider = "openai"
    default_base_url = "https://api.openai.com/v1"

    async def chat(self, body: dict[str, Any]) -> tuple[dict[str, Any], Usage]:
        """Send ``body``; the first choice's message and the provider's token counts.

        Raises:
            ProviderError: as :meth:`RemoteModel.post`, or an answer without a message.
            ProviderUnavailableError: as :meth:`RemoteModel.post`.
        """
        headers = {"Authorization": f"Bearer {self._api_key}"}
        payload = await self.post(f"{self.base_url}/chat/completions", headers, body)
        try:
            message = payload["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            message = None
        if not isinstance(message, dict):
            msg = f"{self.provider}'s answer has no message"
            raise ProviderError(msg, provider=self.provider)
        raw = payload.get("usage")
        raw = raw if isinstance(raw, dict) else {}
        usage = Usage(
            input_tokens=_count(raw.get("prompt_tokens")),
            output_tokens=_count(raw.get("completion_tokens")),
        )
        return message, usage


class AnthropicMessages(RemoteModel):
    """Anthropic's Messages API (``POST {base_url}/v1/messages``)."""

    provider = "anthropic"
    default_base_url = "https://api.anthropic.com"

    async def messages(self, body: dict[str, Any]) -> tuple[list[Any], Usage]:
        """Send ``body``; the answer's content blocks and the provider's token counts.

        Raises:
            ProviderError, ProviderUnavailableError: as :meth:`RemoteModel.post`.
        """
        headers = {"x-api-key": self._api_key, "anthropic-version": ANTHROPIC_VERSION}
        payload = await self.post(f"{self.base_url}/v1/messages", headers, body)
        raw = payload.get("usage")
        raw = raw if isinstance(raw, dict) else {}
        usage = Usage(
            input_tokens=_count(raw.get("input_tokens")),
            output_tokens=_count(raw.get("output_tokens")),
        )
        content = payload.get("content")
        return (content if isinstance(content, list) else []), usage


def _count(value: object) -> int:
    # A provider's token count (some servers send 12.0 or "12"); anything unreadable is none.
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return 0
    try:
        count = int(value)
    except ValueError:
        return 0
    return max(count, 0)
