"""The espeak-ng provider: request mapping, voices, and real synthesis decoded back."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from renderkit import (
    InvalidRequestError,
    MissingDependencyError,
    ProviderError,
    ProviderUnavailableError,
    structure,
)
from renderkit.speech import PREMADE_VOICES, LocalSpeechProvider, SpeechProvider
from renderkit.speech._models import AUDIO_FORMATS, DEFAULT_VOICE_ID, AudioRequest
from renderkit.speech._synthesize import synthesize
from renderkit.speech.espeak import espeak_command, parse_voice_list, parse_wav

from . import SENTENCE, decode, decoded_samples, needs_espeak, within


def request(**fields: object) -> AudioRequest:
    return structure({"script": "Hello there", **fields}, AudioRequest)


# --- the request mapping (pure) ---


def test_default_settings_run_espeak_at_its_defaults() -> None:
    command, stdin = espeak_command("espeak-ng", request(), "en-us+f3")
    assert command[command.index("-s") + 1] == "175"
    assert command[command.index("-v") + 1] == "en-us+f3"
    assert stdin == b"<speak>Hello there</speak>"


@pytest.mark.parametrize(("speed", "wpm"), [(0.7, "122"), (1.0, "175"), (1.2, "210")])
def test_speed_scales_the_words_per_minute(speed: float, wpm: str) -> None:
    command, _ = espeak_command("espeak-ng", request(speed=speed), "en")
    assert command[command.index("-s") + 1] == wpm


@pytest.mark.parametrize(
    ("stability", "style", "percent"),
    [(1.0, 0.0, 40), (0.75, 0.0, 70), (0.0, 0.0, 160), (0.5, 1.0, 150), (0.0, 1.0, 200)],
)
def test_stability_and_style_set_the_pitch_range(
    stability: float, style: float, percent: int
) -> None:
    _, stdin = espeak_command("espeak-ng", request(stability=stability, style=style), "en")
    assert f'<prosody range="{percent}%">'.encode() in stdin


def test_similarity_and_model_do_not_change_the_command() -> None:
    base = espeak_command("espeak-ng", request(), "en")
    other = espeak_command("espeak-ng", request(similarity=0.0, model="eleven_turbo_v2"), "en")
    assert base == other


def test_script_is_escaped_and_sent_on_stdin_not_argv() -> None:
    command, stdin = espeak_command("espeak-ng", request(script="-v <b>Tom & Jerry</b>"), "en")
    assert all("Tom" not in part for part in command)
    assert stdin == b"<speak>-v &lt;b&gt;Tom &amp; Jerry&lt;/b&gt;</speak>"


# --- parsing espeak-ng's output (pure) ---


def _wav_stream(pcm: bytes, rate: int = 22_050, bits: int = 16) -> bytes:
    # As espeak-ng writes to a pipe: placeholder sizes.
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, bits)
    return b"RIFF\x24\xf0\xff\x7fWAVEfmt \x10\x00\x00\x00" + fmt + b"data\x00\xf0\xff\x7f" + pcm


def test_wav_from_a_pipe_is_read_to_the_end_despite_placeholder_sizes() -> None:
    audio = parse_wav(_wav_stream(b"\x01\x00" * 1000))
    assert (audio.sample_rate, audio.channels, len(audio.data)) == (22_050, 1, 2000)


@pytest.mark.parametrize("data", [b"", b"ID3 not a wav file at all, no RIFF header here....", None])
def test_non_wav_or_non_16_bit_output_is_rejected(data: bytes | None) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 (parse_wav raises only ValueError)
        parse_wav(_wav_stream(b"\0" * 100, bits=8) if data is None else data)


VOICES = """\
Pty Language       Age/Gender VoiceName          File                 Other Languages
 5  af              --/M      Afrikaans          gmw/af
 5  bpy             --/M      Bishnupriya_Manipuri inc/bpy
 5  cmn             --/M      Chinese_(Mandarin,_latin_as_English) sit/cmn  (zh-cmn 5)(zh 5)
 2  en-gb           --/M      English_(Great_Britain) gmw/en               (en 2)
 3  en-uk           --/M      english-mb-en1     mb/mb-en1            (en-gb 3)(en 2)
 5  fr-fr           --/M      French_(France)    roa/fr               (fr 5)
"""
VARIANTS = """\
Pty Language       Age/Gender VoiceName          File                 Other Languages
 5  variant         --/F      female3            !v/f3
 5  variant         --/M      Alex               !v/Alex
 5  variant         --/M      Mr_Serious         !v/Mr serious
 5  variant         --/M      Storm              !v/Storm             (en-us 5)
