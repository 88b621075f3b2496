"""``/api/webhooks/secret`` and its rotation through the app, and the app's delivery loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from standardwebhooks import Webhook

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.services import Services
from renderkit_server.settings import Settings

from ..conftest import issue_key
from ._receiver import receiver

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(
    make_settings: Callable[..., Settings], fake_browser: FakeBrowser
) -> AsyncIterator[AsyncTestClient]:
    settings = make_settings(webhook_retry_schedule=(0.0, 0.05), webhook_poll_seconds=0.05)
    async with AsyncTestClient(create_app(settings, browser=fake_browser)) as test_client:
        yield test_client


def services_of(client: AsyncTestClient) -> Services:
    services: Services = client.app.state.services
    return services


async def test_the_secret_needs_a_key(client: AsyncTestClient) -> None:
    for method, path in (("GET", "/api/webhooks/secret"), ("POST", "/v1/webhooks/secret/rotate")):
        response = await client.request(method, path)
        assert response.status_code == 401
        assert response.json()["code"] == "UNAUTHORIZED"


async def test_the_first_fetch_creates_the_secret_and_later_fetches_return_it(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    first = await client.get("/api/webhooks/secret", headers={"X-SVC-Key": key})
    assert first.status_code == 200
    assert first.headers["cache-control"] == "no-store"
    body = first.json()
    assert body["secret"].startswith("whsec_") and len(body["secret"]) == 50
    assert body["previous_valid_until"] is None
    again = await client.get("/v1/webhooks/secret", headers={"Authorization": f"Bearer {key}"})
    assert again.json() == body


async def test_rotation_returns_a_new_secret_and_keeps_the_old_for_the_grace(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    headers = {"X-SVC-Key": key}
    old = (await client.get("/api/webhooks/secret", headers=headers)).json()["secret"]
    rotated = await client.post("/api/webhooks/secret/rotate", headers=headers)
    assert rotated.status_code == 200
    assert rotated.headers["cache-control"] == "no-store"
    body = rotated.json()
    assert body["secret"] != old and body["previous_valid_until"].endswith("Z")
    assert (await client.get("/api/webhooks/secret", headers=headers)).json() == body
    lineage = services_of(client).keys.verify(key).key_id
    keys = await services_of(client).webhooks.secrets.signing_keys(lineage)
    assert len(keys) == 2  # the new one, and the old one during the grace


async def test_another_key_cannot_read_or_rotate_a_lineages_secret(
    client: AsyncTestClient,
) -> None:
    owner = await issue_key(client, email="owner@example.com")
    other = await issue_key(client, email="other@example.com")
    mine = (await client.get("/api/webhooks/secret", headers={"X-SVC-Key": owner})).json()
    theirs = (await client.get("/api/webhooks/secret", headers={"X-SVC-Key": other})).json()
    assert theirs["secret"] != mine["secret"]
    await client.post("/api/webhooks/secret/rotate", headers={"X-SVC-Key": other})
    after = (await client.get("/api/webhooks/secret", headers={"X-SVC-Key": owner})).json()
    assert after == mine


async def test_a_regenerated_key_keeps_its_lineages_secret(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    before = (await client.get("/api/webhooks/secret", headers={"X-SVC-Key": key})).json()
    regenerated = await client.post("/api/keys/regenerate", headers={"X-SVC-Key": key})
    new_key = regenerated.json()["key"]
    after = (await client.get("/api/webhooks/secret", headers={"X-SVC-Key": new_key})).json()
    assert after["secret"] == before["secret"]


async def test_the_apps_delivery_loop_delivers_an_event_the_key_holder_verifies(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    secret = (await client.get("/api/webhooks/secret", headers={"X-SVC-Key": key})).json()
    services = services_of(client)
    lineage = services.keys.verify(key).key_id
    with receiver("fail", "ok") as hook:
        queued = await services.webhooks.enqueue(
            lineage=lineage, url=hook.url, event="job.succeeded", data={"id": "job_9"}
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if len(hook.requests) >= 2:
                break
            await asyncio.sleep(0.02)
        requests = list(hook.requests)
    assert len(requests) == 2
    headers: dict[str, Any] = {
        k: v for k, v in requests[1].headers.items() if k.startswith("webhook-")
    }
    payload = Webhook(secret["secret"]).verify(requests[1].body, headers)
    assert payload["data"] == {"id": "job_9"}
    while time.monotonic() < deadline:
        done = await services.webhooks.outbox.get(queued.id)
        if done is not None and done.status == "succeeded":
            break
        await asyncio.sleep(0.02)
    metrics = (await client.get("/metrics")).text
    assert 'renderkit_webhook_deliveries_total{outcome="failed_attempt"} 1.0' in metrics
    assert 'renderkit_webhook_deliveries_total{outcome="success"} 1.0' in metrics
