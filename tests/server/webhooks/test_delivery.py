"""Webhook delivery against a real receiver on 127.0.0.1: signatures a receiver verifies
with the standardwebhooks package, retries, give-ups, redirects, egress and restarts."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from renderkit import InvalidRequestError
from renderkit.core.netpolicy import UrlPolicy
from renderkit_server.metrics import Metrics
from renderkit_server.state.webhook_outbox import (
    Attempt,
    Delivery,
    MemoryWebhookOutbox,
    SqliteWebhookOutbox,
    WebhookBacklogFullError,
    WebhookOutbox,
)
from renderkit_server.state.webhook_secrets import MemoryWebhookSecretStore
from renderkit_server.webhooks import (
    EXCERPT_CHARS,
    DeliveryConfig,
    WebhookDispatcher,
    WebhookPayloadTooLargeError,
    WebhookSecrets,
    check_webhook_url,
    delivery_json,
    format_secret,
    webhook_policy,
)

from ._receiver import receiver

pytestmark = pytest.mark.anyio

LINEAGE = "0123456789abcdef"
LOOPBACK = webhook_policy(allow_private=True, allow_networks=())
STRICT = webhook_policy(allow_private=False, allow_networks=())
DATA = {"id": "job_1", "status": "succeeded", "result": {"url": "https://x.test/a.png"}}


@pytest.fixture
def secret_store() -> MemoryWebhookSecretStore:
    return MemoryWebhookSecretStore()


@pytest.fixture
async def make_dispatcher(
    secret_store: MemoryWebhookSecretStore,
) -> AsyncIterator[Callable[..., WebhookDispatcher]]:
    """Dispatchers with a short schedule, closed after the test."""
    made: list[WebhookDispatcher] = []

    def make(
        *,
        outbox: WebhookOutbox | None = None,
        policy: UrlPolicy = LOOPBACK,
        secrets: WebhookSecrets | None = None,
        metrics: Metrics | None = None,
        **config: Any,
    ) -> WebhookDispatcher:
        settings = {"timeout": 2.0, "schedule": (0.0, 0.05, 0.05), **config}
        dispatcher = WebhookDispatcher(
            outbox=outbox or MemoryWebhookOutbox(),
            secrets=secrets or WebhookSecrets(secret_store, grace=timedelta(hours=1)),
            policy=policy,
            config=DeliveryConfig(**settings),
            metrics=metrics,
        )
        made.append(dispatcher)
        return dispatcher

    yield make
    for dispatcher in made:
        await dispatcher.aclose()


async def drain(dispatcher: WebhookDispatcher, delivery_id: str, within: float = 15) -> Delivery:
    """Run the loop's passes until the delivery is finished."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        await dispatcher.run_once()
        found = await dispatcher.outbox.get(delivery_id)
        assert found is not None
        if found.status != "pending":
            return found
        await asyncio.sleep(0.02)
    raise AssertionError("the delivery did not finish")


async def secret_of(dispatcher: WebhookDispatcher) -> str:
    return format_secret((await dispatcher.secrets.fetch(LINEAGE)).current)


def headers_of(request: Any) -> dict[str, str]:
    return {k: v for k, v in request.headers.items() if k.startswith("webhook-")}


async def test_a_delivery_carries_a_signature_the_standardwebhooks_package_verifies(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    metrics = Metrics()
    dispatcher = make_dispatcher(metrics=metrics)
    with receiver("ok") as hook:
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.succeeded", data=DATA, subject="job_1"
        )
        done = await drain(dispatcher, queued.id)
    assert done.status == "succeeded"
    [attempt] = done.attempts
    assert attempt.status == 204 and attempt.error is None and attempt.seconds > 0
    [request] = hook.requests
    assert request.headers["content-type"] == "application/json"
    assert request.headers["webhook-id"] == queued.id
    assert request.headers["host"] == f"127.0.0.1:{hook.port}"
    payload = Webhook(await secret_of(dispatcher)).verify(request.body, headers_of(request))
    assert payload["type"] == "job.succeeded" and payload["data"] == DATA
    assert payload["timestamp"].endswith("Z")
    # Signed with another secret, the same request does not verify.
    with pytest.raises(WebhookVerificationError):
        Webhook(format_secret(b"x" * 32)).verify(request.body, headers_of(request))
    # The attempt is readable where the jobs endpoint reads it: by lineage and subject.
    assert [d.id for d in await dispatcher.deliveries(LINEAGE, "job_1")] == [queued.id]
    assert await dispatcher.deliveries("another-lineage", "job_1") == []
    exposition = metrics.exposition().decode()
    assert 'renderkit_webhook_deliveries_total{outcome="success"} 1.0' in exposition
    assert 'renderkit_webhook_attempt_duration_seconds_count{outcome="success"} 1.0' in exposition


