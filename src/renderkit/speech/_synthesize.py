"""synthesize: a script to speech in mp3, wav, opus (alias ogg) or aac."""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from typing import Any

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream

from renderkit.core.converter import structure
from renderkit.core.errors import ProviderError
from renderkit.core.workers import WorkerPool, usable_cpus
from renderkit.speech._encode import (
    EncodedAudio,
    Mp3Part,
    Mp3Splitter,
    PcmEncoder,
    encode,
    encode_mp3_part,
    join_mp3_parts,
    probe,
)
from renderkit.speech._models import AUDIO_FORMATS, AudioRequest, AudioResult
from renderkit.speech._protocol import PcmSink, SpeechAudio, SpeechProvider, StreamingSpeechProvider
from renderkit.speech.router import SpeechRouter, default_speech_provider
from renderkit.storage import Storage
from renderkit.storage.files import attach_storage

__all__ = ["synthesize"]

# MP3 is encoded in parts by parallel LAME encoders (one per CPU, at most this many), each
# part about 1 / (_PARTS_PER_ENCODER x encoders) of the expected audio, within these bounds:
# small enough that the first part starts while the engine is still speaking and the work
# spreads evenly, large enough that each part's 6 warm-up frames (0.16 s) stay negligible.
_MAX_ENCODERS = 8
_PARTS_PER_ENCODER = 2
_PART_SECONDS = (4.0, 20.0)


async def synthesize(
    request: AudioRequest | Mapping[str, Any],
    *,
    provider: SpeechProvider | None = None,
    storage: Storage | None = None,
    workers: WorkerPool | None = None,
) -> AudioResult:
    """Speak a script and encode it in the requested format.

    Args:
        request: an :class:`AudioRequest`, or a JSON-like mapping in the shape of the HTTP
            API body (``similarity_boost`` is accepted for ``similarity``).
        provider: the speech engine. A :class:`~renderkit.speech.SpeechRouter` picks the
            engine by ``voice_id``; when omitted, :func:`~renderkit.speech.
            default_speech_provider` does (espeak-ng, and Kokoro when installed), for this
            call only. Reuse one provider across calls.
        storage: when given, the file is stored there and the result carries its key and URL.
        workers: the pool encoding runs in. A call holds one worker while it encodes (from
            the first PCM of a streaming provider, so while it speaks too) and MP3 parts
            borrow any other worker that is idle with nobody queued. None: a pool of this
            call's own, one worker per CPU (at most 8).

    Returns:
        The encoded file (mp3 128 kbps 44.1 kHz, wav 16-bit 44.1 kHz, Ogg Opus 96 kbps
        48 kHz or ADTS AAC 128 kbps 44.1 kHz; mono) with its duration measured from the
        file, the character count and the echoed voice and model.

    Raises:
        InvalidRequestError: a field is missing or invalid, or the provider refused one
            (e.g. an unknown ``voice_id``); the error names the field.
        ProviderError: the provider failed, refused the call or returned no audio.
        ProviderUnavailableError: the provider timed out, or is unreachable or overloaded.
        RenderError: the audio could not be encoded.
        MissingDependencyError: PyAV or the provider's engine is not installed.
        StorageError: storing the file failed.
        WorkersBusyError: every encoding worker is busy and the pool's queue is full.
    """
    req = request if isinstance(request, AudioRequest) else structure(request, AudioRequest)
    if provider is None:
        # One call's own engines, closed after it (a Kokoro model is freed again).
        owned = default_speech_provider()
        try:
            return await synthesize(req, provider=owned, storage=storage, workers=workers)
        finally:
            await owned.aclose()
    engine: SpeechProvider = provider
    if isinstance(engine, SpeechRouter):
        engine = engine.engine_for(req)  # speak (and stream) with the voice's own engine
    pool = workers if workers is not None else WorkerPool(name="audio", max_workers=_encoders())
    if isinstance(engine, StreamingSpeechProvider):
        # Encoding overlaps speaking, so the worker is held from the start.
        async with pool.slot():
            if req.format == "mp3":
                encoded = await _encode_mp3_in_parts(
                    engine.stream_pcm, req, provider=engine.name, pool=pool
                )
            else:
                encoded = await _encode_while_speaking(engine, req)
    else:
        audio = await engine.synthesize(req)  # a remote engine's wait holds no worker
        async with pool.slot():
            if audio.encoding == "pcm" and req.format == "mp3":

                async def whole(request: AudioRequest, sink: PcmSink) -> None:
                    await sink(audio)

                encoded = await _encode_mp3_in_parts(whole, req, provider=engine.name, pool=pool)
            else:
                encoded = await anyio.to_thread.run_sync(
                    lambda: encode(audio, req.format, provider=engine.name)
                )
    info = encoded.info
    result = AudioResult(
        content=encoded.content,
        format=req.format,
        duration_seconds=round(info.duration_seconds, 3),
        characters=req.characters,
        voice_id=req.voice_id,
        model=req.model,
        sample_rate=info.sample_rate,
        channels=info.channels,
        provider=engine.name,
        filename=req.suggested_filename,
    )
    return await attach_storage(result, storage, kind="audio")


