"""The WebhookOutbox contract over the memory, SQLite and Redis outboxes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs
import pytest

from renderkit_server.state.webhook_outbox import (
    Attempt,
    Delivery,
    MemoryWebhookOutbox,
    SqliteWebhookOutbox,
    WebhookBacklogFullError,
    WebhookOutbox,
)
from renderkit_server.state.webhook_outbox.redis import RedisWebhookOutbox
from tests.server.state.conftest import backend_of, replicas_of

pytestmark = pytest.mark.anyio

T0 = datetime(2026, 11, 27, 4, 0, 0, 250000, tzinfo=UTC)


def delivery(n: int, *, lineage: str = "ab12", subject: str = "job_1", due: int = 0) -> Delivery:
    return Delivery(
        id=f"msg_{n}",
        lineage=lineage,
        url="https://example.com/hook",
        body='{"type":"job.succeeded","data":{"é":1}}',
        subject=subject,
        created=T0 + timedelta(seconds=n),
        due=T0 + timedelta(seconds=due),
    )


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def outbox(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[WebhookOutbox]:
    """An empty outbox of each kind."""
    async with backend_of(
        request,
        memory=MemoryWebhookOutbox,
        sqlite=lambda: SqliteWebhookOutbox(tmp_path / "webhooks.sqlite3"),
        redis=RedisWebhookOutbox,
    ) as backend:
        yield backend


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[WebhookOutbox, WebhookOutbox]]:
    """Two outboxes on one shared backend, as two processes or replicas have."""
    async with replicas_of(
        request,
        sqlite=lambda: SqliteWebhookOutbox(tmp_path / "webhooks.sqlite3"),
        redis=RedisWebhookOutbox,
    ) as pair:
        yield pair


async def test_every_outbox_satisfies_the_protocol(outbox: WebhookOutbox) -> None:
    assert isinstance(outbox, WebhookOutbox)


async def test_a_delivery_round_trips_with_its_attempts(outbox: WebhookOutbox) -> None:
    await outbox.add(delivery(1), max_pending=10)
    assert await outbox.get("msg_1") == delivery(1)
    tried = attrs.evolve(
        delivery(1),
        attempts=(Attempt(at=T0, seconds=0.5, status=503, error="http_status", excerpt="busy"),),
        due=T0 + timedelta(seconds=5),
    )
    await outbox.save(tried)
    assert await outbox.get("msg_1") == tried
    assert await outbox.get("msg_2") is None


async def test_only_due_deliveries_are_claimed_oldest_due_first(outbox: WebhookOutbox) -> None:
    await outbox.add(delivery(1, due=30), max_pending=10)
    await outbox.add(delivery(2, due=10), max_pending=10)
    await outbox.add(delivery(3, due=99), max_pending=10)
    claimed = await outbox.claim(T0 + timedelta(seconds=40), lease=60, limit=10)
    assert [d.id for d in claimed] == ["msg_2", "msg_1"]
    assert all(d.due == T0 + timedelta(seconds=100) for d in claimed)


async def test_a_claimed_delivery_is_not_claimed_again_until_its_lease_runs_out(
    outbox: WebhookOutbox,
) -> None:
    await outbox.add(delivery(1), max_pending=10)
    assert len(await outbox.claim(T0, lease=60, limit=10)) == 1
    assert await outbox.claim(T0 + timedelta(seconds=59), lease=60, limit=10) == []
    again = await outbox.claim(T0 + timedelta(seconds=61), lease=60, limit=10)
    assert [d.id for d in again] == ["msg_1"]


async def test_claim_takes_at_most_the_limit(outbox: WebhookOutbox) -> None:
    for n in range(5):
        await outbox.add(delivery(n), max_pending=10)
    assert len(await outbox.claim(T0 + timedelta(seconds=1), lease=60, limit=2)) == 2


async def test_a_finished_delivery_is_never_claimed(outbox: WebhookOutbox) -> None:
    await outbox.add(delivery(1), max_pending=10)
    await outbox.save(attrs.evolve(delivery(1), status="succeeded", due=None))
    assert await outbox.claim(T0 + timedelta(days=1), lease=60, limit=10) == []


async def test_a_lineage_cannot_have_more_pending_than_its_cap(outbox: WebhookOutbox) -> None:
    await outbox.add(delivery(1), max_pending=2)
    await outbox.add(delivery(2), max_pending=2)
    with pytest.raises(WebhookBacklogFullError):
        await outbox.add(delivery(3), max_pending=2)
    assert await outbox.get("msg_3") is None
    # Another lineage has its own backlog, and a finished delivery frees a place.
    await outbox.add(delivery(4, lineage="cd34"), max_pending=2)
    await outbox.save(attrs.evolve(delivery(1), status="failed", due=None))
    await outbox.add(delivery(3), max_pending=2)


async def test_deliveries_are_listed_by_lineage_and_subject(outbox: WebhookOutbox) -> None:
    await outbox.add(delivery(2), max_pending=10)
    await outbox.add(delivery(1), max_pending=10)
    await outbox.add(delivery(3, subject="job_2"), max_pending=10)
    await outbox.add(delivery(4, lineage="cd34"), max_pending=10)
    assert [d.id for d in await outbox.for_subject("ab12", "job_1")] == ["msg_1", "msg_2"]
    # Another lineage learns nothing of it, even naming the same subject.
    assert [d.id for d in await outbox.for_subject("cd34", "job_1")] == ["msg_4"]
    assert await outbox.for_subject("ef56", "job_1") == []


async def test_purge_forgets_only_old_finished_deliveries(outbox: WebhookOutbox) -> None:
    for n in (1, 2, 3):
        await outbox.add(delivery(n), max_pending=10)
    await outbox.save(attrs.evolve(delivery(1), status="succeeded", due=None))
    await outbox.save(attrs.evolve(delivery(3), status="failed", due=None))
    assert await outbox.purge(T0 + timedelta(seconds=2)) == 1
    assert await outbox.get("msg_1") is None
    assert await outbox.get("msg_2") is not None  # pending: kept however old
    assert await outbox.get("msg_3") is not None  # finished, but recent
    assert [d.id for d in await outbox.for_subject("ab12", "job_1")] == ["msg_2", "msg_3"]


async def test_closing_twice_is_a_no_op(outbox: WebhookOutbox) -> None:
    await outbox.aclose()
    await outbox.aclose()


async def test_a_delivery_added_by_one_replica_is_claimed_once_across_both(
    replicas: tuple[WebhookOutbox, WebhookOutbox],
) -> None:
    first, second = replicas
    await first.add(delivery(1), max_pending=10)
    claimed = await second.claim(T0, lease=60, limit=10)
    assert [d.id for d in claimed] == ["msg_1"]
    assert await first.claim(T0, lease=60, limit=10) == []
    assert (await first.get("msg_1")) == claimed[0]


async def test_a_delivery_whose_id_is_recorded_is_not_added_again(outbox: WebhookOutbox) -> None:
    assert await outbox.add(delivery(1), max_pending=1) is True
    again = attrs.evolve(delivery(1), url="https://example.org/other")
    # A repeat is no new delivery, and no backlog refusal either (the backlog is full).
    assert await outbox.add(again, max_pending=1) is False
    found = await outbox.get("msg_1")
    assert found is not None and found.url == "https://example.com/hook"
    await outbox.save(attrs.evolve(delivery(1), status="succeeded", due=None))
    assert await outbox.add(delivery(1), max_pending=10) is False
    found = await outbox.get("msg_1")
    assert found is not None and found.status == "succeeded"
    assert [d.id for d in await outbox.for_subject("ab12", "job_1")] == ["msg_1"]
