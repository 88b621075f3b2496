"""An app with job workers over a fake browser, and helpers to drive jobs through HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from litestar.testing import AsyncTestClient

from renderkit.browser import Capture, Shell
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.jobs import RecordingNotifier
from renderkit_server.mail import MemoryMailer
from renderkit_server.services import Services
from renderkit_server.settings import Settings
from tests.server.conftest import issue_key

IMAGE = {"template": "og-card", "data": {"title": "Quarterly report"}}


class GatedBrowser(FakeBrowser):
    """A fake browser whose fragment captures wait until :attr:`gate` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        #: Set once a capture waits at the gate.
        self.entered = asyncio.Event()

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        self.entered.set()
        await self.gate.wait()
        return await super().capture_fragment(shell, fragment, capture)


@pytest.fixture
def notifier() -> RecordingNotifier:
    return RecordingNotifier()


@pytest.fixture
def job_settings(make_settings: Callable[..., Settings]) -> Callable[..., Settings]:
    """Settings for job tests: no render cache (every run renders), short leases."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "cache_ttl_seconds": 0,
            "jobs_lease_seconds": 1.0,
            "jobs_workers": 2,
        }
        values.update(overrides)
        return make_settings(**values)

    return make


@pytest.fixture
def serve(job_settings: Callable[..., Settings], notifier: RecordingNotifier) -> Callable[..., Any]:
    """``async with serve(browser=..., **settings) as client``: the app, started and stopped."""

    @asynccontextmanager
    async def start(
        browser: FakeBrowser | None = None, **overrides: Any
    ) -> AsyncIterator[AsyncTestClient[Any]]:
        app = create_app(
            job_settings(**overrides),
            browser=browser or FakeBrowser(),
            mailer=MemoryMailer(),
            notifier=notifier,
        )
        async with AsyncTestClient(app) as client:
            yield client

    return start


def services(client: AsyncTestClient[Any]) -> Services:
    found: Services = client.app.state.services
    return found


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def submit(
    client: AsyncTestClient[Any], key: str, kind: str = "image", request: Any = None, **extra: Any
) -> dict[str, Any]:
    body = {"kind": kind, "request": IMAGE if request is None else request, **extra}
    response = await client.post("/api/jobs", json=body, headers=auth(key))
    assert response.status_code == 202, response.text
    job: dict[str, Any] = response.json()
    return job


async def wait_for(
    client: AsyncTestClient[Any],
    key: str,
    job_id: str,
    *statuses: str,
    timeout: float = 10,
) -> dict[str, Any]:
    """Poll the job until its status is one of ``statuses``."""
    with anyio.fail_after(timeout):
        while True:
            response = await client.get(f"/api/jobs/{job_id}", headers=auth(key))
            assert response.status_code == 200, response.text
            job: dict[str, Any] = response.json()
            if job["status"] in statuses:
                return job
            await anyio.sleep(0.02)


async def images_used(client: AsyncTestClient[Any], key: str) -> int:
    lineage = services(client).keys.verify(key).key_id
    usage = await services(client).quotas.usage(lineage)
    return usage.get("images", 0)


__all__ = [
    "IMAGE",
    "GatedBrowser",
    "Path",
    "auth",
    "images_used",
    "issue_key",
    "services",
    "submit",
    "wait_for",
]
