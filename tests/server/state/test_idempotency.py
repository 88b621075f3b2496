"""The IdempotencyStore contract over the memory, SQLite and Redis backends.

Expiry is real time on every backend (the memory one reads the monotonic clock, SQLite the
wall clock, Redis its own), so those tests use leases and lifetimes of a fraction of a second.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from renderkit_server.state.idempotency import (
    IdempotencyStore,
    MemoryIdempotencyStore,
    SqliteIdempotencyStore,
    StoredAnswer,
)
from renderkit_server.state.idempotency.redis import RedisIdempotencyStore
from tests.server.state.conftest import backend_of, replicas_of

pytestmark = pytest.mark.anyio

DAY = 24 * 3600.0
ANSWER = StoredAnswer(status=200, headers={"x-cache": "MISS"}, body=b'{"success":true}')


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[IdempotencyStore]:
    """A store of each kind, on an empty backend, keeping at most three entries per lineage."""
    async with backend_of(
        request,
        memory=lambda: MemoryIdempotencyStore(max_per_lineage=3),
        sqlite=lambda: SqliteIdempotencyStore(tmp_path / "idem.sqlite3", max_per_lineage=3),
        redis=lambda client: RedisIdempotencyStore(client, max_per_lineage=3),
    ) as backend:
        yield backend


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[IdempotencyStore, IdempotencyStore]]:
    """Two instances on one backend, like two server replicas."""
    async with replicas_of(
        request,
        sqlite=lambda: SqliteIdempotencyStore(tmp_path / "idem.sqlite3"),
        redis=RedisIdempotencyStore,
    ) as pair:
        yield pair


async def test_every_backend_satisfies_the_protocol(store: IdempotencyStore) -> None:
    assert isinstance(store, IdempotencyStore)


async def test_a_completed_entry_is_replayed_to_the_same_fingerprint(
    store: IdempotencyStore,
) -> None:
    first = await store.claim("lin", "k", "fp", lease=30, ttl=DAY)
    assert first.outcome == "started"
    assert await store.complete("lin", "k", first.token, ANSWER)

    again = await store.claim("lin", "k", "fp", lease=30, ttl=DAY)

    assert again.outcome == "replay"
    assert again.answer == ANSWER


async def test_another_fingerprint_under_a_used_key_is_a_conflict(store: IdempotencyStore) -> None:
    first = await store.claim("lin", "k", "fp", lease=30, ttl=DAY)
    assert (await store.claim("lin", "k", "other", lease=30, ttl=DAY)).outcome == "conflict"
    await store.complete("lin", "k", first.token, ANSWER)
    assert (await store.claim("lin", "k", "other", lease=30, ttl=DAY)).outcome == "conflict"


async def test_a_running_entry_is_in_progress_to_its_retry(store: IdempotencyStore) -> None:
    await store.claim("lin", "k", "fp", lease=30, ttl=DAY)

    assert (await store.claim("lin", "k", "fp", lease=30, ttl=DAY)).outcome == "in_progress"


async def test_lineages_never_see_one_anothers_entries(store: IdempotencyStore) -> None:
    first = await store.claim("alice", "k", "fp", lease=30, ttl=DAY)
    await store.complete("alice", "k", first.token, ANSWER)

    assert (await store.claim("bob", "k", "fp", lease=30, ttl=DAY)).outcome == "started"


async def test_a_released_entry_runs_again(store: IdempotencyStore) -> None:
    first = await store.claim("lin", "k", "fp", lease=30, ttl=DAY)
    await store.release("lin", "k", first.token)

    again = await store.claim("lin", "k", "other", lease=30, ttl=DAY)

    assert again.outcome == "started"
    assert not await store.complete("lin", "k", first.token, ANSWER)


async def test_a_lapsed_lease_frees_the_key_and_its_holder_can_no_longer_store(
    store: IdempotencyStore,
) -> None:
    crashed = await store.claim("lin", "k", "fp", lease=0.1, ttl=DAY)
    await asyncio.sleep(0.2)

    retry = await store.claim("lin", "k", "fp", lease=30, ttl=DAY)

    assert retry.outcome == "started"
    assert not await store.renew("lin", "k", crashed.token, 30)
    assert not await store.complete("lin", "k", crashed.token, ANSWER)
    assert await store.complete("lin", "k", retry.token, ANSWER)


async def test_a_renewed_lease_keeps_the_key_in_progress(store: IdempotencyStore) -> None:
    running = await store.claim("lin", "k", "fp", lease=0.3, ttl=DAY)
    await asyncio.sleep(0.15)
    assert await store.renew("lin", "k", running.token, 30)
    await asyncio.sleep(0.25)

    assert (await store.claim("lin", "k", "fp", lease=30, ttl=DAY)).outcome == "in_progress"


async def test_a_backend_forgets_expired_entries(store: IdempotencyStore) -> None:
    first = await store.claim("lin", "k", "fp", lease=30, ttl=0.2)
    await store.complete("lin", "k", first.token, ANSWER)
    await asyncio.sleep(0.3)

    assert (await store.claim("lin", "k", "other", lease=30, ttl=DAY)).outcome == "started"


async def test_a_full_lineage_forgets_its_oldest_entry(store: IdempotencyStore) -> None:
    for name in ("k1", "k2", "k3", "k4"):
        claim = await store.claim("lin", name, "fp", lease=30, ttl=DAY)
        await store.complete("lin", name, claim.token, ANSWER)
        await asyncio.sleep(0.002)  # distinct claim times on every clock

    assert (await store.claim("lin", "k1", "other", lease=30, ttl=DAY)).outcome == "started"
    assert (await store.claim("lin", "k4", "fp", lease=30, ttl=DAY)).outcome == "replay"
    assert (await store.claim("other", "k9", "fp", lease=30, ttl=DAY)).outcome == "started"


async def test_a_completed_entry_cannot_be_released_or_completed_again(
    store: IdempotencyStore,
) -> None:
    first = await store.claim("lin", "k", "fp", lease=30, ttl=DAY)
    await store.complete("lin", "k", first.token, ANSWER)
    await store.release("lin", "k", first.token)

    assert not await store.complete("lin", "k", first.token, StoredAnswer(status=400))
    assert (await store.claim("lin", "k", "fp", lease=30, ttl=DAY)).answer == ANSWER


async def test_answers_keep_binary_bodies_and_headers(store: IdempotencyStore) -> None:
    answer = StoredAnswer(status=422, headers={"a": "1", "b": "é"}, body=bytes(range(256)))
    first = await store.claim("lin", "k", "fp", lease=30, ttl=DAY)
    await store.complete("lin", "k", first.token, answer)

    assert (await store.claim("lin", "k", "fp", lease=30, ttl=DAY)).answer == answer


async def test_two_replicas_claiming_one_key_at_once_start_it_once(
    replicas: tuple[IdempotencyStore, IdempotencyStore],
) -> None:
    a, b = replicas
    claims = await asyncio.gather(
        *(r.claim("lin", "k", "fp", lease=30, ttl=DAY) for r in (a, b, a, b))
    )

    assert sorted(c.outcome for c in claims) == ["in_progress"] * 3 + ["started"]
    started = next(c for c in claims if c.outcome == "started")
    holder = a if claims.index(started) % 2 == 0 else b
    await holder.complete("lin", "k", started.token, ANSWER)
    other = b if holder is a else a
    assert (await other.claim("lin", "k", "fp", lease=30, ttl=DAY)).answer == ANSWER
