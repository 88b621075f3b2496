"""A key's in-flight cap holds across two replicas, each with its own real Chromium pool."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio
from litestar import Litestar

from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.core.waits import cancel_and_wait
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_app

from ._redis import redis_server, require_redis_server
from .conftest import ADMIN

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

BUSY = "<script>const t=Date.now();while(Date.now()-t<1500){}</script>"
SLOW = {"template": "custom", "html": BUSY}
OG_CARD = {"template": "og-card", "data": {"title": "Warm"}}


@pytest.fixture
def redis_url() -> Iterator[str]:
    require_redis_server()
    with redis_server() as url:
        yield url


@contextlib.asynccontextmanager
async def _serve(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, Litestar]]:
    """One replica on uvicorn on 127.0.0.1 with its own pool (requests run concurrently)."""
    pool = ChromiumPool(
        BrowserConfig(slots=2, allow_private_network=True, document_timeout=15, queue_timeout=30)
    )
    app = create_app(settings, browser=pool, mailer=MemoryMailer())
    async with served_app(app) as client:
        yield client, app


async def test_a_starter_key_gets_one_render_at_a_time_over_two_replicas(
    tmp_path: Path, redis_url: str
) -> None:
    def settings(name: str) -> Settings:
        return Settings(
            data_dir=tmp_path / name,
            admin_token=ADMIN,
            allow_private_urls=True,
            secret="test-secret-that-is-long-enough",
            redis_url=redis_url,
            browser_queue_timeout=10,
        )

    async with _serve(settings("a")) as (a, app), _serve(settings("b")) as (b, _):
        issued = await a.post("/api/keys/generate", json={"email": "s@example.com"})
        key = issued.json()["key"]
        headers = {"X-SVC-Key": key}
        for replica in (a, b):  # launch and warm both browsers
            assert (await replica.post("/api/image", json=OG_CARD, headers=headers)).is_success
        leases = redis.asyncio.Redis.from_url(redis_url)
        key_id = app.state.services.keys.verify(key).key_id
        lease_set = f"renderkit:inflight:{key_id}"
        counts: list[int] = []
        stop = asyncio.Event()

        async def watch() -> None:
            # Ended by its flag, not by cancelling it: redis-py can swallow a cancellation
            # that arrives during a command, and a loop that lost it polled for ever (a CI run
            # hung here, the Redis server counting the watcher's ZCARDs).
            while not stop.is_set():
                counts.append(await leases.zcard(lease_set))
                await asyncio.sleep(0.05)

        async def render(replica: httpx.AsyncClient) -> tuple[httpx.Response, float]:
            response = await replica.post("/api/image", json=SLOW, headers=headers)
            return response, time.monotonic()

        watcher = asyncio.create_task(watch())
        try:
            results = await asyncio.gather(render(a), render(b))
        finally:
            stop.set()
            await asyncio.wait({watcher}, timeout=5)
            await cancel_and_wait(watcher, within=5)
            await leases.aclose()

    statuses = sorted(response.status_code for response, _ in results)
    assert statuses in ([200, 200], [200, 429]), [r.text for r, _ in results]
    assert max(counts) == 1  # never two leases at once, and the renders did take one
    if statuses == [200, 200]:
        finished = sorted(at for _, at in results)
        assert finished[1] - finished[0] > 1.2  # the second ran after the first
    else:
        refused: Any = next(r for r, _ in results if r.status_code == 429)
        assert refused.json()["code"] == "TOO_MANY_IN_FLIGHT"
        assert int(refused.headers["retry-after"]) >= 1