"""


def test_voice_list_has_languages_alternatives_and_variants_but_no_mbrola() -> None:
    voices = parse_voice_list(VOICES, VARIANTS)
    assert set(voices.languages) == {
        "af",
        "bpy",
        "cmn",
        "zh-cmn",
        "zh",
        "en-gb",
        "en",
        "fr-fr",
        "fr",
    }
    assert "en-uk" not in voices.languages
    assert voices.variants == {
        "f3": ("f3", "female3"),
        "alex": ("Alex", "Alex"),
        "storm": ("Storm", "Storm"),
    }


@pytest.mark.parametrize(
    ("voice_id", "voice"),
    [
        ("en", "en"),
        ("EN-GB", "en-gb"),
        ("fr+f3", "fr+f3"),
        ("en-gb+ALEX", "en-gb+Alex"),
        (DEFAULT_VOICE_ID, "en-us+f3"),
        ("JBFqnCBsd6RMkjVDRZzb", "en-gb+m3"),
    ],
)
def test_voice_ids_resolve_to_espeak_voices(voice_id: str, voice: str) -> None:
    assert parse_voice_list(VOICES, VARIANTS).resolve(voice_id) == voice


@pytest.mark.parametrize(
    "voice_id", ["xx", "en-uk", "en+nosuchvariant", "Mr", "pNInz6obpgDQGcFmaJgX"]
)
def test_unknown_voice_ids_are_invalid_on_the_voice_id_field(voice_id: str) -> None:
    with pytest.raises(InvalidRequestError) as exc:
        parse_voice_list(VOICES, VARIANTS).resolve(voice_id)
    assert [e.field for e in exc.value.errors] == ["voice_id"]
    assert "--list-voices" in exc.value.errors[0].message


def test_every_premade_voice_maps_to_an_english_voice_with_a_variant() -> None:
    for voice, _ in PREMADE_VOICES.values():
        language, _, variant = voice.partition("+")
        assert language in ("en-us", "en-gb") and variant


# --- process failures, with stand-in executables ---


def _stand_in(tmp_path: Path, body: str) -> str:
    script = tmp_path / "espeak-ng"
    script.write_text(
        "#!/bin/sh\n"
        'case "$1" in --voices*)\n'
        '  echo "Pty Language Age/Gender VoiceName File Other Languages"\n'
        '  echo " 5  en-us  --/M  English_(America) gmw/en-US"\n'
        "  exit 0;;\n"
        "esac\n" + body + "\n"
    )
    script.chmod(0o755)
    return str(script)


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs CPU affinity and two usable CPUs",
)
def test_the_default_concurrency_follows_the_cpus_the_process_may_use() -> None:
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        provider = LocalSpeechProvider()
    finally:
        os.sched_setaffinity(0, allowed)
    assert provider._limit.total_tokens == 1
    assert LocalSpeechProvider()._limit.total_tokens == len(allowed)


def test_provider_satisfies_the_protocol() -> None:
    assert isinstance(LocalSpeechProvider(), SpeechProvider)


@pytest.mark.anyio
async def test_missing_engine_raises_missing_dependency_error() -> None:
    provider = LocalSpeechProvider("/nonexistent/espeak-ng")
    with pytest.raises(MissingDependencyError):
        await provider.synthesize(request())


@pytest.mark.anyio
async def test_engine_exiting_with_an_error_raises_provider_error(tmp_path: Path) -> None:
    provider = LocalSpeechProvider(_stand_in(tmp_path, "echo broken >&2; exit 3"))
    with pytest.raises(ProviderError) as exc:
        await provider.synthesize(request(voice_id="en-us"))
    assert exc.value.provider == "local"
    assert not isinstance(exc.value, ProviderUnavailableError)


@pytest.mark.anyio
async def test_engine_producing_no_audio_raises_provider_error(tmp_path: Path) -> None:
    provider = LocalSpeechProvider(_stand_in(tmp_path, "exit 0"))
    with pytest.raises(ProviderError):
        await provider.synthesize(request(voice_id="en-us"))


@pytest.mark.anyio
async def test_engine_writing_something_other_than_wav_raises_provider_error(
    tmp_path: Path,
) -> None:
    provider = LocalSpeechProvider(_stand_in(tmp_path, "cat /dev/null; echo 'ID3 garbage output'"))
    with pytest.raises(ProviderError):
        await provider.synthesize(request(voice_id="en-us"))


@pytest.mark.anyio
async def test_engine_running_past_the_timeout_is_killed(tmp_path: Path) -> None:
    provider = LocalSpeechProvider(_stand_in(tmp_path, "exec sleep 30"), timeout=0.3)
    with pytest.raises(ProviderUnavailableError):
        await provider.synthesize(request(voice_id="en-us"))


# --- the real engine ---


@pytest.fixture(scope="module")
def local() -> LocalSpeechProvider:
    return LocalSpeechProvider()


@pytest.mark.anyio
@needs_espeak
@pytest.mark.parametrize("fmt", list(AUDIO_FORMATS))
async def test_synthesised_files_decode_with_the_specified_encoding(
    local: LocalSpeechProvider, fmt: str
) -> None:
    result = await synthesize({"script": SENTENCE * 2, "format": fmt}, provider=local)
    decoded = decode(result.content)
    encoding = AUDIO_FORMATS[fmt]
    assert (decoded.sample_rate, decoded.channels) == (encoding.sample_rate, 1)
    assert within(decoded.bit_rate, encoding.bit_rate)
    assert decoded.duration > 3
    assert abs(result.duration_seconds - decoded.duration) < 0.06
    assert decoded.rms > 300
    assert result.provider == "local"


@pytest.mark.anyio
@needs_espeak
async def test_longer_scripts_last_longer(local: LocalSpeechProvider) -> None:
    short = await synthesize({"script": SENTENCE, "format": "wav"}, provider=local)
    long = await synthesize({"script": SENTENCE * 3, "format": "wav"}, provider=local)
    assert long.duration_seconds > 2.5 * short.duration_seconds


@pytest.mark.anyio
@needs_espeak
async def test_faster_speed_gives_shorter_audio(local: LocalSpeechProvider) -> None:
    slow = await synthesize({"script": SENTENCE, "speed": 0.7, "format": "wav"}, provider=local)
    fast = await synthesize({"script": SENTENCE, "speed": 1.2, "format": "wav"}, provider=local)
    assert fast.duration_seconds < 0.75 * slow.duration_seconds


@pytest.mark.anyio
@needs_espeak
async def test_stability_changes_the_intonation(local: LocalSpeechProvider) -> None:
    steady = await local.synthesize(request(script=SENTENCE, stability=1.0))
    lively = await local.synthesize(request(script=SENTENCE, stability=0.0))
    assert steady.data != lively.data


@pytest.mark.anyio
@needs_espeak
@pytest.mark.parametrize(
    "voice_id",
    [
        DEFAULT_VOICE_ID,
        "pNInz6obpgDQGcFmaJgB",
        "en-us",
        "en-gb",
        "de",
        "fr",
        "es",
        "en-us+f3",
        "de+m2",
    ],
)
async def test_documented_voice_ids_speak(local: LocalSpeechProvider, voice_id: str) -> None:
    audio = await local.synthesize(request(voice_id=voice_id))
    assert (audio.sample_rate, audio.channels) == (22_050, 1)
    assert audio.pcm_duration > 0.3


@pytest.mark.anyio
@needs_espeak
async def test_unknown_voice_is_rejected_before_synthesis(local: LocalSpeechProvider) -> None:
    with pytest.raises(InvalidRequestError) as exc:
        await synthesize({"script": "Hi", "voice_id": "tlh"}, provider=local)
    assert [e.field for e in exc.value.errors] == ["voice_id"]


@pytest.mark.anyio
@needs_espeak
async def test_list_voices_offers_premade_languages_and_variants(
    local: LocalSpeechProvider,
) -> None:
    ids = {v.voice_id for v in await local.list_voices()}
    assert {DEFAULT_VOICE_ID, "en-us", "en-gb", "de", "fr", "es", "en-us+f3"} <= ids
    for voice_id in ids:
        structure({"script": "Hi", "voice_id": voice_id}, AudioRequest)


@pytest.mark.anyio
@needs_espeak
async def test_a_long_script_becomes_one_continuous_mp3(local: LocalSpeechProvider) -> None:
    # Long enough to be encoded in several parts on a multi-core machine (see _audio.py).
    script = SENTENCE * 12
    result = await synthesize({"script": script, "format": "mp3"}, provider=local)
    pcm = await local.synthesize(request(script=script))
    samples, problems = decoded_samples(result.content)
    assert problems == []
    assert abs(len(samples) / 44_100 - pcm.pcm_duration) < 0.001
    assert abs(result.duration_seconds - pcm.pcm_duration) < 0.002
