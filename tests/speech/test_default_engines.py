"""A call without a provider speaks with espeak-ng, and with Kokoro for a Kokoro voice id."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderkit import InvalidRequestError, render_many
from renderkit.batch import _run
from renderkit.speech import (
    KokoroSpeechProvider,
    LocalSpeechProvider,
    SpeechRouter,
    default_speech_provider,
    synthesize,
)
from renderkit.speech.kokoro_assets import KokoroAssets
from renderkit.sync import Renderkit

from . import decode, needs_espeak, needs_kokoro

pytestmark = pytest.mark.anyio


def test_without_kokoro_files_the_default_engines_are_espeak_alone(tmp_path: Path) -> None:
    router = default_speech_provider(kokoro=KokoroAssets(directory=tmp_path / "none"))
    assert isinstance(router.default, LocalSpeechProvider)
    assert router.kokoro is None
    assert router.engines == [router.default]


@needs_kokoro
def test_installed_kokoro_joins_the_default_engines() -> None:
    router = default_speech_provider()
    assert isinstance(router.default, LocalSpeechProvider)
    assert isinstance(router.kokoro, KokoroSpeechProvider)


@needs_espeak
@needs_kokoro
async def test_a_kokoro_voice_id_speaks_with_kokoro_without_naming_a_provider() -> None:
    result = await synthesize({"script": "Good morning.", "voice_id": "af_heart", "format": "wav"})
    assert result.provider == KokoroSpeechProvider.name
    assert decode(result.content).duration > 0.5


@needs_espeak
async def test_an_espeak_voice_still_speaks_with_espeak_without_a_provider() -> None:
    result = await synthesize({"script": "Good morning.", "voice_id": "en-us", "format": "wav"})
    assert result.provider == LocalSpeechProvider.name


async def test_an_unknown_voice_without_a_provider_is_invalid_on_voice_id() -> None:
    with pytest.raises(InvalidRequestError) as exc:
        await synthesize({"script": "Hi", "voice_id": "no_such_voice_here"})
    assert [e.field for e in exc.value.errors] == ["voice_id"]


@needs_espeak
async def test_a_batch_shares_one_set_of_engines_and_closes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[SpeechRouter] = []
    closed: list[SpeechRouter] = []

    def counting() -> SpeechRouter:
        router = default_speech_provider()
        original = router.aclose

        async def aclose() -> None:
            closed.append(router)
            await original()

        router.aclose = aclose  # type: ignore[method-assign]
        built.append(router)
        return router

    monkeypatch.setattr(_run, "default_speech_provider", counting)
    jobs = [
        {"kind": "audio", "request": {"script": f"Number {i}.", "format": "wav"}} for i in range(3)
    ]
    outcomes = await render_many(jobs, concurrency=2)
    assert all(outcome.ok for outcome in outcomes)
    assert len(built) == 1
    assert closed == built


@needs_espeak
def test_a_blocking_session_builds_its_engines_once_and_frees_them_on_close() -> None:
    with Renderkit() as rk:
        rk.synthesize({"script": "One.", "format": "wav"})
        engines = rk._speech
        rk.synthesize({"script": "Two.", "format": "wav"})
        assert rk._speech is engines
        assert isinstance(engines, SpeechRouter)
    assert rk._speech is None
