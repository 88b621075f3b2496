"""The Kokoro engine: voices, routing by voice id, streamed sentences, joins, and intelligibility.

The model tests share one provider (one onnxruntime session) and keep their scripts short:
the whole module stays within a minute on a busy two-core machine.
"""

from __future__ import annotations

import time
from array import array

import anyio
import attrs
import pytest

from renderkit import InvalidRequestError
from renderkit.speech import (
    AUDIO_FORMATS,
    DEFAULT_VOICE_ID,
    ElevenLabsProvider,
    KokoroSpeechProvider,
    LocalSpeechProvider,
    SpeechAudio,
    SpeechProvider,
    SpeechRouter,
    synthesize,
)
from renderkit.speech._kokoro_text import Chunk, Clause, split_clauses
from renderkit.speech._models import AudioRequest, AudioResult
from renderkit.speech._protocol import PcmSink, StreamingSpeechProvider, Voice
from renderkit.speech.kokoro import KOKORO_SAMPLE_RATE, KOKORO_VOICES, join_chunk

from . import decode, decoded_samples, needs_espeak, needs_kokoro
from ._wer import transcribe, word_error_rate

pytestmark = pytest.mark.anyio

THREE_SENTENCES = "Good morning. The train leaves at noon. Please be on time."

# Written for this test: common words pocketsphinx's US English model knows, commas and full
# stops for the engine's clause and sentence handling, about 15 seconds of speech.
PARAGRAPH = (
    "The weather today is mild, with a light breeze from the west and clear skies by "
    "evening. Please remember to water the garden, feed the cat, and lock the front door "
    "before you leave. Thank you for listening, and have a pleasant afternoon."
)


def request(**fields: object) -> AudioRequest:
    return AudioRequest(**{"script": "Hello there.", "voice_id": "af_heart", **fields})  # type: ignore[arg-type]


def samples(data: bytes) -> array[int]:
    out = array("h")
    out.frombytes(data)
    return out


@pytest.fixture(scope="module")
def kokoro() -> KokoroSpeechProvider:
    return KokoroSpeechProvider()


@attrs.frozen(kw_only=True)
class Spoken:
    """One synthesis of THREE_SENTENCES to MP3, and the PCM chunks streamed on the way."""

    result: AudioResult
    chunks: list[SpeechAudio]
    arrived: list[float]


class Recording:
    """Kokoro, noting each chunk it streams (and when) on its way to the encoder."""

    name = "kokoro"

    def __init__(self, engine: KokoroSpeechProvider) -> None:
        self.engine = engine
        self.chunks: list[SpeechAudio] = []
        self.arrived: list[float] = []

    async def stream_pcm(self, request: AudioRequest, sink: PcmSink) -> None:
        async def record(chunk: SpeechAudio) -> None:
            self.chunks.append(chunk)
            self.arrived.append(time.monotonic())
            await sink(chunk)

        await self.engine.stream_pcm(request, record)

    async def synthesize(self, request: AudioRequest) -> SpeechAudio:
        return await self.engine.synthesize(request)

    async def list_voices(self) -> list[Voice]:
        return await self.engine.list_voices()

    async def aclose(self) -> None:
        pass


@pytest.fixture(scope="module")
async def three_sentences(kokoro: KokoroSpeechProvider, anyio_backend: str) -> Spoken:
    # Async, on the session's shared event loop: anyio.run would fail once that loop runs.
    recording = Recording(kokoro)
    mp3 = request(script=THREE_SENTENCES, format="mp3")
    result = await synthesize(mp3, provider=recording)
    return Spoken(result=result, chunks=recording.chunks, arrived=recording.arrived)


# --- voices and routing (no model needed) ----------------------------------------------------


