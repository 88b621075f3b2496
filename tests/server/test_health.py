"""The public health check reports failing storage and browsers, cheaply and within bounds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import attrs
import pytest
from litestar.testing import AsyncTestClient

from renderkit import StorageUnavailableError
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.probes import CachedProbe
from renderkit_server.settings import Settings

from ..faults._faulty_storage import FaultyLocalStorage

pytestmark = pytest.mark.anyio


@pytest.fixture
async def health_app(
    make_settings: Callable[..., Settings], tmp_path: Path
) -> AsyncIterator[tuple[AsyncTestClient, FaultyLocalStorage, list[float]]]:
    storage = FaultyLocalStorage(tmp_path / "files")
    now = [1000.0]
    app = create_app(make_settings(), browser=FakeBrowser(), mailer=MemoryMailer(), storage=storage)
    async with AsyncTestClient(app) as client:
        app.state.services.storage_probe.clock = lambda: now[0]
        yield client, storage, now


async def test_health_is_ok_with_storage_and_browser_working(
    health_app: tuple[AsyncTestClient, FaultyLocalStorage, list[float]],
) -> None:
    client, _, _ = health_app
    body = (await client.get("/api/health")).json()
    assert body["components"] == {"browser": "ok", "storage": "ok"}
    assert body["services"]["image"] == "ok"


async def test_failing_storage_degrades_health_until_it_recovers(
    health_app: tuple[AsyncTestClient, FaultyLocalStorage, list[float]],
) -> None:
    client, storage, now = health_app
    storage.fault = StorageUnavailableError("local storage failed: Read-only file system")
    response = await client.get("/api/health")
    assert response.status_code == 200  # the interface's only status for health
    body = response.json()
    assert body["status"] == "degraded"
    assert body["components"]["storage"] == "down"
    for capability in ("image", "pdf", "screenshot", "audio"):
        assert body["services"][capability] == "down"
    assert "Read-only" not in response.text  # public view: no backend details
    storage.fault = None
    now[0] += 6  # past the cache lifetime
    assert (await client.get("/api/health")).json()["components"]["storage"] == "ok"


async def test_health_probes_storage_at_most_once_per_cache_lifetime(
    health_app: tuple[AsyncTestClient, FaultyLocalStorage, list[float]],
) -> None:
    client, storage, now = health_app
    await asyncio.gather(*(client.get("/api/health") for _ in range(20)))
    for _ in range(10):
        await client.get("/v1/health")
    assert storage.puts == 1
    now[0] += 6
    await client.get("/api/health")
    assert storage.puts == 2


async def test_a_disconnected_browser_degrades_the_rendering_capabilities(
    health_app: tuple[AsyncTestClient, FaultyLocalStorage, list[float]],
) -> None:
    client, _, _ = health_app
    services = client.app.state.services
    services.engines.browser.connected = False
    # As if the launch at start-up had failed (a fact fixed when the app starts).
    client.app.state.services = attrs.evolve(
        services, host=attrs.evolve(services.host, browser_failed=True)
    )
    body = (await client.get("/api/health")).json()
    assert body["status"] == "degraded"
    assert body["components"]["browser"] == "down"
    assert body["services"]["image"] == "down"
    assert body["services"]["parse"] in ("ok", "down")  # parse needs no browser


async def test_a_hanging_probe_counts_as_down_after_its_timeout() -> None:
    async def hang() -> None:
        await asyncio.Event().wait()

    probe = CachedProbe(check=hang, timeout=0.2)
    started = time.perf_counter()
    assert await probe.ok() is False
    assert time.perf_counter() - started < 2.0
