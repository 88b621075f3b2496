"""Speech from text: :func:`synthesize` and the engines it speaks with.

:func:`synthesize` takes an :class:`AudioRequest` (or a dict in the HTTP API's shape) and
returns an :class:`AudioResult` in one of :data:`AUDIO_FORMATS`; :func:`synthesize_stream`
hands the encoded file over piece by piece while it is still being spoken. Every provider
satisfies the :class:`SpeechProvider` protocol; the provider is chosen per deployment:
:class:`LocalSpeechProvider` (espeak-ng, offline, the default), :class:`KokoroSpeechProvider`
(a neural voice, offline, ``renderkit[neural-speech]``) or :class:`ElevenLabsProvider` (the
ElevenLabs API over httpx); :class:`SpeechRouter` picks one of several per ``voice_id``.
Encoding into the output formats needs PyAV (``renderkit[audio]``), imported on first use.
"""

from __future__ import annotations

from renderkit.speech._encode import STREAMABLE_FORMATS
from renderkit.speech._models import (
    AUDIO_FORMATS,
    AUDIO_MODELS,
    DEFAULT_VOICE_ID,
    MAX_SCRIPT_CHARACTERS,
    AudioRequest,
    AudioResult,
)
from renderkit.speech._protocol import SpeechAudio, SpeechProvider, Voice
from renderkit.speech._stream import AudioStream, synthesize_stream
from renderkit.speech._synthesize import synthesize
from renderkit.speech.elevenlabs import ElevenLabsProvider
from renderkit.speech.espeak import PREMADE_VOICES, LocalSpeechProvider
from renderkit.speech.kokoro import KOKORO_VOICES, KokoroSpeechProvider
from renderkit.speech.kokoro_assets import KokoroAssets, install_kokoro
from renderkit.speech.router import SpeechRouter, default_speech_provider

__all__ = [
    "AUDIO_FORMATS",
    "AUDIO_MODELS",
    "DEFAULT_VOICE_ID",
    "KOKORO_VOICES",
    "MAX_SCRIPT_CHARACTERS",
    "PREMADE_VOICES",
    "STREAMABLE_FORMATS",
    "AudioRequest",
    "AudioResult",
    "AudioStream",
    "ElevenLabsProvider",
    "KokoroAssets",
    "KokoroSpeechProvider",
    "LocalSpeechProvider",
    "SpeechAudio",
    "SpeechProvider",
    "SpeechRouter",
    "Voice",
    "default_speech_provider",
    "install_kokoro",
    "synthesize",
    "synthesize_stream",
]