async def test_voices_carry_language_and_gender_from_their_prefix() -> None:
    voices = {v.voice_id: v for v in await KokoroSpeechProvider().list_voices()}
    assert (voices["af_heart"].language, voices["af_heart"].gender) == ("en-us", "female")
    assert (voices["am_michael"].language, voices["am_michael"].gender) == ("en-us", "male")
    assert (voices["bf_emma"].language, voices["bf_emma"].gender) == ("en-gb", "female")
    assert (voices["bm_george"].name, voices["bm_george"].gender) == ("George", "male")
    assert DEFAULT_VOICE_ID in voices  # premade ids are offered too
    assert len(KOKORO_VOICES) == 28


def test_provider_satisfies_the_streaming_protocol() -> None:
    assert isinstance(KokoroSpeechProvider(), StreamingSpeechProvider)
    assert isinstance(SpeechRouter(LocalSpeechProvider()), SpeechProvider)


@pytest.mark.parametrize("voice_id", ["en-us", "nobody", "af_nobody"])
async def test_ids_that_are_not_kokoro_voices_are_invalid_on_voice_id(voice_id: str) -> None:
    with pytest.raises(InvalidRequestError) as exc:
        await KokoroSpeechProvider().synthesize(request(voice_id=voice_id))
    assert [e.field for e in exc.value.errors] == ["voice_id"]


def test_the_voice_id_picks_the_engine_and_premade_ids_use_the_default() -> None:
    espeak, kokoro = LocalSpeechProvider(), KokoroSpeechProvider()
    by_espeak = SpeechRouter(espeak, espeak=espeak, kokoro=kokoro)
    by_kokoro = SpeechRouter(kokoro, espeak=espeak, kokoro=kokoro)
    for router in (by_espeak, by_kokoro):
        assert router.engine_for(request(voice_id="bm_george")) is kokoro
        assert router.engine_for(request(voice_id="en-gb+m3")) is espeak
    assert by_espeak.engine_for(request(voice_id=DEFAULT_VOICE_ID)) is espeak
    assert by_kokoro.engine_for(request(voice_id=DEFAULT_VOICE_ID)) is kokoro


def test_with_elevenlabs_only_kokoro_voices_leave_it() -> None:
    espeak, kokoro = LocalSpeechProvider(), KokoroSpeechProvider()
    eleven = ElevenLabsProvider("key")
    router = SpeechRouter(eleven, espeak=espeak, kokoro=kokoro)
    assert router.engine_for(request(voice_id="af_heart")) is kokoro
    assert router.engine_for(request(voice_id="AZnzlk1XvdvUeBnXmlld")) is eleven
    assert router.engine_for(request(voice_id="someClonedVoice123")) is eleven


def test_a_kokoro_voice_without_kokoro_is_invalid_on_voice_id() -> None:
    espeak = LocalSpeechProvider()
    with pytest.raises(InvalidRequestError) as exc:
        SpeechRouter(espeak, espeak=espeak).engine_for(request(voice_id="af_heart"))
    assert [e.field for e in exc.value.errors] == ["voice_id"]


