"""A streaming speech provider whose second chunk waits for the test: it shows what a stream
hands over while the engine is still speaking, and fails on demand part-way."""

from __future__ import annotations

import time

import anyio

from renderkit.core.errors import ProviderError
from renderkit.speech import AudioRequest, SpeechAudio, Voice
from renderkit.speech._protocol import PcmSink

RATE = 24_000


def tone(seconds: float) -> bytes:
    """An audible square-ish wave of ``seconds`` (16-bit mono at RATE)."""
    period = b"\x00\x20" * 20 + b"\x00\xe0" * 20  # +8192 / -8192, 40 samples each
    total = round(seconds * RATE) * 2
    return (period * (total // len(period) + 1))[:total]


class GatedSpeaker:
    """Speaks one second of tone, waits for :attr:`go` (if ``gated``), then one more second.

    Attributes:
        finished: ``time.monotonic()`` when the last chunk was handed over.
        cancelled: True when the call was cancelled before its end.
        fail_part_way: raise ProviderError instead of the second chunk.
    """

    name = "gated"

    def __init__(self, *, gated: bool = True, fail_part_way: bool = False) -> None:
        self.go = anyio.Event()
        if not gated:
            self.go.set()
        self.fail_part_way = fail_part_way
        self.finished: float | None = None
        self.cancelled = False

    async def stream_pcm(self, request: AudioRequest, sink: PcmSink) -> None:
        try:
            await sink(SpeechAudio(data=tone(1.0), sample_rate=RATE))
            await self.go.wait()
            if self.fail_part_way:
                msg = "the engine broke part-way"
                raise ProviderError(msg, provider=self.name)
            await sink(SpeechAudio(data=tone(1.0), sample_rate=RATE))
            self.finished = time.monotonic()
        except anyio.get_cancelled_exc_class():
            self.cancelled = True
            raise

    async def synthesize(self, request: AudioRequest) -> SpeechAudio:
        self.go.set()
        return SpeechAudio(data=tone(2.0), sample_rate=RATE)

    async def list_voices(self) -> list[Voice]:
        return []

    async def aclose(self) -> None:
        pass
