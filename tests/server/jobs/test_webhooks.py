"""Finished jobs announce themselves by signed webhook: the app served by uvicorn on
127.0.0.1 with its own notifier and delivery loop, and a real receiver on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import anyio
import httpx
import pytest
from standardwebhooks import Webhook

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.jobs.delivery import WebhookNotifier
from renderkit_server.jobs.notify import JobEvent
from renderkit_server.mail import MemoryMailer
from renderkit_server.metrics import Metrics
from renderkit_server.settings import Settings
from renderkit_server.state.webhook_outbox import MemoryWebhookOutbox
from renderkit_server.state.webhook_secrets import MemoryWebhookSecretStore
from renderkit_server.webhooks import (
    DeliveryConfig,
    WebhookDispatcher,
    WebhookSecrets,
    webhook_policy,
)
from tests._uvicorn import served_app
from tests.server.webhooks._receiver import receiver

pytestmark = pytest.mark.anyio

IMAGE = {"template": "og-card", "data": {"title": "Quarterly report"}}


@pytest.fixture
def start(make_settings: Callable[..., Settings]) -> Callable[..., Any]:
    """``async with start(**settings) as client``: the app on uvicorn, retries 50 ms apart."""

    @asynccontextmanager
    async def serve(**overrides: Any) -> AsyncIterator[httpx.AsyncClient]:
        values: dict[str, Any] = {
            "cache_ttl_seconds": 0,
            "jobs_workers": 2,
            "webhook_retry_schedule": (0.0, 0.05, 0.05),
            "webhook_timeout": 2.0,
            "webhook_poll_seconds": 0.05,
            **overrides,
        }
        app = create_app(make_settings(**values), browser=FakeBrowser(), mailer=MemoryMailer())
        async with served_app(app, timeout=30) as client:
            yield client

    return serve


async def _key(client: httpx.AsyncClient, email: str = "hooks@example.com") -> dict[str, str]:
    response = await client.post("/api/keys/generate", json={"email": email})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['key']}"}


async def _submit(client: httpx.AsyncClient, headers: dict[str, str], url: str) -> str:
    body = {"kind": "image", "request": IMAGE, "webhook_url": url}
    response = await client.post("/api/jobs", json=body, headers=headers)
    assert response.status_code == 202, response.text
    job_id: str = response.json()["id"]
    return job_id


async def _until(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    path: str,
    done: Callable[[dict[str, Any]], bool],
    timeout: float = 15,
) -> dict[str, Any]:
    """GET ``path`` until ``done`` holds for its answer."""
    with anyio.fail_after(timeout):
        while True:
            response = await client.get(path, headers=headers)
            assert response.status_code == 200, response.text
            found: dict[str, Any] = response.json()
            if done(found):
                return found
            await anyio.sleep(0.05)


def _delivered(found: dict[str, Any]) -> bool:
    deliveries = found["webhook"]["deliveries"]
    return bool(deliveries) and deliveries[0]["status"] != "pending"


async def test_a_finished_jobs_webhook_arrives_signed_with_the_secret_of_its_key(
    start: Callable[..., Any],
) -> None:
    async with start() as client:
        headers = await _key(client)
        secret = (await client.get("/api/webhooks/secret", headers=headers)).json()["secret"]
        with receiver("ok") as hook:
            job_id = await _submit(client, headers, hook.url)
            job = await _until(client, headers, f"/api/jobs/{job_id}", _delivered)
        [request] = hook.requests
        event = Webhook(secret).verify(request.body, request.headers)
        assert request.headers["webhook-id"] == f"{job_id}_succeeded"
        assert event["type"] == "job.succeeded"
        assert event["data"]["id"] == job_id
        assert event["data"]["result"] == job["result"]
        [delivery] = job["webhook"]["deliveries"]
        assert delivery["id"] == f"{job_id}_succeeded"
        assert delivery["status"] == "succeeded"
        assert [a["status_code"] for a in delivery["attempts"]] == [204]


async def test_a_receiver_failing_twice_then_answering_shows_three_attempts_on_the_job(
    start: Callable[..., Any],
) -> None:
    async with start() as client:
        headers = await _key(client)
        with receiver("fail", "fail", "ok") as hook:
            job_id = await _submit(client, headers, hook.url)
            job = await _until(client, headers, f"/api/jobs/{job_id}", _delivered)
        assert job["status"] == "succeeded"
        [delivery] = job["webhook"]["deliveries"]
        assert delivery["status"] == "succeeded"
        assert delivery["next_attempt_at"] is None
        attempts = delivery["attempts"]
        assert [a["status_code"] for a in attempts] == [503, 503, 204]
        assert [a["error"] for a in attempts] == ["http_status", "http_status", None]
        assert attempts[0]["response_excerpt"].startswith("busy")
        # One delivery: every attempt carried the same webhook-id.
        assert {r.headers["webhook-id"] for r in hook.requests} == {delivery["id"]}
        assert len(hook.requests) == 3


async def test_a_receiver_that_never_answers_is_retried_a_bounded_number_of_times(
    start: Callable[..., Any],
) -> None:
    async with start(webhook_timeout=0.3) as client:
        headers = await _key(client)
        with receiver("hang") as hook:
            job_id = await _submit(client, headers, hook.url)
            job = await _until(client, headers, f"/api/jobs/{job_id}", _delivered)
            seen = len(hook.requests)
        assert job["status"] == "succeeded"
        assert "result" in job
        [delivery] = job["webhook"]["deliveries"]
        assert delivery["status"] == "failed"  # gave up after the schedule's three attempts
        assert [a["error"] for a in delivery["attempts"]] == ["timeout"] * 3
        assert all(a["status_code"] is None for a in delivery["attempts"])
        assert seen == 3


async def test_a_batch_sends_exactly_one_batch_completed_event(
    start: Callable[..., Any],
) -> None:
    async with start() as client:
        headers = await _key(client)
        secret = (await client.get("/api/webhooks/secret", headers=headers)).json()["secret"]
        with receiver("ok") as hook:
            body = {"jobs": [{"kind": "image", "request": IMAGE}] * 3, "webhook_url": hook.url}
            response = await client.post("/api/batches", json=body, headers=headers)
            assert response.status_code == 202, response.text
            batch_id = response.json()["id"]
            batch = await _until(client, headers, f"/api/batches/{batch_id}", _delivered)
            # Its jobs had no webhook of their own: nothing else is on its way.
            for job in batch["jobs"]:
                read = await client.get(f"/api/jobs/{job['id']}", headers=headers)
                assert read.json()["webhook"] == {"deliveries": []}
        [request] = hook.requests
        event = Webhook(secret).verify(request.body, request.headers)
        assert event["type"] == "batch.completed"
        assert event["data"]["id"] == batch_id
        assert event["data"]["counts"]["succeeded"] == 3
        assert request.headers["webhook-id"] == f"{batch_id}_completed"
        assert [d["status"] for d in batch["webhook"]["deliveries"]] == ["succeeded"]


async def test_a_private_webhook_url_without_the_operators_allowance_is_refused_at_submit(
    start: Callable[..., Any],
) -> None:
    with receiver("ok") as hook:
        async with start(allow_private_urls=False) as client:
            headers = await _key(client)
            refused = [
                await client.post(
                    "/api/jobs",
                    json={"kind": "image", "request": IMAGE, "webhook_url": hook.url},
                    headers=headers,
                ),
                await client.post(
                    "/api/batches",
                    json={"jobs": [{"kind": "image", "request": IMAGE}], "webhook_url": hook.url},
                    headers=headers,
                ),
            ]
            for response in refused:
                assert response.status_code == 400, response.text
                assert [f["field"] for f in response.json()["fields"]] == ["webhook_url"]
            listed = await client.get("/api/jobs", headers=headers)
            assert listed.json()["data"] == []
        # The operator's allowance of the receiver's network admits it.
        async with start(allow_private_urls=False, allow_networks=("127.0.0.1/32",)) as client:
            headers = await _key(client)
            job_id = await _submit(client, headers, hook.url)
            await _until(client, headers, f"/api/jobs/{job_id}", _delivered)
        assert len(hook.requests) == 1


async def test_an_event_larger_than_the_payload_limit_is_sent_as_its_summary(
    start: Callable[..., Any],
) -> None:
    async with start(webhook_max_payload_bytes=1024) as client:
        headers = await _key(client)
        with receiver("ok") as hook:
            body = {"jobs": [{"kind": "image", "request": IMAGE}] * 3, "webhook_url": hook.url}
            response = await client.post("/api/batches", json=body, headers=headers)
            assert response.status_code == 202, response.text
            batch_id = response.json()["id"]
            batch = await _until(client, headers, f"/api/batches/{batch_id}", _delivered)
        [request] = hook.requests
        event = json.loads(request.body)
        assert len(request.body) <= 1024 < len(json.dumps(batch))
        assert event["data"]["truncated"] is True
        assert "jobs" not in event["data"]
        assert event["data"]["counts"]["succeeded"] == 3
        assert event["data"]["status_url"] == batch["status_url"]
        assert "truncated" not in batch


def _event(webhook_url: str | None) -> JobEvent:
    data = {"id": "job_1", "status": "succeeded"}
    return JobEvent(
        id="job_1_succeeded",
        type="job.succeeded",
        subject="job_1",
        owner="0123456789abcdef",
        webhook_url=webhook_url,
        body={"type": "job.succeeded", "timestamp": "2026-11-27T05:00:00Z", "data": data},
    )


@pytest.fixture
async def dispatcher() -> AsyncIterator[Callable[..., WebhookDispatcher]]:
    made: list[WebhookDispatcher] = []

    def make(**config: Any) -> WebhookDispatcher:
        found = WebhookDispatcher(
            outbox=MemoryWebhookOutbox(),
            secrets=WebhookSecrets(MemoryWebhookSecretStore(), grace=timedelta(hours=1)),
            policy=webhook_policy(allow_private=True, allow_networks=()),
            config=DeliveryConfig(**config),
        )
        made.append(found)
        return found

    yield make
    for found in made:
        await found.aclose()


async def test_an_event_announced_twice_is_one_delivery(
    dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    webhooks = dispatcher()
    notifier = WebhookNotifier(webhooks)
    await notifier.job_finished(_event("http://127.0.0.1:9/hook"))
    await notifier.job_finished(_event("http://127.0.0.1:9/hook"))
    [delivery] = await webhooks.deliveries("0123456789abcdef", "job_1")
    assert delivery.id == "job_1_succeeded"


async def test_an_event_without_a_webhook_url_queues_nothing(
    dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    webhooks = dispatcher()
    await WebhookNotifier(webhooks).job_finished(_event(None))
    assert await webhooks.deliveries("0123456789abcdef", "job_1") == []


async def test_a_full_backlog_is_counted_and_never_raised(
    dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    metrics = Metrics()
    webhooks = dispatcher(max_pending=0)
    await WebhookNotifier(webhooks, metrics=metrics).job_finished(_event("http://127.0.0.1:9/"))
    assert await webhooks.deliveries("0123456789abcdef", "job_1") == []
    exposition = metrics.exposition().decode()
    assert 'renderkit_webhook_deliveries_total{outcome="not_queued"} 1.0' in exposition
