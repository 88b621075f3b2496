"""What :func:`renderkit.synthesize` needs from a speech engine, as one small protocol."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

import attrs

from renderkit.speech._models import AudioRequest

__all__ = ["PcmSink", "SpeechAudio", "SpeechProvider", "StreamingSpeechProvider", "Voice"]


@attrs.frozen(kw_only=True)
class SpeechAudio:
    """Audio as a provider returns it: raw PCM, or a file in one of the output formats.

    renderkit encodes PCM into the requested format itself; an encoded file whose codec,
    sample rate and bit rate already match the requested encoding is passed through, and
    any other file is decoded and re-encoded.

    Attributes:
        data: signed 16-bit little-endian samples, channels interleaved, when
            ``encoding`` is ``"pcm"``; otherwise the encoded file.
        encoding: ``"pcm"``, or the output format the file is in (``mp3``, ``wav``,
            ``opus``, ``ogg``, ``aac``).
        sample_rate: samples per second (of the PCM, or of the file).
        channels: 1 (mono) or 2 (stereo, downmixed to mono on encoding).
    """

    data: bytes = attrs.field(repr=False)
    encoding: str = "pcm"
    sample_rate: int
    channels: int = 1

    @property
    def pcm_duration(self) -> float:
        """Duration of PCM data in seconds (0 for an encoded file)."""
        if self.encoding != "pcm":
            return 0.0
        return len(self.data) / (2 * self.channels * self.sample_rate)


@attrs.frozen(kw_only=True)
class Voice:
    """One voice a provider offers.

    Attributes:
        voice_id: the id to send as ``voice_id``.
        name: a human-readable name.
        language: language tag, when known (``en-us``).
        gender: ``female``/``male``, when known.
        description: anything else worth showing (accent, variant, category).
    """

    voice_id: str
    name: str
    language: str | None = None
    gender: str | None = None
    description: str | None = None


@runtime_checkable
class SpeechProvider(Protocol):
    """A text-to-speech engine.

    :class:`renderkit.speech.LocalSpeechProvider` (espeak-ng, offline) and
    :class:`renderkit.speech.ElevenLabsProvider` are the real implementations;
    :class:`renderkit.testing.FakeSpeechProvider` is an in-memory one for tests.
    """

    #: Short name reported in results (``local``, ``elevenlabs``).
    name: str

    async def synthesize(self, request: AudioRequest) -> SpeechAudio:
        """Speak ``request.script`` with the request's voice and settings.

        ``request.format`` is a hint: a provider that can produce that encoding natively may
        return it; PCM is always acceptable.

        Raises:
            InvalidRequestError: the provider refused a field (e.g. an unknown ``voice_id``).
            ProviderError: the provider failed or refused the call (bad credentials...).
            ProviderUnavailableError: the provider is unreachable or overloaded after
                retries, or timed out.
            MissingDependencyError: the engine is not installed.
        """
        ...

    async def list_voices(self) -> list[Voice]:
        """The voices this provider accepts as ``voice_id``.

        Raises:
            ProviderError: the list could not be fetched.
        """
        ...

    async def aclose(self) -> None:
        """Release connections or processes; the provider is unusable afterwards."""
        ...


#: Receives PCM chunks (``SpeechAudio`` with ``encoding="pcm"``) as an engine produces them.
PcmSink = Callable[[SpeechAudio], Awaitable[None]]


@runtime_checkable
class StreamingSpeechProvider(SpeechProvider, Protocol):
    """A provider that can also hand over PCM while it is still speaking.

    :func:`renderkit.synthesize` prefers this method when present: encoding then runs in a
    worker thread while the engine is still producing audio, instead of after it.
    """

    async def stream_pcm(self, request: AudioRequest, sink: PcmSink) -> None:
        """Speak ``request.script``, awaiting ``sink`` with each PCM chunk in order.

        Every chunk has the same sample rate and channel count; chunks need not end on a
        sample boundary. Raises what :meth:`SpeechProvider.synthesize` raises.
        """
        ...
