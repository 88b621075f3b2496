"""synthesize_stream: speech handed over as encoded bytes while it is still being spoken.

A streaming engine's PCM goes through one encoder for the whole call (so the pieces
concatenate into one valid file) and each piece leaves as soon as the encoder has written
it: a client plays the first clause while the rest is being synthesised. An engine that only
answers whole files is encoded the same way once its answer arrives.

The engine runs in a task group that belongs to the caller's ``async with`` block rather
than to an async generator: a generator suspended at ``yield`` and finalised elsewhere would
leave the group's cancel scope in the wrong task.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import anyio.to_thread
import attrs
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from renderkit.core.converter import structure
from renderkit.core.errors import InvalidRequestError, ProviderError, RenderkitError
from renderkit.core.workers import WorkerPool, usable_cpus
from renderkit.speech._encode import STREAMABLE_FORMATS, PcmEncoder, decode_pcm
from renderkit.speech._models import AUDIO_FORMATS, AudioEncoding, AudioRequest
from renderkit.speech._protocol import SpeechAudio, SpeechProvider, StreamingSpeechProvider
from renderkit.speech.router import SpeechRouter, default_speech_provider

__all__ = ["AudioStream", "synthesize_stream"]

# An encoder's output is handed on once at least this much has gathered (or the input
# ended): small enough for the first clause to leave at once, large enough that a long
# script is not thousands of tiny sends.
_MIN_PIECE_BYTES = 2_048


@attrs.define(kw_only=True, eq=False)
class AudioStream:
    """The encoded file of one :func:`synthesize_stream` call, as it is produced.

    Iterate it (``async for piece in stream``) for the file's bytes in order; their
    concatenation is one valid file. Iteration raises the call's error if the engine or the
    encoder fails part-way; what was already received is then an incomplete file.

    Attributes:
        format: the requested output format.
        encoding: how it is encoded (codec, sample rate, MIME type as ``content_type``).
        duration_seconds: the audio's playing time, known once iteration has ended (0
            before).
        provider: the engine's short name.
    """

    format: str
    encoding: AudioEncoding
    provider: str
    duration_seconds: float = 0.0
    _pieces: MemoryObjectReceiveStream[bytes | RenderkitError] = attrs.field(
        alias="pieces", repr=False
    )

    @property
    def content_type(self) -> str:
        """The file's MIME type."""
        return self.encoding.content_type

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for piece in self._pieces:
            if isinstance(piece, RenderkitError):
                raise piece
            yield piece


@contextlib.asynccontextmanager
async def synthesize_stream(
    request: AudioRequest | Mapping[str, Any],
    *,
    provider: SpeechProvider | None = None,
    workers: WorkerPool | None = None,
) -> AsyncIterator[AudioStream]:
    """Speak a script, handing the encoded file over piece by piece as it is made::

        async with synthesize_stream({"script": text, "format": "mp3"}, provider=p) as audio:
            async for piece in audio:
                player.feed(piece)

    The engine starts when the block is entered and is stopped (its model calls aborted,
    espeak-ng killed) if the block is left before the end.

    Args:
        request: as for :func:`~renderkit.speech.synthesize`; ``format`` must be one of
            ``mp3``, ``opus``, ``ogg`` or ``aac`` (a WAV header needs the size up front).
        provider: the speech engine, as for :func:`~renderkit.speech.synthesize`.
        workers: the pool the encoder runs in: the call holds one worker from the first PCM
            to the end. None: a pool of this call's own.

    Yields:
        The :class:`AudioStream`. MP3 is written without a Xing header (constant bit rate:
        players compute the duration from the size); Ogg pages close every 100 ms.

    Raises:
        InvalidRequestError: a field is invalid (``format`` ``wav`` included), or the
            provider refused one; raised on entering the block.
        ProviderError, ProviderUnavailableError, RenderError, MissingDependencyError,
        WorkersBusyError: raised while iterating, as :func:`~renderkit.speech.synthesize`
            raises them.
    """
    req = request if isinstance(request, AudioRequest) else structure(request, AudioRequest)
    if req.format not in STREAMABLE_FORMATS:
        msg = f"{req.format} cannot be streamed; ask for one of {', '.join(STREAMABLE_FORMATS)}"
        raise InvalidRequestError.single("format", msg)
    if provider is None:
        owned = default_speech_provider()
        try:
            async with synthesize_stream(req, provider=owned, workers=workers) as stream:
                yield stream
        finally:
            await owned.aclose()
        return
    engine: SpeechProvider = provider
    if isinstance(engine, SpeechRouter):
        engine = engine.engine_for(req)
    pool = workers if workers is not None else WorkerPool(name="audio", max_workers=usable_cpus())
    send, receive = anyio.create_memory_object_stream[bytes | RenderkitError](
        max_buffer_size=math.inf
    )
    stream = AudioStream(
        format=req.format, encoding=AUDIO_FORMATS[req.format], provider=engine.name, pieces=receive
    )
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_produce, engine, req, pool, stream, send)
            try:
                yield stream
            finally:
                # Left early (or after the end, when this is a no-op): stop the engine.
                tasks.cancel_scope.cancel()
                receive.close()
    except BaseExceptionGroup as group:
        # The reader's own error (or the one iteration raised) comes out as itself.
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


async def _produce(
    engine: SpeechProvider,
    request: AudioRequest,
    pool: WorkerPool,
    stream: AudioStream,
    send: MemoryObjectSendStream[bytes | RenderkitError],
) -> None:
    """Speak and encode into ``send``; a library error is handed to the reader, not raised."""
    encoders: list[PcmEncoder] = []
    pending = bytearray()

    async def encode(chunk: SpeechAudio) -> None:
        if not encoders:
            start = functools.partial(
                PcmEncoder,
                AUDIO_FORMATS[request.format],
                sample_rate=chunk.sample_rate,
                channels=chunk.channels,
                stream=True,
            )
            encoders.append(await anyio.to_thread.run_sync(start))
        encoder = encoders[0]
        pending.extend(await anyio.to_thread.run_sync(_feed, encoder, chunk.data))
        if len(pending) >= _MIN_PIECE_BYTES:
            await send.send(bytes(pending))
            pending.clear()

    async with send:
        try:
            async with pool.slot():
                if isinstance(engine, StreamingSpeechProvider):
                    await engine.stream_pcm(request, encode)
                else:
                    audio = await engine.synthesize(request)
                    if audio.encoding != "pcm":
                        audio = await anyio.to_thread.run_sync(
                            functools.partial(decode_pcm, audio.data, provider=engine.name)
                        )
                    await encode(audio)
                if not encoders or not encoders[0].audible:
                    msg = "the speech provider returned no audible audio"
                    raise ProviderError(msg, provider=engine.name)
                pending.extend(await anyio.to_thread.run_sync(encoders[0].finish))
            stream.duration_seconds = encoders[0].duration_seconds
            if pending:
                await send.send(bytes(pending))
        except RenderkitError as exc:
            for encoder in encoders:
                encoder.close()
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await send.send(exc)
        except BaseException:
            for encoder in encoders:
                encoder.close()
            raise


def _feed(encoder: PcmEncoder, pcm: bytes) -> bytes:
    encoder.feed(pcm)
    return encoder.take()
