"""The ElevenLabs adapter against httpx.MockTransport: exact requests, every error status."""

from __future__ import annotations

import datetime
import email.utils
import json
from collections.abc import Callable

import httpx
import pytest

from renderkit import (
    ConfigurationError,
    InvalidRequestError,
    ProviderError,
    ProviderUnavailableError,
    structure,
)
from renderkit.speech import ElevenLabsProvider, SpeechProvider
from renderkit.speech._encode import encode_pcm
from renderkit.speech._models import AUDIO_FORMATS, AudioRequest
from renderkit.speech._synthesize import synthesize

from . import decode, tone, within

pytestmark = pytest.mark.anyio

KEY = "sk_test_0123456789abcdef0123456789abcdef"
VOICE = "21m00Tcm4TlvDq8ikWAM"


class Recorder:
    """A MockTransport handler answering from a list of responses, recording requests."""

    def __init__(self, *responses: httpx.Response | Callable[[httpx.Request], httpx.Response]):
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        return answer(request) if callable(answer) else answer


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def provider(
    recorder: Recorder, sleeps: Sleeps | None = None, **options: object
) -> ElevenLabsProvider:
    return ElevenLabsProvider(
        KEY, transport=httpx.MockTransport(recorder), sleep=sleeps or Sleeps(), **options
    )


def request(**fields: object) -> AudioRequest:
    return structure({"script": "Hello there", **fields}, AudioRequest)


MP3 = encode_pcm(tone(3.0), sample_rate=22_050, channels=1, encoding=AUDIO_FORMATS["mp3"])


def audio_ok(request: httpx.Request) -> httpx.Response:
    if request.url.params["output_format"].startswith("mp3"):
        return httpx.Response(200, content=MP3, headers={"content-type": "audio/mpeg"})
    rate = int(request.url.params["output_format"].removeprefix("pcm_"))
    return httpx.Response(200, content=tone(2.0, rate=rate))


def error(status: int, detail: object, **headers: str) -> httpx.Response:
    return httpx.Response(status, json={"detail": detail}, headers=headers)


# --- the request ---


async def test_mp3_request_is_exactly_the_documented_call() -> None:
    recorder = Recorder(audio_ok)
    async with provider(recorder) as el:
        await el.synthesize(request(stability=0.3, similarity=0.9, style=0.2, speed=1.1))
    (sent,) = recorder.requests
    assert sent.method == "POST"
    assert sent.url.scheme == "https"
    assert sent.url.host == "api.elevenlabs.io"
    assert sent.url.path == f"/v1/text-to-speech/{VOICE}"
    assert dict(sent.url.params) == {"output_format": "mp3_44100_128"}
    assert sent.headers["xi-api-key"] == KEY
    assert sent.headers["content-type"] == "application/json"
    assert json.loads(sent.content) == {
        "text": "Hello there",
        "model_id": "eleven_multilingual_v2",
        "voice_settings": {
            "stability": 0.3,
            "similarity_boost": 0.9,
            "style": 0.2,
            "speed": 1.1,
        },
    }


@pytest.mark.parametrize(
    ("fmt", "output_format"), [("wav", "pcm_44100"), ("aac", "pcm_44100"), ("opus", "pcm_48000")]
)
async def test_other_formats_request_pcm_at_the_output_rate(fmt: str, output_format: str) -> None:
    recorder = Recorder(audio_ok)
    audio = await provider(recorder).synthesize(request(format=fmt))
    assert recorder.requests[0].url.params["output_format"] == output_format
    assert (audio.encoding, audio.sample_rate, audio.channels) == (
        "pcm",
        int(output_format[4:]),
        1,
    )


async def test_pcm_rate_and_speaker_boost_are_configurable() -> None:
    recorder = Recorder(audio_ok)
    el = provider(recorder, pcm_sample_rate=24_000, use_speaker_boost=True)
    await el.synthesize(request(format="opus", model="eleven_turbo_v2"))
    sent = recorder.requests[0]
    assert sent.url.params["output_format"] == "pcm_24000"
    body = json.loads(sent.content)
    assert body["model_id"] == "eleven_turbo_v2"
    assert body["voice_settings"]["use_speaker_boost"] is True


async def test_base_url_is_configurable() -> None:
    recorder = Recorder(audio_ok)
    await provider(recorder, base_url="https://api.eu.example.test/").synthesize(request())
    assert str(recorder.requests[0].url).startswith(
        f"https://api.eu.example.test/v1/text-to-speech/{VOICE}?"
    )


