"""CPU worker pools through the app: a call beyond the workers and the queue is a 503."""

from __future__ import annotations

import threading
from collections.abc import Callable

import anyio
import anyio.to_thread
import pytest

from renderkit.speech import AudioRequest
from renderkit.speech._protocol import PcmSink
from renderkit.testing import FakeBrowser, FakeSpeechProvider
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_app

from .conftest import issue_key

pytestmark = pytest.mark.anyio


class HeldSpeech(FakeSpeechProvider):
    """A streaming fake that speaks only once :attr:`release` is set (bounded: 10 s)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    async def stream_pcm(self, request: AudioRequest, sink: PcmSink) -> None:
        await anyio.to_thread.run_sync(self.release.wait, 10)
        await sink(await self.synthesize(request))


async def test_a_third_concurrent_audio_call_on_one_worker_and_a_queue_of_one_is_503(
    make_settings: Callable[..., Settings],
) -> None:
    speech = HeldSpeech()
    settings = make_settings(workers=1, workers_queue=1)
    app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer(), speech=speech)
    body = {"script": "Hold on a moment.", "format": "mp3"}
    async with served_app(app, timeout=30) as client:
        keys = [await issue_key(client, email=f"{n}@example.com") for n in range(3)]  # type: ignore[arg-type]
        pool = app.state.services.engines.workers.audio
        statuses: dict[int, int] = {}

        async def call(n: int) -> None:
            response = await client.post("/api/audio", json=body, headers={"X-SVC-Key": keys[n]})
            statuses[n] = response.status_code

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call, 0)
                tasks.start_soon(call, 1)
                for _ in range(1000):  # until one call encodes and one waits for the worker
                    if (pool.busy, pool.queued) == (1, 1):
                        break
                    await anyio.sleep(0.01)
                assert (pool.busy, pool.queued) == (1, 1)
                refused = await client.post("/api/audio", json=body, headers={"X-SVC-Key": keys[2]})
                speech.release.set()
        assert refused.status_code == 503
        assert refused.json() == {
            "error": "the server is busy (audio workers); retry shortly",
            "code": "OVERLOADED",
            "status": 503,
        }
        assert refused.headers["Retry-After"] == "1"
        assert statuses == {0: 200, 1: 200}
        # The refused call cost nothing.
        services = app.state.services
        used = await services.quotas.usage(services.keys.verify(keys[2]).key_id)
        assert used.get("audio_characters", 0) == 0
