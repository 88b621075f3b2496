"""MP3 encoded in parts by parallel LAME encoders and spliced: one continuous stream."""

from __future__ import annotations

import sys
from array import array

import pytest

from renderkit.speech._encode import (
    MP3_FRAME,
    Mp3Part,
    Mp3Splitter,
    encode_mp3_part,
    encode_pcm,
    join_mp3_parts,
    probe,
)
from renderkit.speech._models import AUDIO_FORMATS

from . import decode, decoded_samples, tone

RATE = 22_050


def speechlike(seconds: float) -> bytes:
    """Bursts of tone (0.35 s, like words) separated by short pauses (0.08-0.2 s)."""
    out = b""
    gaps = [0.08, 0.2, 0.12]
    index = 0
    while len(out) < seconds * RATE * 2:
        out += tone(0.35, hz=441 + 60 * (index % 4)) + bytes(round(gaps[index % 3] * RATE) * 2)
        index += 1
    return out[: round(seconds * RATE) * 2]


def split(pcm: bytes, part_seconds: float | None, chunk: int = 9_001) -> list[Mp3Part]:
    splitter = Mp3Splitter(sample_rate=RATE, channels=1, part_seconds=part_seconds)
    parts: list[Mp3Part] = []
    for offset in range(0, len(pcm), chunk):
        parts += splitter.feed(pcm[offset : offset + chunk])
    parts.append(splitter.finish())
    assert splitter.audible
    return parts


def test_a_long_stream_is_cut_into_parts_at_quiet_frame_boundaries() -> None:
    pcm = speechlike(12.0)
    parts = split(pcm, part_seconds=2.0)
    assert len(parts) >= 5
    assert [p.index for p in parts] == list(range(len(parts)))
    assert parts[0].skip == 0
    assert all(p.skip == 3 for p in parts[1:])
    assert parts[-1].keep is None
    # The parts' own spans, warm-up frames left out, are the resampled stream end to end.
    spans = [
        p.pcm[p.skip * MP3_FRAME * 2 :][: None if p.keep is None else p.keep * MP3_FRAME * 2]
        for p in parts
    ]
    resampled = array("h", b"".join(spans))
    if sys.byteorder == "big":
        resampled.byteswap()
    assert len(resampled) == len(pcm)  # 2 bytes per 22.05 kHz sample = samples at 44.1 kHz
    # Each cut falls where the granules either side of it are silent (a pause between words).
    cut = 0
    for part in parts[:-1]:
        assert part.keep is not None
        cut += part.keep * MP3_FRAME
        assert max(map(abs, resampled[cut - MP3_FRAME : cut + MP3_FRAME])) < 50, cut


def test_spliced_parts_decode_like_one_encoder_without_gaps_or_errors() -> None:
    pcm = speechlike(20.0)
    whole = encode_pcm(pcm, sample_rate=RATE, channels=1, encoding=AUDIO_FORMATS["mp3"])
    parts = split(pcm, part_seconds=3.0)
    assert len(parts) >= 5
    spliced = join_mp3_parts([encode_mp3_part(part) for part in parts])

    ours, problems = decoded_samples(spliced)
    reference, _ = decoded_samples(whole)
    assert problems == []
    # One continuous stream: exactly as many samples as the 44.1 kHz audio, no gap added at
    # the joins (each would add ~2,200 samples of encoder delay and padding).
    assert len(ours) == len(reference) == len(pcm)  # 2 bytes a sample, twice the rate
    # ...and the same samples a single encoder gives: no click at a join.
    assert max(abs(a - b) for a, b in zip(ours, reference, strict=True)) < 0.02

    info = probe(spliced)
    assert abs(info.duration_seconds - len(pcm) / 2 / RATE) < 0.001
    facts = decode(spliced)
    assert (facts.codec, facts.container, facts.sample_rate, facts.channels) == (
        "mp3",
        "mp3",
        44_100,
        1,
    )
    assert abs(facts.bit_rate - 128_000) < 128_000 * 0.02


def test_cuts_in_loud_audio_still_splice_cleanly() -> None:
    # No pause to find: the cut lands mid-tone, and the warm-up frames still make it seamless.
    pcm = tone(9.0)
    parts = split(pcm, part_seconds=2.0)
    assert len(parts) >= 3
    ours, problems = decoded_samples(join_mp3_parts([encode_mp3_part(p) for p in parts]))
    reference, _ = decoded_samples(
        encode_pcm(pcm, sample_rate=RATE, channels=1, encoding=AUDIO_FORMATS["mp3"])
    )
    assert problems == []
    assert len(ours) == len(reference)
    assert max(abs(a - b) for a, b in zip(ours, reference, strict=True)) < 0.02


@pytest.mark.parametrize(("rate", "channels"), [(48_000, 2), (16_000, 1), (44_100, 1)])
def test_other_input_rates_and_stereo_are_resampled_before_the_cuts(
    rate: int, channels: int
) -> None:
    pcm = tone(7.0, rate=rate, channels=channels)
    splitter = Mp3Splitter(sample_rate=rate, channels=channels, part_seconds=2.0)
    parts = splitter.feed(pcm[:1001]) + splitter.feed(pcm[1001:])
    parts.append(splitter.finish())
    assert len(parts) >= 3
    content = join_mp3_parts([encode_mp3_part(p) for p in parts])
    ours, problems = decoded_samples(content)
    assert problems == []
    assert abs(len(ours) / 44_100 - 7.0) < 0.002
    assert abs(probe(content).duration_seconds - 7.0) < 0.002


def test_without_a_part_length_there_is_one_part() -> None:
    parts = split(speechlike(6.0), part_seconds=None)
    assert len(parts) == 1
    assert (parts[0].skip, parts[0].keep) == (0, None)
    content = join_mp3_parts([encode_mp3_part(parts[0])])
    assert abs(probe(content).duration_seconds - 6.0) < 0.001


def test_a_silent_stream_is_not_audible() -> None:
    splitter = Mp3Splitter(sample_rate=RATE, channels=1, part_seconds=1.0)
    splitter.feed(bytes(RATE * 2 * 3))
    assert not splitter.audible


@pytest.mark.parametrize("hz", [3_000, 7_350])  # tone() repeats whole periods: 3150, 7350 Hz
def test_the_low_pass_keeps_everything_a_22_khz_source_holds(hz: int) -> None:
    # LAME is told the source's Nyquist frequency (11,025 Hz) as its low-pass: a tone just
    # below it must come through at full strength, as it would without the hint.
    pcm = tone(2.0, hz=hz, rate=RATE)
    mp3 = encode_pcm(pcm, sample_rate=RATE, channels=1, encoding=AUDIO_FORMATS["mp3"])
    samples, problems = decoded_samples(mp3)
    assert problems == []
    middle = samples[len(samples) // 4 : 3 * len(samples) // 4]
    source = array("h", pcm)
    source_rms = (sum(s * s for s in source) / len(source)) ** 0.5 / 32768
    assert source_rms > 0.1
    rms = (sum(s * s for s in middle) / len(middle)) ** 0.5
    assert rms == pytest.approx(source_rms, rel=0.1)
