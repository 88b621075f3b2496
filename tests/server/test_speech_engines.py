"""The speech engine settings: espeak-ng or Kokoro by default, Kokoro voices by id."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from renderkit import ConfigurationError
from renderkit.speech import KokoroSpeechProvider, LocalSpeechProvider, SpeechRouter
from renderkit.speech._models import AudioRequest
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.engines import warm_speech
from renderkit_server.mail import MemoryMailer
from renderkit_server.services import build_services
from renderkit_server.settings import Settings

from ..speech import needs_kokoro
from .conftest import issue_key

pytestmark = pytest.mark.anyio


def test_engine_settings_are_read_from_the_environment(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {
            "RENDERKIT_SPEECH_ENGINE": "kokoro",
            "RENDERKIT_KOKORO_DIR": str(tmp_path),
            "RENDERKIT_KOKORO_MODEL": str(tmp_path / "own.onnx"),
            "RENDERKIT_KOKORO_THREADS": "2",
            "RENDERKIT_KOKORO_PARALLEL": "3",
        }
    )
    assert (settings.speech_engine, settings.kokoro_dir) == ("kokoro", tmp_path)
    assert settings.kokoro_model == tmp_path / "own.onnx"
    assert (settings.kokoro_threads, settings.kokoro_parallel) == (2, 3)
    assert Settings().speech_engine == "espeak"


async def test_choosing_kokoro_without_its_files_stops_the_server_at_start(
    make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    settings = make_settings(speech_engine="kokoro", kokoro_dir=tmp_path / "empty")
    with pytest.raises(ConfigurationError) as exc:
        await build_services(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    assert "renderkit speech install-kokoro" in str(exc.value)


@pytest.mark.parametrize(
    ("engine", "default"), [("espeak", LocalSpeechProvider), ("kokoro", KokoroSpeechProvider)]
)
@needs_kokoro
async def test_the_engine_setting_picks_who_speaks_premade_ids(
    make_settings: Callable[..., Settings], engine: str, default: type
) -> None:
    settings = make_settings(speech_engine=engine)
    services = await build_services(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    try:
        speech = services.engines.speech
        assert isinstance(speech, SpeechRouter)
        premade = AudioRequest(script="Hi", voice_id="21m00Tcm4TlvDq8ikWAM")
        assert isinstance(speech.engine_for(premade), default)
        kokoro_voice = AudioRequest(script="Hi", voice_id="bm_george")
        assert isinstance(speech.engine_for(kokoro_voice), KokoroSpeechProvider)
        assert isinstance(
            speech.engine_for(AudioRequest(script="Hi", voice_id="en-gb")), LocalSpeechProvider
        )
    finally:
        await services.aclose()


@needs_kokoro
async def test_the_api_speaks_a_kokoro_voice(make_settings: Callable[..., Settings]) -> None:
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        body = {"script": "Hi there.", "voice_id": "bf_emma", "format": "wav", "cache": False}
        response = await client.post("/api/audio", json=body, headers={"X-SVC-Key": key})
        assert response.status_code == 200, response.text
        result = response.json()
        assert result["voice_id"] == "bf_emma"
        assert 0.3 < result["duration_seconds"] < 3


@pytest.mark.parametrize(("engine", "warmed"), [("kokoro", True), ("espeak", False)])
@needs_kokoro
async def test_the_server_warms_kokoro_only_when_it_is_the_default(
    make_settings: Callable[..., Settings], engine: str, warmed: bool
) -> None:
    settings = make_settings(speech_engine=engine, kokoro_threads=2)
    services = await build_services(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    try:
        speech = services.engines.speech
        assert isinstance(speech, SpeechRouter) and speech.kokoro is not None

        await warm_speech(speech)  # what the app's lifespan starts

        assert (speech.kokoro._session is not None) is warmed
        assert (speech.kokoro._wide is not None) is warmed
    finally:
        await services.aclose()