async def test_mp3_is_passed_through_and_measured() -> None:
    result = await synthesize({"script": "Hello there"}, provider=provider(Recorder(audio_ok)))
    assert result.content == MP3
    assert result.provider == "elevenlabs"
    assert abs(result.duration_seconds - 3.0) < 0.05


@pytest.mark.parametrize("fmt", ["wav", "opus", "aac"])
async def test_pcm_is_encoded_into_the_requested_format(fmt: str) -> None:
    result = await synthesize(
        {"script": "Hi", "format": fmt}, provider=provider(Recorder(audio_ok))
    )
    decoded = decode(result.content)
    assert decoded.sample_rate == AUDIO_FORMATS[fmt].sample_rate
    assert within(result.duration_seconds, 2.0, 0.05)


async def test_empty_audio_is_a_provider_error() -> None:
    with pytest.raises(ProviderError):
        await provider(Recorder(httpx.Response(200, content=b""))).synthesize(request())


# --- errors that are not retried ---


async def test_bad_key_is_a_provider_error_without_the_key() -> None:
    body = {"status": "invalid_api_key", "message": f"Invalid API key: {KEY}"}
    recorder = Recorder(error(401, body))
    el = provider(recorder)
    with pytest.raises(ProviderError) as exc:
        await el.synthesize(request())
    assert type(exc.value) is ProviderError
    assert (exc.value.status, exc.value.provider) == (401, "elevenlabs")
    assert KEY not in str(exc.value)
    assert KEY not in repr(exc.value)
    assert KEY not in repr(el)
    assert len(recorder.requests) == 1


@pytest.mark.parametrize(
    ("status", "detail", "field"),
    [
        (
            400,
            {"status": "voice_not_found", "message": "A voice with that id was not found."},
            "voice_id",
        ),
        (404, {"status": "voice_not_found", "message": "Voice not found"}, "voice_id"),
        (400, {"status": "max_character_limit_exceeded", "message": "Too long"}, "script"),
        (400, {"status": "model_not_found", "message": "No such model"}, "model"),
        (
            422,
            [{"loc": ["body", "voice_settings", "stability"], "msg": "too high", "type": "x"}],
            "stability",
        ),
        (
            422,
            [{"loc": ["body", "voice_settings", "similarity_boost"], "msg": "bad", "type": "x"}],
            "similarity",
        ),
        (422, [{"loc": ["body", "text"], "msg": "field required", "type": "missing"}], "script"),
    ],
)
async def test_refused_fields_are_invalid_requests_naming_our_field(
    status: int, detail: object, field: str
) -> None:
    recorder = Recorder(error(status, detail))
    with pytest.raises(InvalidRequestError) as exc:
        await provider(recorder).synthesize(request())
    assert [e.field for e in exc.value.errors] == [field]
    assert len(recorder.requests) == 1


@pytest.mark.parametrize(
    ("status", "response"),
    [
        (400, error(400, {"status": "output_format_not_allowed", "message": "Upgrade"})),
        (402, error(402, {"status": "payment_required", "message": "Pay"})),
        (403, error(403, {"status": "forbidden", "message": "No"})),
        (404, httpx.Response(404, text="Not Found")),
        (409, error(409, "conflict")),
        (422, error(422, [{"loc": ["body", "seed"], "msg": "bad", "type": "x"}])),
    ],
)
async def test_other_client_errors_are_provider_errors_and_not_retried(
    status: int, response: httpx.Response
) -> None:
    recorder = Recorder(response)
    sleeps = Sleeps()
    with pytest.raises(ProviderError) as exc:
        await provider(recorder, sleeps).synthesize(request())
    assert type(exc.value) is ProviderError
    assert exc.value.status == status
    assert len(recorder.requests) == 1
    assert sleeps.delays == []


# --- retries ---


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
async def test_overload_and_server_errors_are_retried_with_backoff_then_unavailable(
    status: int,
) -> None:
    recorder = Recorder(error(status, {"status": "busy", "message": "try later"}))
    sleeps = Sleeps()
    with pytest.raises(ProviderUnavailableError) as exc:
        await provider(recorder, sleeps).synthesize(request())
    assert exc.value.status == status
    assert len(recorder.requests) == 4
    assert sleeps.delays == [0.5, 1.0, 2.0]


