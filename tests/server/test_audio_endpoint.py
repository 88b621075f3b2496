"""POST /api/audio through the test client (in-memory speech provider, real encoders)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import av
import pytest
from litestar.testing import AsyncTestClient

from renderkit.speech import LocalSpeechProvider
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
