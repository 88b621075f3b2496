"""Speech providers: the engines :func:`renderkit.synthesize` speaks with.

Every provider satisfies the :class:`SpeechProvider` protocol. The provider is chosen per
deployment: :class:`LocalSpeechProvider` (espeak-ng, offline, the default) or
:class:`ElevenLabsProvider` (the ElevenLabs API over httpx). Encoding into the output
formats needs PyAV (``renderkit[audio]``), imported on first use.
"""

from __future__ import annotations

from ._protocol import SpeechAudio, SpeechProvider, Voice
from .elevenlabs import ElevenLabsProvider
from .local import PREMADE_VOICES, LocalSpeechProvider

__all__ = [
    "PREMADE_VOICES",
    "ElevenLabsProvider",
    "LocalSpeechProvider",
    "SpeechAudio",
    "SpeechProvider",
    "Voice",
]
