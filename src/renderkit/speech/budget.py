"""How much script an engine can say within a time budget, and refusing more up front.

A local engine speaks on this machine's CPUs, so a script's cost is its length over the
engine's throughput. Each local provider states that throughput once, as
``cpu_characters_per_second`` (measured on one busy core, with headroom for the slowest
scripts); a remote engine (ElevenLabs) has none and is bounded by its own service. A script
longer than throughput x budget would only time out after using the budget's CPU, so it is
refused before any work, naming the limit.
"""

from __future__ import annotations

import math

from renderkit.core.errors import InvalidRequestError
from renderkit.speech._models import AudioRequest
from renderkit.speech._protocol import SpeechProvider
from renderkit.speech.router import SpeechRouter

__all__ = ["check_budget", "max_characters"]


def max_characters(provider: SpeechProvider, request: AudioRequest, seconds: float) -> int | None:
    """The longest script ``provider`` says for ``request`` within ``seconds``.

    A :class:`SpeechRouter` answers for the engine the request's ``voice_id`` goes to. None:
    the engine states no throughput (a remote service), so no local bound applies.

    Raises:
        InvalidRequestError: on ``voice_id``, a voice whose engine is not installed here.
    """
    engine = provider.engine_for(request) if isinstance(provider, SpeechRouter) else provider
    rate: float | None = getattr(engine, "cpu_characters_per_second", None)
    if rate is None:
        return None
    return math.floor(rate * seconds)


def check_budget(provider: SpeechProvider, request: AudioRequest, seconds: float) -> None:
    """Refuse ``request`` when its script is longer than :func:`max_characters` allows.

    Raises:
        InvalidRequestError: on ``script``, naming the limit and the engine.
    """
    limit = max_characters(provider, request, seconds)
    if limit is not None and request.characters > limit:
        engine = provider.engine_for(request) if isinstance(provider, SpeechRouter) else provider
        msg = (
            f"the script has {request.characters:,} characters; the {engine.name} engine "
            f"says at most {limit:,} within this server's {seconds:g} s speech budget: "
            "split it into shorter requests"
        )
        raise InvalidRequestError.single("script", msg)