async def test_a_receiver_failing_twice_then_succeeding_gets_three_attempts_and_one_success(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    metrics = Metrics()
    dispatcher = make_dispatcher(metrics=metrics)
    with receiver("fail", "fail", "ok") as hook:
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.failed", data=DATA
        )
        done = await drain(dispatcher, queued.id)
    assert done.status == "succeeded"
    assert [(a.status, a.error) for a in done.attempts] == [
        (503, "http_status"),
        (503, "http_status"),
        (204, None),
    ]
    assert [a.succeeded for a in done.attempts] == [False, False, True]
    # Only a bounded excerpt of the receiver's 10 kB answer is kept.
    assert done.attempts[0].excerpt.startswith("busy busy")
    assert len(done.attempts[0].excerpt) <= EXCERPT_CHARS
    shown = delivery_json(done)
    assert shown["status"] == "succeeded" and shown["next_attempt_at"] is None
    assert [a["status_code"] for a in shown["attempts"]] == [503, 503, 204]
    assert [a["error"] for a in shown["attempts"]] == ["http_status", "http_status", None]
    assert all(a["at"].endswith("Z") and a["duration_ms"] >= 0 for a in shown["attempts"])
    # One message: every attempt has the same id, each signed for its own timestamp.
    assert len(hook.requests) == 3
    assert {r.headers["webhook-id"] for r in hook.requests} == {queued.id}
    secret = await secret_of(dispatcher)
    for request in hook.requests:
        Webhook(secret).verify(request.body, headers_of(request))
    exposition = metrics.exposition().decode()
    assert 'renderkit_webhook_deliveries_total{outcome="failed_attempt"} 2.0' in exposition
    assert 'renderkit_webhook_deliveries_total{outcome="success"} 1.0' in exposition


async def test_a_receiver_that_never_answers_is_retried_a_bounded_number_of_times_then_given_up(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    metrics = Metrics()
    dispatcher = make_dispatcher(timeout=0.3, metrics=metrics)
    with receiver("hang") as hook:
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.succeeded", data=DATA
        )
        started = time.monotonic()
        done = await drain(dispatcher, queued.id)
        elapsed = time.monotonic() - started
        assert len(hook.requests) == 3
    assert done.status == "failed" and done.due is None
    assert [(a.status, a.error) for a in done.attempts] == [(None, "timeout")] * 3
    assert all(0.25 <= a.seconds < 1.0 for a in done.attempts)
    assert elapsed < 3.0
    exposition = metrics.exposition().decode()
    assert 'renderkit_webhook_deliveries_total{outcome="gave_up"} 1.0' in exposition
    # Given up: no later pass tries it again.
    assert await dispatcher.run_once() == 0


async def test_a_delivery_past_its_maximum_age_gives_up_before_the_schedule_ends(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    dispatcher = make_dispatcher(schedule=(0.0, 5.0, 5.0), max_age=0.001)
    with receiver("fail") as hook:
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.succeeded", data=DATA
        )
        done = await drain(dispatcher, queued.id)
    assert done.status == "failed" and len(done.attempts) == 1


async def test_a_retry_claimed_after_the_maximum_age_gives_up_without_an_attempt(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    outbox = MemoryWebhookOutbox()
    dispatcher = make_dispatcher(outbox=outbox, max_age=60.0)
    with receiver("ok") as hook:
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.succeeded", data=DATA
        )
        # As left by a replica that died while holding it, a day ago.
        stored = await outbox.get(queued.id)
        assert stored is not None
        failed = Attempt(at=stored.created, seconds=10.0, error="timeout")
        old = stored.created - timedelta(days=1)
        await outbox.save(attrs.evolve(stored, created=old, attempts=(failed,)))
        done = await drain(dispatcher, queued.id)
        assert hook.requests == []
    assert done.status == "failed" and done.attempts == (failed,)


