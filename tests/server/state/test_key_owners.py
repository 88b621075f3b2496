"""The KeyOwnerStore contract over the memory, SQLite and Redis stores."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from renderkit_server.state.key_owners import (
    KeyOwnerStore,
    MemoryKeyOwnerStore,
    SqliteKeyOwnerStore,
)
from renderkit_server.state.key_owners.redis import RedisKeyOwnerStore
from tests.server.state.conftest import backend_of, replicas_of

pytestmark = pytest.mark.anyio

LINEAGE = "00112233445566778899aabbccddeeff"
OTHER = "ffeeddccbbaa99887766554433221100"


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[KeyOwnerStore]:
    """An empty store of each kind."""
    async with backend_of(
        request,
        memory=MemoryKeyOwnerStore,
        sqlite=lambda: SqliteKeyOwnerStore(tmp_path / "owners.sqlite3"),
        redis=RedisKeyOwnerStore,
    ) as backend:
        yield backend


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[KeyOwnerStore, KeyOwnerStore]]:
    """Two stores on one shared backend, as two processes or replicas have."""
    async with replicas_of(
        request,
        sqlite=lambda: SqliteKeyOwnerStore(tmp_path / "owners.sqlite3"),
        redis=RedisKeyOwnerStore,
    ) as pair:
        yield pair


async def test_every_store_satisfies_the_protocol(store: KeyOwnerStore) -> None:
    assert isinstance(store, KeyOwnerStore)


async def test_an_owner_round_trips_and_an_unknown_lineage_is_none(store: KeyOwnerStore) -> None:
    assert await store.get(LINEAGE) is None
    await store.put(LINEAGE, "Ada@example.com")
    assert await store.get(LINEAGE) == "Ada@example.com"
    assert await store.get(OTHER) is None


async def test_non_ascii_addresses_round_trip(store: KeyOwnerStore) -> None:
    await store.put(LINEAGE, "jörg@bücher.example")
    assert await store.get(LINEAGE) == "jörg@bücher.example"


async def test_writing_a_lineage_twice_keeps_the_last_address(store: KeyOwnerStore) -> None:
    await store.put(LINEAGE, "first@example.com")
    await store.put(LINEAGE, "second@example.com")
    assert await store.get(LINEAGE) == "second@example.com"


async def test_a_deleted_owner_is_gone_and_others_stay(store: KeyOwnerStore) -> None:
    await store.put(LINEAGE, "ada@example.com")
    await store.put(OTHER, "bob@example.com")

    await store.delete(LINEAGE)
    await store.delete(LINEAGE)  # deleting again, or an unknown lineage, is a no-op

    assert await store.get(LINEAGE) is None
    assert await store.get(OTHER) == "bob@example.com"


async def test_closing_twice_is_a_no_op(store: KeyOwnerStore) -> None:
    await store.aclose()
    await store.aclose()


async def test_an_owner_written_by_one_replica_is_read_and_deleted_by_the_other(
    replicas: tuple[KeyOwnerStore, KeyOwnerStore],
) -> None:
    first, second = replicas
    await first.put(LINEAGE, "ada@example.com")
    assert await second.get(LINEAGE) == "ada@example.com"

    await second.delete(LINEAGE)
    assert await first.get(LINEAGE) is None
