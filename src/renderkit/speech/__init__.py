"""Speech from text: :func:`synthesize` and the engines it speaks with.

:func:`synthesize` takes an :class:`AudioRequest` (or a dict in the HTTP API's shape) and
returns an :class:`AudioResult` in one of :data:`AUDIO_FORMATS`. Every provider satisfies the
:class:`SpeechProvider` protocol; the provider is chosen per deployment:
:class:`LocalSpeechProvider` (espeak-ng, offline, the default) or :class:`ElevenLabsProvider`
(the ElevenLabs API over httpx). Encoding into the output formats needs PyAV
(``renderkit[audio]``), imported on first use.
"""

from __future__ import annotations

from renderkit.speech._models import (
    AUDIO_FORMATS,
    AUDIO_MODELS,
    DEFAULT_VOICE_ID,
    MAX_SCRIPT_CHARACTERS,
    AudioRequest,
    AudioResult,
)
from renderkit.speech._protocol import SpeechAudio, SpeechProvider, Voice
from renderkit.speech._synthesize import synthesize
from renderkit.speech.elevenlabs import ElevenLabsProvider
from renderkit.speech.local import PREMADE_VOICES, LocalSpeechProvider

__all__ = [
    "AUDIO_FORMATS",
    "AUDIO_MODELS",
    "DEFAULT_VOICE_ID",
    "MAX_SCRIPT_CHARACTERS",
    "PREMADE_VOICES",
    "AudioRequest",
    "AudioResult",
    "ElevenLabsProvider",
    "LocalSpeechProvider",
    "SpeechAudio",
    "SpeechProvider",
    "Voice",
    "synthesize",
]