async def test_a_redirect_is_a_failed_attempt_and_is_not_followed(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    dispatcher = make_dispatcher(schedule=(0.0,))
    with receiver("redirect") as hook:
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.succeeded", data=DATA
        )
        done = await drain(dispatcher, queued.id)
        paths = [(r.method, r.path) for r in hook.requests]
    assert done.status == "failed"
    assert [(a.status, a.error) for a in done.attempts] == [(302, "redirect")]
    assert paths == [("POST", "/hook")]  # nothing went to /elsewhere


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://10.0.0.8/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
    ],
)
async def test_a_private_or_loopback_webhook_url_is_refused_without_the_operator_allowance(
    url: str,
) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        await check_webhook_url(url, STRICT)
    [error] = refused.value.errors
    assert error.field == "webhook_url"
    assert "RENDERKIT_ALLOW_PRIVATE_URLS" in error.message
    assert await check_webhook_url(f" {url} ", LOOPBACK) == url


@pytest.mark.parametrize(
    "url",
    [None, "", "ftp://example.com/x", "https://user:pw@example.com/x", "https://x" * 700],
)
async def test_a_webhook_url_that_is_not_a_plain_http_url_is_refused_naming_it(
    url: object,
) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        await check_webhook_url(url, LOOPBACK)
    assert [e.field for e in refused.value.errors] == ["webhook_url"]


async def test_the_operators_allowed_networks_admit_a_loopback_receiver() -> None:
    narrow = webhook_policy(allow_private=False, allow_networks=("127.0.0.0/8",))
    assert await check_webhook_url("http://127.0.0.1:9/hook", narrow)


async def test_a_loopback_receiver_hears_nothing_when_the_policy_refuses_it_at_delivery(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    dispatcher = make_dispatcher(policy=STRICT, schedule=(0.0, 0.01))
    with receiver("ok") as hook:
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.succeeded", data=DATA
        )
        done = await drain(dispatcher, queued.id)
        assert hook.requests == []
    assert [(a.status, a.error) for a in done.attempts] == [(None, "blocked_url")] * 2


async def test_a_name_rebound_to_loopback_after_the_check_is_refused_at_delivery(
    make_dispatcher: Callable[..., WebhookDispatcher],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answers = iter(["93.184.215.14", "127.0.0.1"])

    async def resolve(self: UrlPolicy, host: str, url: str, field: str | None) -> list[Any]:
        assert host == "hooks.rebind.test"
        return [ipaddress.ip_address(next(answers))]

    monkeypatch.setattr(UrlPolicy, "_resolve", resolve)
    dispatcher = make_dispatcher(policy=STRICT, schedule=(0.0,))
    with receiver("ok") as hook:
        url = f"http://hooks.rebind.test:{hook.port}/hook"
        assert await check_webhook_url(url, STRICT) == url  # public when submitted
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=url, event="job.succeeded", data=DATA
        )
        done = await drain(dispatcher, queued.id)
        assert hook.requests == []
    assert [a.error for a in done.attempts] == ["blocked_url"]


async def test_a_delivery_connects_to_the_address_it_checked_and_keeps_the_host_name(
    make_dispatcher: Callable[..., WebhookDispatcher],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The name exists nowhere but in this resolver: the request can only arrive through
    # the checked address, never through a resolution of its own.
    async def resolve(self: UrlPolicy, host: str, url: str, field: str | None) -> list[Any]:
        return [ipaddress.ip_address("127.0.0.1")]

    monkeypatch.setattr(UrlPolicy, "_resolve", resolve)
    allowed = webhook_policy(allow_private=False, allow_networks=("127.0.0.0/8",))
    dispatcher = make_dispatcher(policy=allowed)
    with receiver("ok") as hook:
        url = f"http://hooks.pinned.test:{hook.port}/hook"
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=url, event="job.succeeded", data=DATA
        )
        done = await drain(dispatcher, queued.id)
        [request] = hook.requests
    assert done.status == "succeeded"
    assert request.headers["host"] == f"hooks.pinned.test:{hook.port}"


async def test_during_the_rotation_grace_both_secrets_verify_and_after_it_only_the_new_one(
    make_dispatcher: Callable[..., WebhookDispatcher],
    secret_store: MemoryWebhookSecretStore,
) -> None:
    now = [datetime.now(UTC)]
    secrets = WebhookSecrets(secret_store, grace=timedelta(hours=1), clock=lambda: now[0])
    dispatcher = make_dispatcher(secrets=secrets)
    old = format_secret((await secrets.fetch(LINEAGE)).current)
    rotated = await secrets.rotate(LINEAGE)
    new = format_secret(rotated.current)
    assert new != old and secrets.previous_valid_until(rotated) == now[0] + timedelta(hours=1)
    with receiver("ok") as hook:
        first = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.succeeded", data=DATA
        )
        await drain(dispatcher, first.id)
        now[0] += timedelta(minutes=59)
        second = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.succeeded", data=DATA
        )
        await drain(dispatcher, second.id)
        now[0] += timedelta(minutes=2)  # the grace is over
        third = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="job.succeeded", data=DATA
        )
        await drain(dispatcher, third.id)
    during, late, after = hook.requests
    for request in (during, late):
        assert len(request.headers["webhook-signature"].split(" ")) == 2
        Webhook(old).verify(request.body, headers_of(request))
        Webhook(new).verify(request.body, headers_of(request))
    assert len(after.headers["webhook-signature"].split(" ")) == 1
    Webhook(new).verify(after.body, headers_of(after))
    with pytest.raises(WebhookVerificationError):
        Webhook(old).verify(after.body, headers_of(after))


