"""A script longer than its engine says within the time budget is refused before any work."""

from __future__ import annotations

import pytest

from renderkit import InvalidRequestError
from renderkit.speech import KokoroSpeechProvider, LocalSpeechProvider, SpeechRouter
from renderkit.speech._models import AudioRequest
from renderkit.speech.budget import check_budget, max_characters
from renderkit.testing import FakeSpeechProvider


def test_kokoro_and_espeak_have_their_own_character_ceilings_for_one_budget() -> None:
    router = SpeechRouter(
        LocalSpeechProvider(), espeak=LocalSpeechProvider(), kokoro=KokoroSpeechProvider()
    )
    neural = max_characters(router, AudioRequest(script="Hi.", voice_id="af_heart"), 120)
    formant = max_characters(router, AudioRequest(script="Hi.", voice_id="en-us"), 120)
    assert neural == 120 * KokoroSpeechProvider.cpu_characters_per_second
    assert formant == 120 * LocalSpeechProvider.cpu_characters_per_second
    assert neural is not None and formant is not None and neural < formant


def test_a_script_over_the_ceiling_is_refused_on_script_naming_the_limit() -> None:
    kokoro = KokoroSpeechProvider()
    limit = int(10 * KokoroSpeechProvider.cpu_characters_per_second)
    check_budget(kokoro, AudioRequest(script="a" * limit, voice_id="af_heart"), 10)
    with pytest.raises(InvalidRequestError) as caught:
        check_budget(kokoro, AudioRequest(script="a" * (limit + 1), voice_id="af_heart"), 10)
    (error,) = caught.value.errors
    assert error.field == "script"
    assert f"at most {limit:,}" in error.message
    assert "kokoro" in error.message


def test_an_engine_without_a_throughput_figure_is_not_bounded_here() -> None:
    request = AudioRequest(script="a" * 5000)
    assert max_characters(FakeSpeechProvider(), request, 0.001) is None
    check_budget(FakeSpeechProvider(), request, 0.001)
