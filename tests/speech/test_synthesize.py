"""synthesize() over the in-memory FakeSpeechProvider: result facts, storage, failures."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import attrs
import pytest

import renderkit.speech._synthesize
from renderkit import InvalidRequestError, ProviderError, ProviderUnavailableError
from renderkit.speech import SpeechProvider
from renderkit.speech._encode import Mp3Part
from renderkit.speech._models import AUDIO_FORMATS, AudioRequest, AudioResult
from renderkit.speech._protocol import PcmSink, StreamingSpeechProvider
from renderkit.speech._synthesize import synthesize
from renderkit.storage import MemoryStorage
from renderkit.testing._fake_speech import FakeSpeechProvider

from . import decode, decoded_samples, within

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


async def test_long_mp3_is_encoded_in_parallel_parts_into_one_continuous_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(renderkit.speech._synthesize, "_encoders", lambda: 2)
    parts: list[int] = []
    encode_part = renderkit.speech._synthesize.encode_mp3_part

    def counting(part: Mp3Part) -> list[Any]:
        parts.append(part.index)
        return encode_part(part)

    monkeypatch.setattr(renderkit.speech._synthesize, "encode_mp3_part", counting)
    engine = StreamingFake()
    script = "Welcome to renderkit. " * 30  # 660 characters: 44 s at the fake's 15 a second
    result = await synthesize({"script": script, "format": "mp3"}, provider=engine)
    assert sorted(parts) == [0, 1, 2, 3]  # 44 s / (2 x 2 encoders) = 11 s parts
    pcm = await engine.synthesize(AudioRequest(script=script))
    samples, problems = decoded_samples(result.content)
    assert problems == []
    # As many samples as the engine's audio at 44.1 kHz: no gap or overlap at the joins.
    assert abs(len(samples) / 44_100 - pcm.pcm_duration) < 0.001
    assert abs(result.duration_seconds - pcm.pcm_duration) < 0.002
    decoded = decode(result.content)
    assert (decoded.codec, decoded.sample_rate, decoded.channels) == ("mp3", 44_100, 1)
    assert within(decoded.bit_rate, 128_000, 0.02)


async def test_one_cpu_encodes_mp3_in_one_part(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(renderkit.speech._synthesize, "_encoders", lambda: 1)
    result = await synthesize({"script": SCRIPT * 3, "format": "mp3"}, provider=StreamingFake())
    assert abs(result.duration_seconds - decode(result.content).duration) < 0.001