async def test_a_retry_scheduled_before_a_restart_is_delivered_by_a_new_loop(
    make_dispatcher: Callable[..., WebhookDispatcher],
    tmp_path: Path,
) -> None:
    path = tmp_path / "webhooks.sqlite3"
    before = SqliteWebhookOutbox(path)
    dispatcher = make_dispatcher(outbox=before, schedule=(0.0, 0.3))
    with receiver("fail", "ok") as hook:
        queued = await dispatcher.enqueue(
            lineage=LINEAGE, url=hook.url, event="batch.completed", data={"id": "batch_1"}
        )
        assert await dispatcher.run_once() == 1
        pending = await before.get(queued.id)
        assert pending is not None and pending.status == "pending"
        assert [a.status for a in pending.attempts] == [503]
        # The process stops with the retry scheduled...
        await dispatcher.aclose()
        await before.aclose()
        # ...and a new one over the same file delivers it.
        after = SqliteWebhookOutbox(path)
        restarted = make_dispatcher(outbox=after, schedule=(0.0, 0.3))
        try:
            done = await drain(restarted, queued.id)
        finally:
            await after.aclose()
    assert done.status == "succeeded"
    assert [a.status for a in done.attempts] == [503, 204]
    assert [r.headers["webhook-id"] for r in hook.requests] == [queued.id, queued.id]
    assert json.loads(hook.requests[1].body)["data"] == {"id": "batch_1"}


async def test_the_payload_and_the_pending_backlog_are_bounded(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    dispatcher = make_dispatcher(max_pending=2, max_payload_bytes=2048)
    with pytest.raises(WebhookPayloadTooLargeError):
        await dispatcher.enqueue(
            lineage=LINEAGE, url="http://127.0.0.1:9/", event="job.failed", data={"x": "y" * 2048}
        )
    for _ in range(2):
        await dispatcher.enqueue(
            lineage=LINEAGE, url="http://127.0.0.1:9/", event="job.failed", data=DATA
        )
    with pytest.raises(WebhookBacklogFullError):
        await dispatcher.enqueue(
            lineage=LINEAGE, url="http://127.0.0.1:9/", event="job.failed", data=DATA
        )
    with pytest.raises(ValueError, match="unknown webhook event"):
        await dispatcher.enqueue(lineage="other", url="http://127.0.0.1:9/", event="x", data={})


async def test_an_event_enqueued_twice_under_one_message_id_is_delivered_once(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    dispatcher = make_dispatcher()
    with receiver("ok") as hook:
        first = await dispatcher.enqueue(
            lineage=LINEAGE,
            url=hook.url,
            event="job.succeeded",
            data=DATA,
            subject="job_1",
            message_id="job_1_succeeded",
        )
        second = await dispatcher.enqueue(
            lineage=LINEAGE,
            url=hook.url,
            event="job.succeeded",
            data=DATA,
            subject="job_1",
            message_id="job_1_succeeded",
        )
        assert second == first
        done = await drain(dispatcher, "job_1_succeeded")
        assert await dispatcher.run_once() == 0
    assert done.status == "succeeded"
    assert [r.headers["webhook-id"] for r in hook.requests] == ["job_1_succeeded"]


async def test_a_message_id_holding_the_signatures_separator_is_refused(
    make_dispatcher: Callable[..., WebhookDispatcher],
) -> None:
    dispatcher = make_dispatcher()
    with pytest.raises(ValueError, match="invalid webhook message id"):
        await dispatcher.enqueue(
            lineage=LINEAGE,
            url="http://127.0.0.1:9/",
            event="job.succeeded",
            data=DATA,
            message_id="job_1.succeeded",
        )
    assert await dispatcher.deliveries(LINEAGE, "") == []