async def _encode_while_speaking(
    engine: StreamingSpeechProvider, request: AudioRequest
) -> EncodedAudio:
    """Encode PCM in a worker thread as the engine produces it (the two overlap)."""
    encoders: list[PcmEncoder] = []

    async def consume(receive: MemoryObjectReceiveStream[SpeechAudio], tasks: TaskGroup) -> None:
        async for chunk, pcm in _batches(receive):
            if not encoders:
                start = functools.partial(
                    PcmEncoder,
                    request.encoding,
                    sample_rate=chunk.sample_rate,
                    channels=chunk.channels,
                )
                encoders.append(await anyio.to_thread.run_sync(start))
            await anyio.to_thread.run_sync(encoders[0].feed, pcm)

    try:
        await _speak_into(engine.stream_pcm, request, consume)
        if not encoders or not encoders[0].audible:
            msg = "the speech provider returned no audible audio"
            raise ProviderError(msg, provider=engine.name)
    except BaseException:
        for encoder in encoders:
            encoder.close()
        raise
    content = await anyio.to_thread.run_sync(encoders[0].finish)
    info = await anyio.to_thread.run_sync(probe, content)
    return EncodedAudio(content=content, encoding=encoders[0].encoding, info=info)


async def _speak_into(
    stream_pcm: Callable[[AudioRequest, PcmSink], Awaitable[None]],
    request: AudioRequest,
    consume: Callable[
        [MemoryObjectReceiveStream[SpeechAudio], TaskGroup], Coroutine[Any, Any, None]
    ],
) -> None:
    """Run the engine and a consumer of its PCM side by side; a lone failure raises as itself."""
    send, receive = anyio.create_memory_object_stream[SpeechAudio](max_buffer_size=math.inf)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(consume, receive, tasks)
            async with send:
                await stream_pcm(request, send.send)
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


async def _batches(
    receive: MemoryObjectReceiveStream[SpeechAudio],
) -> AsyncIterator[tuple[SpeechAudio, bytes]]:
    """Each chunk with the PCM of every chunk already waiting behind it: a few large batches
    cost far less than one thread hop per pipe read."""
    async with receive:
        async for chunk in receive:
            parts = [chunk.data]
            with contextlib.suppress(anyio.WouldBlock, anyio.EndOfStream):
                while True:
                    parts.append(receive.receive_nowait().data)
            yield chunk, b"".join(parts)


def _encoders() -> int:
    """LAME encoders to run at once: the CPUs this process may use, at most _MAX_ENCODERS."""
    return min(usable_cpus(), _MAX_ENCODERS)


async def _encode_mp3_in_parts(
    stream_pcm: Callable[[AudioRequest, PcmSink], Awaitable[None]],
    request: AudioRequest,
    *,
    provider: str,
    pool: WorkerPool,
) -> EncodedAudio:
    """MP3: cut the PCM into parts as it arrives and encode them in parallel threads.

    LAME is single-threaded and costs far more CPU than the engine (about 0.7 s for a
    minute of speech); parts encoded by separate encoders at once (PyAV releases the GIL
    while encoding) and joined frame by frame make one continuous file (see Mp3Splitter).

    The caller holds one of ``pool``'s workers: one part at a time uses it, and a part that
    finds another worker idle (nobody queued) borrows it, so a call never waits in the
    queue twice and never takes more than the pool leaves idle.
    """
    encoders = min(_encoders(), pool.max_workers)
    low, high = _PART_SECONDS
    seconds = min(high, max(low, request.estimated_seconds / (_PARTS_PER_ENCODER * encoders)))
    own = anyio.Lock()  # the call's own worker
    splitters: list[Mp3Splitter] = []
    encoded: dict[int, list[Any]] = {}

    async def encode_part(part: Mp3Part) -> None:
        if pool.try_acquire():
            try:
                encoded[part.index] = await anyio.to_thread.run_sync(encode_mp3_part, part)
            finally:
                pool.release()
            return
        async with own:
            encoded[part.index] = await anyio.to_thread.run_sync(encode_mp3_part, part)

    async def split(receive: MemoryObjectReceiveStream[SpeechAudio], tasks: TaskGroup) -> None:
        async for chunk, pcm in _batches(receive):
            if not splitters:
                splitters.append(
                    Mp3Splitter(
                        sample_rate=chunk.sample_rate,
                        channels=chunk.channels,
                        part_seconds=seconds if encoders > 1 else None,
                    )
                )
            for part in await anyio.to_thread.run_sync(splitters[0].feed, pcm):
                tasks.start_soon(encode_part, part)
        if splitters and splitters[0].audible:
            tasks.start_soon(encode_part, await anyio.to_thread.run_sync(splitters[0].finish))

    await _speak_into(stream_pcm, request, split)
    if not splitters or not splitters[0].audible:
        msg = "the speech provider returned no audible audio"
        raise ProviderError(msg, provider=provider)
    parts = [encoded[index] for index in range(len(encoded))]
    content = await anyio.to_thread.run_sync(join_mp3_parts, parts)
    info = await anyio.to_thread.run_sync(probe, content)
    return EncodedAudio(content=content, encoding=AUDIO_FORMATS["mp3"], info=info)