def test_chunk_edges_are_trimmed_to_a_margin_and_faded_to_silence() -> None:
    import numpy as np

    rate = KOKORO_SAMPLE_RATE
    tone = 0.5 * np.sin(np.arange(rate) * 2 * np.pi * 440 / rate)
    audio = np.concatenate([np.zeros(rate // 2), tone, np.zeros(rate // 2)]).astype(np.float32)
    pcm = samples(join_chunk(audio))
    assert abs(len(pcm) - (rate + 2 * 0.03 * rate)) <= 2  # 0.5 s of silence each side -> 30 ms
    assert pcm[0] == 0 and abs(pcm[-1]) < 100
    assert max(abs(s) for s in pcm) > 16_000


# --- the model ---------------------------------------------------------------------------------


@needs_kokoro
async def test_streamed_sentences_arrive_in_order_one_by_one(
    three_sentences: Spoken,
) -> None:
    chunks, arrived = three_sentences.chunks, three_sentences.arrived
    assert len(chunks) == 3
    assert {(c.sample_rate, c.channels) for c in chunks} == {(24_000, 1)}
    assert arrived == sorted(arrived)
    first, *_, last = (len(c.data) / 48_000 for c in chunks)
    assert 0.4 < first < 2.5  # "Good morning." alone, not the whole script
    assert 0.8 < last < 4


@needs_kokoro
async def test_sentences_are_joined_by_a_silent_pause_without_clicks(
    three_sentences: Spoken,
) -> None:
    chunks = three_sentences.chunks
    pause = round(0.3 * 24_000)
    for chunk in chunks[1:]:
        pcm = samples(chunk.data)
        assert set(pcm[:pause]) == {0}  # the pause is digital silence
        assert pcm[pause] == 0  # then speech fades in from zero
        assert max(abs(s) for s in pcm[pause : pause + 24]) < 2_000
    for chunk in chunks:
        pcm = samples(chunk.data)
        assert max(abs(s) for s in pcm[-24:]) < 2_000  # and fades out
        assert max(abs(s) for s in pcm) > 3_000  # speech, not silence


@needs_kokoro
async def test_a_multi_sentence_mp3_has_exactly_the_spoken_samples(
    three_sentences: Spoken,
) -> None:
    seconds = sum(len(c.data) for c in three_sentences.chunks) / 48_000
    result = three_sentences.result
    decoded, problems = decoded_samples(result.content)
    assert problems == []
    assert abs(len(decoded) / 44_100 - seconds) < 0.001
    assert abs(result.duration_seconds - seconds) < 0.002
    assert result.provider == "kokoro"


@needs_kokoro
@pytest.mark.parametrize("fmt", ["wav", "opus", "aac"])
async def test_other_formats_decode_with_the_specified_encoding(
    kokoro: KokoroSpeechProvider, fmt: str
) -> None:
    result = await synthesize(request(script="Hi.", format=fmt), provider=kokoro)
    decoded = decode(result.content)
    assert (decoded.sample_rate, decoded.channels) == (AUDIO_FORMATS[fmt].sample_rate, 1)
    assert 0.2 < decoded.duration < 2
    assert abs(result.duration_seconds - decoded.duration) < 0.06
    assert decoded.rms > 300


@needs_kokoro
async def test_faster_speed_gives_shorter_audio(kokoro: KokoroSpeechProvider) -> None:
    slow = await kokoro.synthesize(request(script="See you.", speed=0.7))
    fast = await kokoro.synthesize(request(script="See you.", speed=1.2))
    assert fast.pcm_duration < 0.75 * slow.pcm_duration


@needs_kokoro
async def test_stability_similarity_and_style_are_accepted_and_change_nothing(
    kokoro: KokoroSpeechProvider,
) -> None:
    plain = await kokoro.synthesize(request(script="Hi."))
    tuned = await kokoro.synthesize(
        request(script="Hi.", stability=0.0, similarity=0.0, style=1.0, model="eleven_turbo_v2")
    )
    assert tuned.data == plain.data


@needs_kokoro
@needs_espeak
async def test_kokoro_is_understood_far_better_than_espeak(kokoro: KokoroSpeechProvider) -> None:
    neural = await synthesize(
        {"script": PARAGRAPH, "format": "wav", "voice_id": DEFAULT_VOICE_ID}, provider=kokoro
    )
    formant = await synthesize(
        {"script": PARAGRAPH, "format": "wav"}, provider=LocalSpeechProvider()
    )
    assert (neural.sample_rate, formant.sample_rate) == (44_100, 44_100)
    assert 9 < neural.duration_seconds < 25 and 9 < formant.duration_seconds < 25
    kokoro_wer = word_error_rate(
        PARAGRAPH, await anyio.to_thread.run_sync(transcribe, neural.content)
    )
    espeak_wer = word_error_rate(
        PARAGRAPH, await anyio.to_thread.run_sync(transcribe, formant.content)
    )
    assert kokoro_wer <= 0.15, kokoro_wer
    assert kokoro_wer < espeak_wer, (kokoro_wer, espeak_wer)


class Watched(KokoroSpeechProvider):
    """Kokoro noting, for each model call, whether it ran on the wide session."""

    def __init__(self) -> None:
        super().__init__(threads=2, parallel=2)
        self.calls: list[bool] = []

    def _enter(self, *, opening: bool) -> object:
        session = super()._enter(opening=opening)
        self.calls.append(session is self._wide)
        return session


@needs_kokoro
async def test_the_opening_runs_alone_on_every_thread_and_overlapping_calls_on_one() -> None:
    kokoro = Watched()
    pieces: list[float] = []

    async def sink(chunk: SpeechAudio) -> None:
        pieces.append(len(chunk.data) / 48_000)

    await kokoro.stream_pcm(request(script=PARAGRAPH), sink)

    assert kokoro.calls[0] is True  # the opening: alone, wide
    assert not any(kokoro.calls[1:])  # the rest overlap: each on one thread
    assert kokoro._running == 0
    assert pieces[0] < 3.0  # "The weather today is mild," not the whole first sentence
    one = KokoroSpeechProvider(threads=1)
    assert one._enter(opening=True) is one._session and one._wide is None
    one._leave()


class Planning(KokoroSpeechProvider):
    """Kokoro noting how many clauses each phonemizing run covers, and when."""

    def __init__(self) -> None:
        super().__init__()
        self.plans: list[tuple[int, float]] = []
        self.planned: list[str] = []  # the text of each run

    def _plan(self, clauses: list[Clause], language: str) -> list[Chunk]:
        chunks = super()._plan(clauses, language)
        self.plans.append((len(clauses), time.monotonic()))
        self.planned.append(" ".join(c.text for c in clauses))
        return chunks


class Heard(Exception):
    """Raised by the test's sink once the first audio has arrived."""


@needs_kokoro
async def test_a_long_script_speaks_its_opening_before_the_rest_is_phonemized_with_it() -> None:
    kokoro = Planning()
    script = PARAGRAPH * 8  # about 1,900 characters
    heard: list[float] = []

    async def sink(chunk: SpeechAudio) -> None:
        heard.append(time.monotonic())
        raise Heard

    with pytest.raises(Heard):
        await kokoro.stream_pcm(request(script=script), sink)

    total = len(split_clauses(script))
    (opening, _), *rest = kokoro.plans
    assert opening < total / 4  # the opening alone went first
    assert sum(n for n, _ in rest) in (0, total - opening)  # the rest, if planned by then


@needs_kokoro
async def test_an_unpunctuated_script_starts_with_a_short_piece_of_a_bounded_opening() -> None:
    kokoro = Planning()
    script = " ".join(["the garden gate was open and the dog ran out into the lane"] * 80)
    first: list[float] = []

    async def sink(chunk: SpeechAudio) -> None:
        first.append(len(chunk.data) / 48_000)
        raise Heard

    with pytest.raises(Heard):
        await kokoro.stream_pcm(request(script=script), sink)

    assert len(script) > 4_700 and len(split_clauses(script)) == 1
    assert 300 <= len(kokoro.planned[0]) <= 600  # not the whole 4,700 characters first
    assert script.startswith(kokoro.planned[0] + " ")
    assert 0.5 < first[0] < 3.5  # a few words (at most 40 tokens), not a whole opening


@needs_kokoro
async def test_warming_up_runs_both_sessions_once_before_any_request() -> None:
    kokoro = Watched()

    await kokoro.warm_up()

    assert kokoro._session is not None and kokoro._wide is not None
    assert "af_heart" in kokoro._styles
    assert (kokoro.calls, kokoro._running) == ([], 0)  # no request's model call
    narrow, wide = kokoro._session, kokoro._wide
    await kokoro.synthesize(request(script="Hi."))
    assert (kokoro._session, kokoro._wide) == (narrow, wide)  # the request used them
    with pytest.raises(InvalidRequestError):
        await KokoroSpeechProvider().warm_up("xx_nobody")
