"""An in-memory SpeechProvider for tests that should not run espeak-ng or call ElevenLabs."""

from __future__ import annotations

import functools
import math
import sys
from array import array
from collections.abc import Callable, Iterable

from renderkit.core.errors import InvalidRequestError
from renderkit.speech import DEFAULT_VOICE_ID, AudioRequest, SpeechAudio, Voice

__all__ = ["FakeSpeechProvider"]

_SYLLABLE_SECONDS = 0.2


@functools.cache
def _syllable(sample_rate: int) -> bytes:
    """One "syllable": a 220 Hz buzz with two harmonics under a swell that never goes silent."""
    count = round(sample_rate * _SYLLABLE_SECONDS)
    samples = array("h")
    for i in range(count):
        t = i / sample_rate
        envelope = 0.35 + 0.65 * math.sin(math.pi * i / count)
        wave = (
            math.sin(2 * math.pi * 220 * t)
            + 0.5 * math.sin(2 * math.pi * 440 * t)
            + 0.25 * math.sin(2 * math.pi * 660 * t)
        )
        samples.append(round(9_000 * envelope * wave))
    if sys.byteorder == "big":
        samples.byteswap()  # PCM is little-endian
    return samples.tobytes()


class FakeSpeechProvider:
    """A real :class:`~renderkit.speech.SpeechProvider` that speaks no words.

    It returns mono 16-bit PCM of plausible length, ``characters / (characters_per_second
    * speed)`` seconds of an audible tone, and records every request in :attr:`requests`,
    so tests above the engine (the HTTP server, quotas, storage, encoding) run in
    milliseconds. Pass ``handler`` to inject failures: it is called with each request
    before audio is produced and may raise. Pass ``voices`` to accept only those ids
    (others raise :class:`InvalidRequestError` on ``voice_id``, like a real provider).
    """

    name = "fake"

    def __init__(
        self,
        handler: Callable[[AudioRequest], None] | None = None,
        *,
        characters_per_second: float = 15.0,
        sample_rate: int = 22_050,
        voices: Iterable[str] | None = None,
    ) -> None:
        self.requests: list[AudioRequest] = []
        self.closed = False
        self.characters_per_second = characters_per_second
        self.sample_rate = sample_rate
        self._handler = handler
        self._voices = None if voices is None else frozenset(voices)

    async def synthesize(self, request: AudioRequest) -> SpeechAudio:
        """Record the request and return a tone as long as the script would take to say."""
        self.requests.append(request)
        if self._handler is not None:
            self._handler(request)
        if self._voices is not None and request.voice_id not in self._voices:
            msg = f"unknown voice {request.voice_id[:40]!r} for the fake provider"
            raise InvalidRequestError.single("voice_id", msg)
        seconds = max(0.4, len(request.script) / (self.characters_per_second * request.speed))
        syllable = _syllable(self.sample_rate)
        total = round(seconds * self.sample_rate) * 2
        repeats, rest = divmod(total, len(syllable))
        return SpeechAudio(data=syllable * repeats + syllable[:rest], sample_rate=self.sample_rate)

    async def list_voices(self) -> list[Voice]:
        """The accepted ids (the default voice when any id is accepted)."""
        ids = sorted(self._voices) if self._voices is not None else [DEFAULT_VOICE_ID]
        return [Voice(voice_id=vid, name=f"Fake {vid}", language="en") for vid in ids]

    async def aclose(self) -> None:
        """Mark the fake closed."""
        self.closed = True
