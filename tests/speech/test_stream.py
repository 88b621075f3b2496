"""synthesize_stream: the encoded file, handed over piece by piece while it is spoken."""

from __future__ import annotations

import io
import time

import anyio
import av
import pytest

from renderkit.core.errors import InvalidRequestError, ProviderError
from renderkit.speech import LocalSpeechProvider, synthesize, synthesize_stream
from renderkit.speech._encode import PcmEncoder
from renderkit.speech._models import AUDIO_FORMATS

from . import needs_espeak
from ._gated import RATE, GatedSpeaker, tone

pytestmark = pytest.mark.anyio

SCRIPT = (
    "Streaming speech starts playing at once. The rest of the text follows, clause by "
    "clause, while the listener hears the first sentence."
)


def _decoded_seconds(content: bytes) -> float:
    with av.open(io.BytesIO(content)) as container:
        stream = container.streams.audio[0]
        samples = sum(frame.samples for frame in container.decode(stream))
        return samples / stream.codec_context.sample_rate


@needs_espeak
@pytest.mark.parametrize("output", ["mp3", "opus", "aac"])
async def test_a_streamed_file_decodes_to_the_duration_of_the_whole_file(output: str) -> None:
    provider = LocalSpeechProvider()
    request = {"script": SCRIPT, "voice_id": "en-us", "format": output}
    pieces: list[bytes] = []
    async with synthesize_stream(request, provider=provider) as audio:
        async for piece in audio:
            pieces.append(piece)
    whole = await synthesize(request, provider=provider)

    streamed = _decoded_seconds(b"".join(pieces))
    assert len(pieces) > 1
    assert streamed == pytest.approx(whole.duration_seconds, rel=0.05)
    assert audio.duration_seconds == pytest.approx(whole.duration_seconds, rel=0.05)
    assert audio.content_type == AUDIO_FORMATS[output].content_type


async def test_the_first_piece_arrives_before_the_engine_has_finished() -> None:
    speaker = GatedSpeaker()
    arrivals: list[float] = []
    async with synthesize_stream(
        {"script": "Two seconds.", "format": "mp3"}, provider=speaker
    ) as audio:
        async for _piece in audio:
            arrivals.append(time.monotonic())
            speaker.go.set()  # only now may the engine say its second second

    assert speaker.finished is not None
    assert arrivals[0] < speaker.finished
    assert arrivals[-1] >= speaker.finished
    assert audio.duration_seconds == pytest.approx(2.0, abs=0.01)


async def test_a_failure_part_way_is_raised_while_iterating_after_the_first_pieces() -> None:
    speaker = GatedSpeaker(gated=False, fail_part_way=True)
    received: list[bytes] = []

    async def listen() -> None:
        request = {"script": "Breaks.", "format": "opus"}
        async with synthesize_stream(request, provider=speaker) as audio:
            async for piece in audio:
                received.append(piece)

    with pytest.raises(ProviderError):
        await listen()
    assert received, "the first second was handed over before the failure"


async def test_leaving_the_block_early_stops_the_engine() -> None:
    speaker = GatedSpeaker()
    with anyio.fail_after(5):
        async with synthesize_stream(
            {"script": "Stop.", "format": "mp3"}, provider=speaker
        ) as audio:
            async for _piece in audio:
                break
    assert speaker.cancelled
    assert speaker.finished is None


async def test_wav_cannot_be_streamed_and_the_error_names_the_format() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        async with synthesize_stream(
            {"script": "Hello.", "format": "wav"}, provider=GatedSpeaker()
        ):
            pass
    assert [error.field for error in caught.value.errors] == ["format"]


async def test_an_engine_without_streaming_is_streamed_once_its_answer_arrives() -> None:
    speaker = GatedSpeaker()

    class Whole:
        name = "whole"
        synthesize = speaker.synthesize
        list_voices = speaker.list_voices
        aclose = speaker.aclose

    pieces: list[bytes] = []
    async with synthesize_stream({"script": "Whole.", "format": "mp3"}, provider=Whole()) as audio:
        async for piece in audio:
            pieces.append(piece)
    assert _decoded_seconds(b"".join(pieces)) == pytest.approx(2.0, rel=0.05)


@pytest.mark.parametrize("output", ["mp3", "opus", "aac"])
def test_a_streaming_encoder_writes_pieces_that_join_into_one_file(output: str) -> None:
    encoder = PcmEncoder(AUDIO_FORMATS[output], sample_rate=RATE, channels=1, stream=True)
    pieces = []
    for _ in range(3):
        encoder.feed(tone(1.0))
        pieces.append(encoder.take())
    pieces.append(encoder.finish())

    assert pieces[1], "a second of audio is written before the end"
    assert _decoded_seconds(b"".join(pieces)) == pytest.approx(3.0, rel=0.05)
