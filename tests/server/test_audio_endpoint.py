"""POST /api/audio through the test client (in-memory speech provider, real encoders)."""

from __future__ import annotations

import argparse
import io
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import av
import pytest
from litestar.testing import AsyncTestClient

from renderkit.core.cli import CommandError, output_format
from renderkit.core.media import MEDIA_TYPES
from renderkit.speech import AUDIO_FORMATS, LocalSpeechProvider
from renderkit.speech.cli import add_audio_command
from renderkit.testing import FakeBrowser, FakeSpeechProvider
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from ..speech import needs_espeak
from .conftest import issue_key

pytestmark = pytest.mark.anyio

VARIANT_A = {
    "script": "Hello from variant A.",
    "voice_id": "21m00Tcm4TlvDq8ikWAM",
    "model": "eleven_multilingual_v2",
    "format": "mp3",
    "stability": 0.5,
    "similarity": 0.75,
    "speed": 1.0,
}
VARIANT_B = {
    "script": "Hello from variant B, a little longer.",
    "format": "wav",
    "style": 0.3,
    "model": "eleven_turbo_v2",
}


@pytest.fixture
async def speech_client(
    make_settings: Callable[..., Settings],
) -> AsyncIterator[AsyncTestClient]:
    app = create_app(
        make_settings(), browser=FakeBrowser(), mailer=MemoryMailer(), speech=FakeSpeechProvider()
    )
    async with AsyncTestClient(app) as client:
        yield client


@pytest.mark.parametrize(("path", "body"), [("/api/audio", VARIANT_A), ("/v1/audio", VARIANT_B)])
async def test_audio_accepts_both_variants_and_reports_measured_duration(
    speech_client: AsyncTestClient, path: str, body: dict
) -> None:
    key = await issue_key(speech_client)
    response = await speech_client.post(path, json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["format"] == body["format"]
    assert result["characters"] == result["characters_used"] == len(body["script"])
    assert result["duration_seconds"] == result["duration_est"] == result["duration_est_sec"] > 0
    assert result["model"] == body["model"]
    assert result["credits_used"] == len(body["script"])
    assert response.headers["x-ratelimit-limit"] == "10000"  # starter audio characters
    file = await speech_client.get(result["url"].removeprefix("http://testserver.local"))
    assert len(file.content) == result["size_bytes"]
    import io

    with av.open(io.BytesIO(file.content)) as container:
        stream = container.streams.audio[0]
        assert stream.sample_rate == 44100
        assert abs(float(container.duration / av.time_base) - result["duration_seconds"]) < 0.2


async def test_script_over_5000_characters_is_400_naming_it(
    speech_client: AsyncTestClient,
) -> None:
    key = await issue_key(speech_client)
    response = await speech_client.post(
        "/api/audio", json={"script": "a" * 5001}, headers={"X-SVC-Key": key}
    )
    assert response.status_code == 400
    assert response.json()["fields"][0]["field"] == "script"


async def test_audio_character_quota_is_enforced(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(plans={"starter": {"audio_characters": 30}})
    app = create_app(
        settings, browser=FakeBrowser(), mailer=MemoryMailer(), speech=FakeSpeechProvider()
    )
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        first = await client.post(
            "/api/audio", json={"script": "x" * 20}, headers={"X-SVC-Key": key}
        )
        second = await client.post(
            "/api/audio", json={"script": "y" * 20}, headers={"X-SVC-Key": key}
        )
    assert first.status_code == 200
    assert second.status_code == 429
    assert second.json()["code"] == "QUOTA_EXCEEDED"


@needs_espeak
async def test_a_script_longer_than_the_speech_budget_is_400_and_charges_nothing(
    make_settings: Callable[..., Settings],
) -> None:
    # Half a second of budget: espeak-ng's figure allows a few hundred characters.
    settings = make_settings(speech_timeout=0.5)
    limit = int(0.5 * LocalSpeechProvider.cpu_characters_per_second)
    app = create_app(
        settings, browser=FakeBrowser(), mailer=MemoryMailer(), speech=LocalSpeechProvider()
    )
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        refused = await client.post(
            "/api/audio",
            json={"script": "a" * (limit + 1), "voice_id": "en-us"},
            headers={"X-SVC-Key": key},
        )
        spoken = await client.post(
            "/api/audio",
            json={"script": "Hello there.", "voice_id": "en-us"},
            headers={"X-SVC-Key": key},
        )
    assert refused.status_code == 400, refused.text
    (field,) = refused.json()["fields"]
    assert field["field"] == "script"
    assert f"at most {limit:,}" in field["message"]
    assert spoken.status_code == 200, spoken.text
    # Only the spoken call's 12 characters are charged of the starter plan's 10,000.
    assert spoken.headers["x-ratelimit-remaining"] == str(10_000 - len("Hello there."))


async def test_ogg_is_accepted_echoed_and_served_as_opus_in_an_ogg_container(
    speech_client: AsyncTestClient,
) -> None:
    key = await issue_key(speech_client)
    response = await speech_client.post(
        "/api/audio", json={"script": "Hello in Ogg.", "format": "ogg"}, headers={"X-SVC-Key": key}
    )
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["format"] == "ogg"
    assert result["url"].split("?")[0].endswith(".ogg")
    file = await speech_client.get(result["url"].removeprefix("http://testserver.local"))
    assert file.status_code == 200
    assert file.headers["content-type"].startswith("audio/ogg")
    with av.open(io.BytesIO(file.content)) as container:
        assert container.format.name == "ogg"
        stream = container.streams.audio[0]
        assert stream.codec_context.name == "opus"
        assert stream.sample_rate == 48_000
        assert sum(frame.samples for frame in container.decode(stream)) > 0


async def test_the_cli_and_the_api_accept_exactly_the_same_audio_formats(
    speech_client: AsyncTestClient, tmp_path: Path
) -> None:
    key = await issue_key(speech_client)
    schema = (await speech_client.get("/openapi.json")).json()["components"]["schemas"]
    documented = set(schema["AudioRequest"]["properties"]["format"]["enum"])
    parser = argparse.ArgumentParser(prog="renderkit", exit_on_error=False)
    add_audio_command(parser.add_subparsers(dest="command", required=True))
    accepted: dict[str, tuple[bool, bool, bool]] = {}
    for name in sorted(set(MEDIA_TYPES) | documented | {"flac", "m4a"}):
        response = await speech_client.post(
            "/api/audio", json={"script": "Hi", "format": name}, headers={"X-SVC-Key": key}
        )
        assert response.status_code in (200, 400), response.text
        try:
            parser.parse_args(["audio", "Hi", "-o", "-", "--format", name])
            by_option = True
        except (SystemExit, argparse.ArgumentError):
            by_option = False
        try:
            output_format(tmp_path / f"a.{name}", None, AUDIO_FORMATS, default="mp3")
            by_extension = True
        except CommandError:
            by_extension = False
        accepted[name] = (response.status_code == 200, by_option, by_extension)
    assert {name for name, ways in accepted.items() if all(ways)} == documented
    assert {name for name, ways in accepted.items() if any(ways)} == documented
    assert "ogg" in documented
