"""Encoding into the spec's output formats, checked by decoding the result with PyAV."""

from __future__ import annotations

import pytest

from renderkit import ProviderError
from renderkit.speech import SpeechAudio
from renderkit.speech._encode import PcmEncoder, decode_pcm, encode, encode_pcm, probe
from renderkit.speech._models import AUDIO_FORMATS

from . import decode, tone, within

DECODERS = {
    "mp3": ("mp3", "mp3"),
    "wav": ("wav", "pcm_s16le"),
    "opus": ("ogg", "opus"),
    "ogg": ("ogg", "opus"),
    "aac": ("aac", "aac"),
}


@pytest.mark.parametrize("fmt", list(AUDIO_FORMATS))
def test_pcm_is_encoded_with_the_specified_codec_rate_and_bit_rate(fmt: str) -> None:
    audio = SpeechAudio(data=tone(8.0), sample_rate=22_050)
    encoded = encode(audio, fmt, provider="test")
    decoded = decode(encoded.content)
    encoding = AUDIO_FORMATS[fmt]
    container, codec = DECODERS[fmt]
    assert decoded.container == container
    assert decoded.codec == codec
    assert decoded.sample_rate == encoding.sample_rate
    assert decoded.channels == 1
    assert within(decoded.bit_rate, encoding.bit_rate)
    assert abs(decoded.duration - 8.0) < 0.1
    assert decoded.rms > 1_000


@pytest.mark.parametrize("fmt", list(AUDIO_FORMATS))
def test_measured_duration_matches_the_decoded_samples(fmt: str) -> None:
    encoded = encode(SpeechAudio(data=tone(3.3), sample_rate=22_050), fmt, provider="test")
    assert abs(encoded.info.duration_seconds - decode(encoded.content).duration) < 0.06
    assert encoded.info.sample_rate == AUDIO_FORMATS[fmt].sample_rate
    assert encoded.info.channels == 1


def test_stereo_input_is_downmixed_to_mono() -> None:
    audio = SpeechAudio(data=tone(2.0, rate=48_000, channels=2), sample_rate=48_000, channels=2)
    decoded = decode(encode(audio, "mp3", provider="test").content)
    assert decoded.channels == 1
    assert abs(decoded.duration - 2.0) < 0.05


def test_a_file_already_in_the_requested_encoding_is_passed_through() -> None:
    mp3 = encode_pcm(tone(4.0), sample_rate=22_050, channels=1, encoding=AUDIO_FORMATS["mp3"])
    encoded = encode(SpeechAudio(data=mp3, encoding="mp3", sample_rate=44_100), "mp3", provider="t")
    assert encoded.content == mp3
    assert abs(encoded.info.duration_seconds - 4.0) < 0.05


def test_a_file_in_another_format_is_decoded_and_reencoded() -> None:
    mp3 = encode_pcm(tone(2.0), sample_rate=22_050, channels=1, encoding=AUDIO_FORMATS["mp3"])
    encoded = encode(
        SpeechAudio(data=mp3, encoding="mp3", sample_rate=44_100), "opus", provider="t"
    )
    decoded = decode(encoded.content)
    assert (decoded.container, decoded.sample_rate) == ("ogg", 48_000)
    assert abs(decoded.duration - 2.0) < 0.1


def test_a_file_claiming_the_format_but_not_its_encoding_is_reencoded() -> None:
    # A 22.05 kHz WAV is "wav", but not the spec's 44.1 kHz encoding.
    low_rate = SpeechAudio(data=_wav(22_050), encoding="wav", sample_rate=22_050)
    encoded = encode(low_rate, "wav", provider="t")
    assert encoded.content != low_rate.data
    assert decode(encoded.content).sample_rate == 44_100


def _wav(rate: int) -> bytes:
    import io
    import wave

    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(tone(1.0, rate=rate))
    return out.getvalue()


def test_decode_pcm_returns_the_files_own_rate_and_channels() -> None:
    audio = decode_pcm(_wav(22_050), provider="t")
    assert (audio.encoding, audio.sample_rate, audio.channels) == ("pcm", 22_050, 1)
    assert abs(audio.pcm_duration - 1.0) < 0.01


@pytest.mark.parametrize("data", [b"", b"\0" * 44_100])
def test_silent_or_empty_pcm_is_a_provider_error(data: bytes) -> None:
    with pytest.raises(ProviderError) as exc:
        encode(SpeechAudio(data=data, sample_rate=22_050), "mp3", provider="test")
    assert exc.value.provider == "test"


def test_undecodable_provider_audio_is_a_provider_error() -> None:
    with pytest.raises(ProviderError):
        encode(
            SpeechAudio(data=b"not audio" * 50, encoding="mp3", sample_rate=44_100),
            "wav",
            provider="t",
        )


def test_probe_rejects_a_non_audio_file() -> None:
    with pytest.raises(ValueError):  # noqa: PT011 (probe raises only ValueError)
        probe(b"%PDF-1.7 not audio")


def test_pcm_fed_in_uneven_chunks_gives_the_same_audio() -> None:
    pcm = tone(3.0)
    encoder = PcmEncoder(AUDIO_FORMATS["aac"], sample_rate=22_050, channels=1)
    for offset in range(0, len(pcm), 1001):
        encoder.feed(pcm[offset : offset + 1001])
    chunked = decode(encoder.finish())
    whole = decode(encode_pcm(pcm, sample_rate=22_050, channels=1, encoding=AUDIO_FORMATS["aac"]))
    assert chunked.duration == whole.duration
    assert encoder.audible


def test_a_closed_encoder_refuses_more_work() -> None:
    encoder = PcmEncoder(AUDIO_FORMATS["mp3"], sample_rate=22_050, channels=1)
    encoder.close()
    encoder.close()
    with pytest.raises(RuntimeError):
        encoder.feed(tone(0.1))
    with pytest.raises(RuntimeError):
        encoder.finish()
