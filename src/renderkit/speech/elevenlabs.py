"""The ElevenLabs text-to-speech API as a speech provider (``httpx``, no SDK).

One call is ``POST /v1/text-to-speech/{voice_id}?output_format=...`` with the key in the
``xi-api-key`` header and a JSON body ``{"text", "model_id", "voice_settings"}``. Formats:

- ``mp3``: ElevenLabs' ``mp3_44100_128`` is exactly the output encoding, so the file is
  passed through (its duration is still read back from the file).
- ``wav``, ``aac``: ``pcm_44100`` (raw 16-bit mono), wrapped or encoded locally.
- ``opus``: ``pcm_48000``, encoded locally into Ogg Opus at 96 kbps. ElevenLabs' own
  ``opus_48000_96`` is not used: its container is not documented.

ElevenLabs serves 44.1 and 48 kHz PCM on its Pro tier and above only; on a smaller plan set
``pcm_sample_rate=24000`` and renderkit resamples to the output rate.

Failures: 429 and 5xx responses and connection failures are retried with exponential
backoff (honouring ``Retry-After``), then raise :class:`ProviderUnavailableError`, as does
a timeout. 401/403 raise :class:`ProviderError`; 400/404/422 that name a request field raise
:class:`InvalidRequestError` on our name for it (``voice_id``, ``script``...), others
:class:`ProviderError`. Messages carry ElevenLabs' explanation, never the API key.
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import quote

import anyio
import httpx

from renderkit.core.errors import (
    ConfigurationError,
    InvalidRequestError,
    ProviderError,
    ProviderUnavailableError,
    RenderkitError,
)
from renderkit.core.retry import RetryPolicy, Sleep, is_retryable_status, send_with_retries
from renderkit.speech._models import AUDIO_FORMATS, AudioRequest
from renderkit.speech._protocol import SpeechAudio, Voice

__all__ = ["DEFAULT_BASE_URL", "ElevenLabsProvider"]

DEFAULT_BASE_URL = "https://api.elevenlabs.io"

_NAME = "elevenlabs"

# ElevenLabs' request field (or a word of its error status) -> our field name.
_FIELDS = {
    "text": "script",
    "model_id": "model",
    "voice_id": "voice_id",
    "stability": "stability",
    "similarity_boost": "similarity",
    "style": "style",
    "speed": "speed",
    "output_format": "format",
}
_STATUS_WORDS = (
    ("voice", "voice_id"),
    ("model", "model"),
    ("character", "script"),
    ("text", "script"),
)


class ElevenLabsProvider:
    """Speech from the ElevenLabs API.

    Args:
        api_key: the ElevenLabs API key (sent as ``xi-api-key``; never logged or shown).
        base_url: API root, e.g. a regional endpoint or a test server.
        timeout: seconds to wait for a response (synthesis of 5,000 characters can take
            tens of seconds).
        max_retries: retries after a 429, a 5xx or a failed connection (0 disables them).
        backoff: first retry delay in seconds; doubled on each retry.
        max_backoff: upper bound of one delay, also for a longer ``Retry-After``.
        pcm_sample_rate: PCM rate requested for wav, aac and opus (default: the output
            rate, 44,100 or 48,000 Hz, which needs ElevenLabs' Pro tier).
        use_speaker_boost: sent as ``voice_settings.use_speaker_boost`` when not None.
        transport: an httpx transport (``httpx.MockTransport`` in tests).
        sleep: awaited between retries; tests inject one that does not wait.

    Raises:
        ConfigurationError: an empty API key or a negative retry setting.
    """

    name = _NAME

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 120.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        pcm_sample_rate: int | None = None,
        use_speaker_boost: bool | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        if not api_key or not api_key.strip():
            msg = "ElevenLabsProvider needs an API key"
            raise ConfigurationError(msg)
        if max_retries < 0 or backoff < 0 or max_backoff < 0:
            msg = "max_retries, backoff and max_backoff must not be negative"
            raise ConfigurationError(msg)
        self._api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.pcm_sample_rate = pcm_sample_rate
        self.use_speaker_boost = use_speaker_boost
        self._sleep = sleep
        self._client = httpx.AsyncClient(
            base_url=self.base_url, timeout=timeout, transport=transport
        )

    def __repr__(self) -> str:
        return f"ElevenLabsProvider(base_url={self.base_url!r})"

    async def __aenter__(self) -> ElevenLabsProvider:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.aclose()

    def output_format(self, fmt: str) -> str:
        """The ElevenLabs ``output_format`` requested for one of our formats."""
        if fmt == "mp3":
            return "mp3_44100_128"
        rate = self.pcm_sample_rate or AUDIO_FORMATS[fmt].sample_rate
        return f"pcm_{rate}"

    def request_body(self, request: AudioRequest) -> dict[str, Any]:
        """The JSON body sent for ``request``."""
        settings: dict[str, Any] = {
            "stability": request.stability,
            "similarity_boost": request.similarity,
            "style": request.style,
            "speed": request.speed,
        }
        if self.use_speaker_boost is not None:
            settings["use_speaker_boost"] = self.use_speaker_boost
        return {"text": request.script, "model_id": request.model, "voice_settings": settings}

    async def synthesize(self, request: AudioRequest) -> SpeechAudio:
        """Synthesise through the API: the MP3 as served, or raw PCM for other formats.

        Raises:
            InvalidRequestError: ElevenLabs refused a field (unknown voice, bad setting).
            ProviderError: the key was refused, or another non-retryable failure.
            ProviderUnavailableError: timeout, or 429/5xx/connection failures after retries.
        """
        output_format = self.output_format(request.format)
        response = await self._send(
            "POST",
            f"/v1/text-to-speech/{quote(request.voice_id, safe='')}",
            params={"output_format": output_format},
            json=self.request_body(request),
        )
        if not response.content:
            msg = "ElevenLabs returned no audio"
            raise ProviderError(msg, provider=_NAME, status=response.status_code)
        if output_format.startswith("mp3_"):
            return SpeechAudio(data=response.content, encoding="mp3", sample_rate=44_100)
        rate = int(output_format.removeprefix("pcm_"))
        return SpeechAudio(data=response.content, encoding="pcm", sample_rate=rate)

    async def list_voices(self) -> list[Voice]:
        """The voices of the account (``GET /v1/voices``).

        Raises:
            ProviderError: the key was refused or the answer is unreadable.
            ProviderUnavailableError: timeout, or 429/5xx/connection failures after retries.
        """
        response = await self._send("GET", "/v1/voices")
        try:
            voices = response.json()["voices"]
            return [_voice(v) for v in voices]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            msg = "ElevenLabs returned an unreadable voice list"
            raise ProviderError(msg, provider=_NAME, status=response.status_code) from exc

    @property
    def retry_policy(self) -> RetryPolicy:
        """How calls are retried: 429, 5xx and failed connections, not timeouts."""
        # A timed-out request may have reached ElevenLabs and been billed; a failed connection
        # reached nothing, so only that is safe to repeat.
        return RetryPolicy(
            max_retries=self.max_retries,
            backoff=self.backoff,
            max_delay=self.max_backoff,
            retry_on=(httpx.ConnectError, httpx.ConnectTimeout),
        )

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        send = functools.partial(
            self._client.request, method, path, headers={"xi-api-key": self._api_key}, **kwargs
        )
        try:
            response = await send_with_retries(send, self.retry_policy, sleep=self._sleep)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            msg = "could not connect to ElevenLabs"
            raise ProviderUnavailableError(msg, provider=_NAME) from exc
        except httpx.TimeoutException as exc:
            msg = "ElevenLabs did not answer in time"
            raise ProviderUnavailableError(msg, provider=_NAME) from exc
        except httpx.TransportError as exc:
            msg = "the connection to ElevenLabs failed"
            raise ProviderUnavailableError(msg, provider=_NAME) from exc
        status = response.status_code
        if status < 400:
            return response
        if not is_retryable_status(status):
            raise _error(response, self._api_key)
        reason = "is rate limiting requests" if status == 429 else "is failing"
        detail = _detail(response, self._api_key)[1]
        message = f"ElevenLabs {reason} ({status})" + (f": {detail}" if detail else "")
        cause = httpx.HTTPStatusError(message, request=response.request, response=response)
        raise ProviderUnavailableError(message, provider=_NAME, status=status) from cause


def _clean(text: object, secret: str) -> str:
    value = " ".join(str(text).split()).replace(secret, "***")
    return value[:300]


def _detail(response: httpx.Response, secret: str) -> tuple[str | None, str, str | None]:
    """(error status, message, our field name) from an ElevenLabs error body."""
    try:
        body = response.json()
    except ValueError:
        return None, "", None
    detail = body.get("detail", body) if isinstance(body, dict) else body
    if isinstance(detail, list) and detail and isinstance(detail[0], dict):
        first = detail[0]
        loc = [str(p) for p in first.get("loc", []) if p not in ("body", "query", "path")]
        field = next((_FIELDS[p] for p in reversed(loc) if p in _FIELDS), None)
        where = ".".join(loc)
        message = _clean(first.get("msg", ""), secret)
        return None, _clean(f"{where}: {message}" if where else message, secret), field
    if isinstance(detail, dict):
        status = detail.get("status") or detail.get("code")
        status = _clean(status, secret) if status else None
        message = _clean(detail.get("message") or status or "", secret)
        field = None
        if status:
            field = next((f for word, f in _STATUS_WORDS if word in status.lower()), None)
        return status, message, field
    if isinstance(detail, str):
        return None, _clean(detail, secret), None
    return None, "", None


def _error(response: httpx.Response, secret: str) -> RenderkitError:
    status = response.status_code
    code, message, field = _detail(response, secret)
    if status in (401, 403):
        what = "rejected the API key" if status == 401 else "refused the request"
        text = f"ElevenLabs {what} ({status})" + (f": {message}" if message else "")
        return ProviderError(text, provider=_NAME, status=status)
    if status in (400, 404, 422) and field is not None:
        return InvalidRequestError.single(field, f"rejected by ElevenLabs: {message or code}")
    text = f"ElevenLabs refused the request ({status})" + (f": {message}" if message else "")
    return ProviderError(text, provider=_NAME, status=status)


def _voice(data: dict[str, Any]) -> Voice:
    labels = data.get("labels") or {}
    parts = [labels.get("accent"), labels.get("description"), data.get("category")]
    return Voice(
        voice_id=str(data["voice_id"]),
        name=str(data.get("name") or data["voice_id"]),
        language=labels.get("language"),
        gender=labels.get("gender"),
        description=", ".join(str(p) for p in parts if p) or None,
    )
