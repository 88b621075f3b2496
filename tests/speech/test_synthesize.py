"""synthesize() over the in-memory FakeSpeechProvider: result facts, storage, failures."""

from __future__ import annotations

import base64
from pathlib import Path

import attrs
import pytest

from renderkit import InvalidRequestError, ProviderError, ProviderUnavailableError
from renderkit._audio import synthesize
from renderkit._audio_models import AUDIO_FORMATS, AudioRequest, AudioResult
from renderkit.speech import SpeechProvider
from renderkit.speech._protocol import PcmSink, StreamingSpeechProvider
from renderkit.storage import MemoryStorage
from renderkit.testing._fake_speech import FakeSpeechProvider

from . import decode, within

pytestmark = pytest.mark.anyio

SCRIPT = "Welcome to renderkit. " * 5  # 110 characters: about 7.3 s at the fake's 15 chars/s


async def test_result_reports_measured_duration_characters_and_echoes() -> None:
    fake = FakeSpeechProvider()
    result = await synthesize(
        {"script": SCRIPT, "voice_id": "en-gb", "model": "eleven_turbo_v2"}, provider=fake
    )
    assert isinstance(result, AudioResult)
    assert result.format == "mp3"
    assert result.content_type == "audio/mpeg"
    assert result.extension == "mp3"
    assert result.characters == result.characters_used == len(SCRIPT)
    assert (result.voice_id, result.model, result.provider) == ("en-gb", "eleven_turbo_v2", "fake")
    assert result.size_bytes == len(result.content)
    assert result.duration_est == result.duration_est_sec == result.duration_seconds
    assert abs(result.duration_seconds - decode(result.content).duration) < 0.06
    assert within(result.duration_seconds, len(SCRIPT) / 15, 0.05)
    assert (result.sample_rate, result.channels) == (44_100, 1)
    assert fake.requests[0].voice_id == "en-gb"


@pytest.mark.parametrize("fmt", list(AUDIO_FORMATS))
async def test_each_format_has_its_content_type_and_encoding(fmt: str) -> None:
    result = await synthesize({"script": SCRIPT, "format": fmt}, provider=FakeSpeechProvider())
    encoding = AUDIO_FORMATS[fmt]
    decoded = decode(result.content)
    assert result.content_type == encoding.content_type
    assert decoded.sample_rate == result.sample_rate == encoding.sample_rate
    assert within(decoded.bit_rate, encoding.bit_rate)
    assert decoded.rms > 1_000


async def test_speed_shortens_the_fakes_audio() -> None:
    fake = FakeSpeechProvider()
    slow = await synthesize({"script": SCRIPT, "speed": 0.7}, provider=fake)
    fast = await synthesize({"script": SCRIPT, "speed": 1.2}, provider=fake)
    assert fast.duration_seconds < slow.duration_seconds


async def test_storage_receives_the_file_under_an_audio_key() -> None:
    storage = MemoryStorage()
    result = await synthesize(
        {"script": SCRIPT, "format": "opus"}, provider=FakeSpeechProvider(), storage=storage
    )
    assert result.key is not None and result.key.startswith("audio/")
    assert result.key.endswith(".opus")
    assert await storage.get(result.key) == result.content
    assert (await storage.head(result.key)).content_type == "audio/ogg"


async def test_a_request_model_is_used_as_is() -> None:
    request = AudioRequest(script="Hi there", format="wav")
    result = await synthesize(request, provider=FakeSpeechProvider())
    assert result.format == "wav"


async def test_invalid_mapping_fails_before_the_provider_is_called() -> None:
    fake = FakeSpeechProvider()
    with pytest.raises(InvalidRequestError) as exc:
        await synthesize({"script": "x" * 5_001}, provider=fake)
    assert [e.field for e in exc.value.errors] == ["script"]
    assert fake.requests == []


async def test_provider_errors_propagate() -> None:
    def fail(request: AudioRequest) -> None:
        raise ProviderUnavailableError("busy", provider="fake")

    with pytest.raises(ProviderUnavailableError):
        await synthesize({"script": "Hi"}, provider=FakeSpeechProvider(fail))


async def test_fake_restricted_to_voices_rejects_others_on_voice_id() -> None:
    fake = FakeSpeechProvider(voices=["en-us"])
    with pytest.raises(InvalidRequestError) as exc:
        await synthesize({"script": "Hi", "voice_id": "de"}, provider=fake)
    assert [e.field for e in exc.value.errors] == ["voice_id"]
    assert [v.voice_id for v in await fake.list_voices()] == ["en-us"]


async def test_fake_is_a_speech_provider_and_closes() -> None:
    fake = FakeSpeechProvider()
    assert isinstance(fake, SpeechProvider)
    await fake.aclose()
    assert fake.closed


async def test_save_writes_the_file(tmp_path: Path) -> None:
    result = await synthesize({"script": "Hi", "format": "wav"}, provider=FakeSpeechProvider())
    path = result.save(tmp_path / "hi.wav")
    assert path.read_bytes() == result.content


async def test_jupyter_shows_an_audio_player_with_a_data_url() -> None:
    result = await synthesize({"script": "Hi"}, provider=FakeSpeechProvider())
    html = result._repr_html_()
    assert html.startswith("<audio controls")
    encoded = html.split("base64,", 1)[1].split('"', 1)[0]
    assert base64.b64decode(encoded) == result.content
    assert "data:audio/mpeg;base64," in html


async def test_repr_leaves_out_the_content() -> None:
    result = await synthesize({"script": "Hi"}, provider=FakeSpeechProvider())
    assert "content" not in repr(result)


class StreamingFake(FakeSpeechProvider):
    """The fake, handing its PCM over in pieces like a streaming engine."""

    name = "streaming-fake"

    def __init__(self, *, fail_after: int | None = None, silent: bool = False) -> None:
        super().__init__()
        self.fail_after = fail_after
        self.silent = silent

    async def stream_pcm(self, request: AudioRequest, sink: PcmSink) -> None:
        audio = await self.synthesize(request)
        data = bytes(len(audio.data)) if self.silent else audio.data
        for index, offset in enumerate(range(0, len(data), 7_777)):
            if self.fail_after is not None and index == self.fail_after:
                raise ProviderUnavailableError("engine died", provider=self.name)
            await sink(attrs.evolve(audio, data=data[offset : offset + 7_777]))


async def test_streaming_providers_are_encoded_while_they_speak() -> None:
    engine = StreamingFake()
    assert isinstance(engine, StreamingSpeechProvider)
    result = await synthesize({"script": SCRIPT, "format": "opus"}, provider=engine)
    decoded = decode(result.content)
    assert decoded.sample_rate == 48_000
    assert within(decoded.duration, len(SCRIPT) / 15, 0.05)
    assert result.provider == "streaming-fake"


async def test_a_stream_failing_midway_raises_the_providers_error() -> None:
    with pytest.raises(ProviderUnavailableError):
        await synthesize({"script": SCRIPT}, provider=StreamingFake(fail_after=3))


async def test_a_silent_stream_is_a_provider_error() -> None:
    with pytest.raises(ProviderError) as exc:
        await synthesize({"script": SCRIPT}, provider=StreamingFake(silent=True))
    assert exc.value.provider == "streaming-fake"
