"""The WebhookSecretStore contract over the memory, SQLite and Redis stores."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from renderkit_server.state.webhook_secrets import (
    MemoryWebhookSecretStore,
    SqliteWebhookSecretStore,
    WebhookSecretEntry,
    WebhookSecretStore,
)
from renderkit_server.state.webhook_secrets.redis import RedisWebhookSecretStore
from tests.server.state.conftest import backend_of, replicas_of

pytestmark = pytest.mark.anyio

T0 = datetime(2026, 11, 27, 4, 0, tzinfo=UTC)
T1 = datetime(2026, 11, 27, 5, 0, tzinfo=UTC)
FIRST = WebhookSecretEntry(current=b"a" * 32, created=T0)
SECOND = WebhookSecretEntry(current=b"b" * 32, created=T0)
ROTATED = WebhookSecretEntry(current=b"c" * 32, created=T1, previous=b"a" * 32)


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[WebhookSecretStore]:
    """An empty store of each kind."""
    async with backend_of(
        request,
        memory=MemoryWebhookSecretStore,
        sqlite=lambda: SqliteWebhookSecretStore(tmp_path / "whsec.sqlite3"),
        redis=RedisWebhookSecretStore,
    ) as backend:
        yield backend


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[WebhookSecretStore, WebhookSecretStore]]:
    """Two stores on one shared backend, as two processes or replicas have."""
    async with replicas_of(
        request,
        sqlite=lambda: SqliteWebhookSecretStore(tmp_path / "whsec.sqlite3"),
        redis=RedisWebhookSecretStore,
    ) as pair:
        yield pair


async def test_every_store_satisfies_the_protocol(store: WebhookSecretStore) -> None:
    assert isinstance(store, WebhookSecretStore)


async def test_an_unknown_lineage_has_no_entry(store: WebhookSecretStore) -> None:
    assert await store.get("ab12") is None


async def test_creating_twice_keeps_the_first_entry(store: WebhookSecretStore) -> None:
    assert await store.create("ab12", FIRST) == FIRST
    assert await store.create("ab12", SECOND) == FIRST
    assert await store.get("ab12") == FIRST


async def test_replacing_the_expected_entry_succeeds_once(store: WebhookSecretStore) -> None:
    await store.create("ab12", FIRST)
    assert await store.replace("ab12", FIRST, ROTATED) is True
    assert await store.get("ab12") == ROTATED
    # A second rotation that read FIRST lost the race: nothing is written.
    assert await store.replace("ab12", FIRST, SECOND) is False
    assert await store.get("ab12") == ROTATED


async def test_an_entry_read_back_with_microseconds_is_still_the_expected_one(
    store: WebhookSecretStore,
) -> None:
    # Rotation compares what it read with what is stored: the round trip must be exact.
    for micro in (1, 123457, 999999):
        created = datetime(2026, 11, 27, 4, 0, 7, micro, tzinfo=UTC)
        lineage = f"l{micro}"
        await store.create(lineage, WebhookSecretEntry(current=b"a" * 32, created=created))
        read = await store.get(lineage)
        assert read is not None and read.created == created
        assert await store.replace(lineage, read, ROTATED) is True


async def test_replacing_an_unknown_lineage_writes_nothing(store: WebhookSecretStore) -> None:
    assert await store.replace("ab12", FIRST, ROTATED) is False
    assert await store.get("ab12") is None


async def test_lineages_do_not_share_secrets(store: WebhookSecretStore) -> None:
    await store.create("ab12", FIRST)
    await store.create("cd34", SECOND)
    assert await store.get("ab12") == FIRST
    assert await store.get("cd34") == SECOND


async def test_closing_twice_is_a_no_op(store: WebhookSecretStore) -> None:
    await store.aclose()
    await store.aclose()


async def test_the_secret_is_kept_out_of_the_entrys_repr() -> None:
    assert "aaaa" not in repr(ROTATED) and "97" not in repr(ROTATED)


async def test_a_secret_created_by_one_replica_is_the_one_the_other_gets(
    replicas: tuple[WebhookSecretStore, WebhookSecretStore],
) -> None:
    first, second = replicas
    await first.create("ab12", FIRST)
    assert await second.create("ab12", SECOND) == FIRST
    assert await second.replace("ab12", FIRST, ROTATED) is True
    assert await first.get("ab12") == ROTATED
