"""Choosing the speech engine per request, by voice id.

A deployment has one default engine (espeak-ng, Kokoro or ElevenLabs) and may have Kokoro
beside it. :class:`SpeechRouter` sends each request to the engine its ``voice_id`` belongs to:

- a Kokoro voice (``af_heart``...) -> Kokoro;
- an ElevenLabs premade id (the spec's default voice among them) -> the default engine;
- with a local default, an espeak-ng voice (``en-us``, ``de+m2``...) -> espeak-ng;
- with ElevenLabs as the default, any other id -> ElevenLabs.
"""

from __future__ import annotations

from renderkit.core.errors import InvalidRequestError
from renderkit.speech._models import AudioRequest
from renderkit.speech._protocol import SpeechAudio, SpeechProvider, Voice
from renderkit.speech.espeak import LocalSpeechProvider
from renderkit.speech.kokoro import KOKORO_VOICES, PREMADE_KOKORO_VOICES, KokoroSpeechProvider
from renderkit.speech.kokoro_assets import KokoroAssets

__all__ = ["SpeechRouter", "default_speech_provider"]


def default_speech_provider(
    *, espeak: str = "espeak-ng", kokoro: KokoroAssets | None = None
) -> SpeechRouter:
    """The engines a call without a provider speaks with: espeak-ng, and Kokoro beside it.

    Kokoro joins when its files are installed (``kokoro``, by default the cache
    ``renderkit speech install-kokoro`` writes), so a Kokoro ``voice_id`` works without
    naming a provider. Kokoro loads its model on first use only; close the router with
    ``aclose()`` to free it.
    """
    local = LocalSpeechProvider(espeak)
    assets = kokoro if kokoro is not None else KokoroAssets()
    neural = KokoroSpeechProvider(assets, espeak=espeak) if assets.ready() else None
    return SpeechRouter(local, espeak=local, kokoro=neural)


class SpeechRouter:
    """A :class:`SpeechProvider` that delegates each request to one of several engines.

    :func:`renderkit.synthesize` asks :meth:`engine_for` first and speaks with that engine
    directly (streaming, and reporting that engine's name in the result).

    Args:
        default: the engine for premade ids (and, when it is not local, for every id the
            others do not own).
        espeak: espeak-ng, for espeak-ng voice ids (omit to refuse them unless the default
            takes them).
        kokoro: Kokoro, for Kokoro voice ids; None when it is not installed here.
    """

    def __init__(
        self,
        default: SpeechProvider,
        *,
        espeak: LocalSpeechProvider | None = None,
        kokoro: KokoroSpeechProvider | None = None,
    ) -> None:
        self.default = default
        #: The default engine's name (results report the engine that actually spoke).
        self.name = default.name
        self.espeak = espeak
        self.kokoro = kokoro

    def __repr__(self) -> str:
        return f"SpeechRouter(default={self.default!r}, kokoro={self.kokoro is not None})"

    @property
    def engines(self) -> list[SpeechProvider]:
        """Each distinct engine, the default first."""
        out: list[SpeechProvider] = [self.default]
        for engine in (self.kokoro, self.espeak):
            if engine is not None and all(engine is not e for e in out):
                out.append(engine)
        return out

    def engine_for(self, request: AudioRequest) -> SpeechProvider:
        """The engine that speaks ``request``.

        Raises:
            InvalidRequestError: on ``voice_id``: a Kokoro voice where Kokoro is not installed.
        """
        voice_id = request.voice_id
        if voice_id in KOKORO_VOICES:
            if self.kokoro is None:
                msg = (
                    f"{voice_id!r} is a Kokoro voice and the Kokoro engine is not installed "
                    "here; list the valid ids with `renderkit audio --list-voices`"
                )
                raise InvalidRequestError.single("voice_id", msg)
            return self.kokoro
        if voice_id in PREMADE_KOKORO_VOICES or self.espeak is None:
            return self.default
        if isinstance(self.default, (LocalSpeechProvider, KokoroSpeechProvider)):
            return self.espeak
        return self.default

    async def synthesize(self, request: AudioRequest) -> SpeechAudio:
        """Speak with :meth:`engine_for`'s engine; raises what that engine raises."""
        return await self.engine_for(request).synthesize(request)

    async def list_voices(self) -> list[Voice]:
        """Every engine's voices, the default engine's first, each id once."""
        seen: set[str] = set()
        out: list[Voice] = []
        for engine in self.engines:
            for voice in await engine.list_voices():
                if voice.voice_id not in seen:
                    seen.add(voice.voice_id)
                    out.append(voice)
        return out

    async def aclose(self) -> None:
        """Close every engine."""
        for engine in self.engines:
            await engine.aclose()