async def test_a_retry_that_succeeds_returns_the_audio() -> None:
    recorder = Recorder(error(503, "down"), error(429, "slow down"), audio_ok)
    sleeps = Sleeps()
    audio = await provider(recorder, sleeps).synthesize(request())
    assert audio.encoding == "mp3"
    assert len(recorder.requests) == 3
    assert len(sleeps.delays) == 2


async def test_retry_after_is_honoured_within_the_bound() -> None:
    recorder = Recorder(
        error(429, "slow", **{"retry-after": "3"}),
        error(429, "slow", **{"retry-after": "600"}),
        audio_ok,
    )
    sleeps = Sleeps()
    await provider(recorder, sleeps, max_backoff=8.0).synthesize(request())
    assert sleeps.delays == [3.0, 8.0]


async def test_retry_after_as_an_http_date_is_honoured_within_the_bound() -> None:
    soon = email.utils.format_datetime(
        datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=1), usegmt=True
    )
    recorder = Recorder(error(503, "busy", **{"retry-after": soon}), audio_ok)
    sleeps = Sleeps()
    await provider(recorder, sleeps, max_backoff=8.0).synthesize(request())
    assert sleeps.delays == [8.0]


async def test_backoff_is_capped() -> None:
    sleeps = Sleeps()
    el = provider(Recorder(error(500, "x")), sleeps, max_retries=6, backoff=1.0, max_backoff=5.0)
    with pytest.raises(ProviderUnavailableError):
        await el.synthesize(request())
    assert sleeps.delays == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0]


async def test_retries_can_be_disabled() -> None:
    recorder = Recorder(error(503, "x"))
    with pytest.raises(ProviderUnavailableError):
        await provider(recorder, max_retries=0).synthesize(request())
    assert len(recorder.requests) == 1


def raising(exc: type[httpx.TransportError]) -> Callable[[httpx.Request], httpx.Response]:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc("boom", request=request)

    return handler


async def test_a_read_timeout_is_unavailable_without_retrying() -> None:
    recorder = Recorder(raising(httpx.ReadTimeout))
    sleeps = Sleeps()
    with pytest.raises(ProviderUnavailableError):
        await provider(recorder, sleeps).synthesize(request())
    assert len(recorder.requests) == 1


@pytest.mark.parametrize("exc", [httpx.ConnectError, httpx.ConnectTimeout])
async def test_connection_failures_are_retried_then_unavailable(
    exc: type[httpx.TransportError],
) -> None:
    recorder = Recorder(raising(exc))
    sleeps = Sleeps()
    with pytest.raises(ProviderUnavailableError):
        await provider(recorder, sleeps).synthesize(request())
    assert len(recorder.requests) == 4
    assert len(sleeps.delays) == 3


async def test_a_dropped_connection_is_unavailable() -> None:
    with pytest.raises(ProviderUnavailableError):
        await provider(Recorder(raising(httpx.RemoteProtocolError))).synthesize(request())


async def test_no_message_ever_contains_the_key() -> None:
    leaky = {"status": "busy", "message": f"key {KEY} is overloaded"}
    for response in (error(500, leaky), error(400, leaky), error(401, leaky), error(422, leaky)):
        with pytest.raises(ProviderError) as exc:
            await provider(Recorder(response), max_retries=0).synthesize(request())
        assert KEY not in str(exc.value)


# --- voices and construction ---


async def test_list_voices_reads_the_account_voices() -> None:
    body = {
        "voices": [
            {
                "voice_id": VOICE,
                "name": "Rachel",
                "category": "premade",
                "labels": {"accent": "american", "gender": "female"},
            }
        ]
    }
    recorder = Recorder(httpx.Response(200, json=body))
    (voice,) = await provider(recorder).list_voices()
    assert (voice.voice_id, voice.name, voice.gender) == (VOICE, "Rachel", "female")
    sent = recorder.requests[0]
    assert (sent.method, sent.url.path, sent.headers["xi-api-key"]) == ("GET", "/v1/voices", KEY)


async def test_an_unreadable_voice_list_is_a_provider_error() -> None:
    with pytest.raises(ProviderError):
        await provider(Recorder(httpx.Response(200, text="<html>"))).list_voices()


@pytest.mark.parametrize("key", ["", "   "])
def test_an_empty_key_is_a_configuration_error(key: str) -> None:
    with pytest.raises(ConfigurationError):
        ElevenLabsProvider(key)


def test_provider_satisfies_the_protocol() -> None:
    assert isinstance(ElevenLabsProvider(KEY), SpeechProvider)
