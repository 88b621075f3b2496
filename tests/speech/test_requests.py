"""AudioRequest: defaults, limits and errors that name the field."""

from __future__ import annotations

from typing import Any

import pytest

from renderkit import InvalidRequestError, structure
from renderkit.core.schema import json_schema
from renderkit.speech._models import (
    AUDIO_FORMATS,
    DEFAULT_VOICE_ID,
    MAX_SCRIPT_CHARACTERS,
    AudioRequest,
)


def fields(exc: pytest.ExceptionInfo[InvalidRequestError]) -> list[str]:
    return [e.field for e in exc.value.errors]


def test_defaults_follow_the_spec() -> None:
    request = structure({"script": "Hello"}, AudioRequest)
    assert request.voice_id == DEFAULT_VOICE_ID == "21m00Tcm4TlvDq8ikWAM"
    assert request.model == "eleven_multilingual_v2"
    assert request.format == "mp3"
    assert (request.stability, request.similarity, request.speed, request.style) == (
        0.5,
        0.75,
        1.0,
        0.0,
    )


def test_script_of_5000_characters_is_accepted() -> None:
    request = structure({"script": "a" * MAX_SCRIPT_CHARACTERS}, AudioRequest)
    assert request.characters == 5_000


def test_script_of_5001_characters_names_script_and_the_limit() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        structure({"script": "a" * 5_001}, AudioRequest)
    assert fields(exc) == ["script"]
    assert "5,000" in exc.value.errors[0].message


def test_characters_count_the_script_as_sent() -> None:
    request = structure({"script": " Hello there\n"}, AudioRequest)
    assert request.characters == 13


def test_the_limit_applies_to_the_script_as_sent() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        structure({"script": "a" + " " * 5_000}, AudioRequest)
    assert fields(exc) == ["script"]


@pytest.mark.parametrize("script", ["", "   ", "\n\t"])
def test_blank_script_is_rejected(script: str) -> None:
    with pytest.raises(InvalidRequestError) as exc:
        structure({"script": script}, AudioRequest)
    assert fields(exc) == ["script"]


def test_missing_script_is_reported_as_missing() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        structure({"voice_id": DEFAULT_VOICE_ID}, AudioRequest)
    assert fields(exc) == ["script"]
    assert exc.value.missing


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("stability", -0.01),
        ("stability", 1.01),
        ("similarity", -1),
        ("similarity", 2),
        ("style", 1.5),
        ("style", -0.1),
        ("speed", 0.69),
        ("speed", 1.21),
        ("format", "flac"),
        ("format", "m4a"),
        ("model", "eleven_v9"),
        ("voice_id", ""),
        ("voice_id", "../../v1/user"),
        ("voice_id", "en us"),
        ("voice_id", "a" * 101),
    ],
)
def test_out_of_range_or_unknown_values_name_the_field(field: str, value: Any) -> None:
    with pytest.raises(InvalidRequestError) as exc:
        structure({"script": "Hi", field: value}, AudioRequest)
    assert fields(exc) == [field]


@pytest.mark.parametrize(
    ("field", "value"), [("speed", "fast"), ("stability", True), ("script", 5)]
)
def test_wrong_types_name_the_field(field: str, value: Any) -> None:
    with pytest.raises(InvalidRequestError) as exc:
        structure({"script": "Hi", field: value}, AudioRequest)
    assert fields(exc) == [field]


@pytest.mark.parametrize(
    ("field", "value"), [("speed", 0.7), ("speed", 1.2), ("stability", 0), ("style", 1)]
)
def test_range_bounds_are_inclusive(field: str, value: float) -> None:
    request = structure({"script": "Hi", field: value}, AudioRequest)
    assert getattr(request, field) == value


def test_every_spec_format_and_model_is_accepted() -> None:
    for fmt in ("mp3", "wav", "opus", "aac", "MP3"):
        assert structure({"script": "Hi", "format": fmt}, AudioRequest).format == fmt.lower()
    for model in ("eleven_multilingual_v2", "eleven_turbo_v2", "eleven_monolingual_v1"):
        assert structure({"script": "Hi", "model": model}, AudioRequest).model == model


def test_similarity_boost_is_an_alias_of_similarity() -> None:
    request = structure({"script": "Hi", "similarity_boost": 0.2}, AudioRequest)
    assert request.similarity == 0.2


def test_local_and_premade_voice_ids_pass_model_validation() -> None:
    for voice in ("en-us", "en-gb", "de", "en-us+f3", "pt-br", "pNInz6obpgDQGcFmaJgB"):
        assert structure({"script": "Hi", "voice_id": voice}, AudioRequest).voice_id == voice


def test_unknown_fields_are_refused_naming_them() -> None:
    # Reverses the earlier "ignore unknown fields" decision (DECISIONS.md, issue #12).
    with pytest.raises(InvalidRequestError) as exc:
        structure({"script": "Hi", "language_code": "en", "voice": "de"}, AudioRequest)
    assert fields(exc) == ["language_code", "voice"]
    assert [e.suggestion for e in exc.value.errors] == [None, "voice_id"]


def test_encodings_match_variant_b() -> None:
    assert {(k, e.sample_rate, e.bit_rate) for k, e in AUDIO_FORMATS.items()} == {
        ("mp3", 44_100, 128_000),
        ("wav", 44_100, 705_600),
        ("opus", 48_000, 96_000),
        ("ogg", 48_000, 96_000),
        ("aac", 44_100, 128_000),
    }


def test_ogg_is_the_opus_encoding_under_its_container_name_and_is_echoed() -> None:
    ogg, opus = AUDIO_FORMATS["ogg"], AUDIO_FORMATS["opus"]
    assert (ogg.codec, ogg.container, ogg.content_type) == (opus.codec, opus.container, "audio/ogg")
    request = structure({"script": "Hi", "format": "OGG"}, AudioRequest)
    assert request.format == "ogg"
    assert request.suggested_filename.endswith(".ogg")


def test_json_schema_states_limits_defaults_and_enums() -> None:
    schema = json_schema(AudioRequest)
    props = schema["properties"]
    assert schema["required"] == ["script"]
    assert props["script"]["maxLength"] == 5_000
    assert props["speed"].items() >= {"minimum": 0.7, "maximum": 1.2, "default": 1.0}.items()
    assert props["stability"]["minimum"] == 0 and props["stability"]["maximum"] == 1
    assert props["format"]["enum"] == ["mp3", "wav", "opus", "ogg", "aac"]
    assert props["model"]["default"] == "eleven_multilingual_v2"
    assert props["voice_id"]["default"] == DEFAULT_VOICE_ID
    assert props["similarity_boost"]["description"] == "Alias of `similarity`."
    assert "description" in props["style"]


def test_estimated_seconds_scale_with_length_and_speed() -> None:
    slow = structure({"script": "a" * 150, "speed": 0.75}, AudioRequest)
    assert slow.estimated_seconds == pytest.approx(150 / 15 / 0.75)
