"""A client that disconnects stops its call's work on the server, and is charged nothing."""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio
import httpx
import pytest

from renderkit.speech import KokoroSpeechProvider
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_app

from ..speech import needs_kokoro
from .conftest import issue_key

pytestmark = pytest.mark.anyio

# About a minute of Kokoro's CPU, within the default speech budget's ceiling.
LONG_SCRIPT = (
    "The weather today is mild, with a light breeze from the west and clear skies. "
    "Please remember to water the garden, feed the cat, and lock the door. "
) * 9


@needs_kokoro
async def test_a_client_disconnecting_mid_synthesis_stops_the_work_and_is_charged_nothing(
    make_settings: Callable[..., Settings],
) -> None:
    kokoro = KokoroSpeechProvider(parallel=1)
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer(), speech=kokoro)
    async with served_app(app, timeout=30) as client:
        key = await issue_key(client)  # type: ignore[arg-type]
        services = app.state.services
        pool = services.engines.workers.audio
        body = {"script": LONG_SCRIPT, "voice_id": "af_heart", "format": "wav"}
        with pytest.raises(httpx.ReadTimeout):
            # The client gives up after 3 s, mid-synthesis, and closes its connection.
            await client.post("/api/audio", json=body, headers={"X-SVC-Key": key}, timeout=3)
        assert pool.busy == 1, "the synthesis should still have been running"
        gone = time.monotonic()
        for _ in range(400):
            if pool.busy == 0 and kokoro._limit.borrowed_tokens == 0:
                break
            await anyio.sleep(0.01)
        took = time.monotonic() - gone
        assert pool.busy == 0 and kokoro._limit.borrowed_tokens == 0
        assert took < 2.0, f"the work ran on for {took:.2f} s"
        used = await services.quotas.usage(services.keys.verify(key).key_id)
        assert used.get("audio_characters", 0) == 0
        assert used.get("audio_minutes", 0) == 0
