"""The UrlSecretStore contract over the memory, SQLite and Redis stores."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from renderkit_server.state.url_secrets import (
    MemoryUrlSecretStore,
    SqliteUrlSecretStore,
    UrlSecret,
    UrlSecretStore,
)
from renderkit_server.state.url_secrets.redis import RedisUrlSecretStore
from tests.server.state.conftest import backend_of, replicas_of

pytestmark = pytest.mark.anyio

ENTRY = UrlSecret(secret=bytes(range(32)), plan="pro")


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[UrlSecretStore]:
    """An empty store of each kind."""
    async with backend_of(
        request,
        memory=MemoryUrlSecretStore,
        sqlite=lambda: SqliteUrlSecretStore(tmp_path / "url.sqlite3"),
        redis=RedisUrlSecretStore,
    ) as backend:
        yield backend


@pytest.fixture(params=["sqlite", "redis"])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[UrlSecretStore, UrlSecretStore]]:
    """Two stores on one shared backend, as two processes or replicas have."""
    async with replicas_of(
        request,
        sqlite=lambda: SqliteUrlSecretStore(tmp_path / "url.sqlite3"),
        redis=RedisUrlSecretStore,
    ) as pair:
        yield pair


async def test_every_store_satisfies_the_protocol(store: UrlSecretStore) -> None:
    assert isinstance(store, UrlSecretStore)


async def test_an_entry_round_trips_and_an_unknown_id_is_none(store: UrlSecretStore) -> None:
    assert await store.get("ab.0") is None
    await store.put("ab.0", ENTRY)
    assert await store.get("ab.0") == ENTRY


async def test_writing_an_id_twice_keeps_the_last_entry(store: UrlSecretStore) -> None:
    await store.put("ab.0", ENTRY)
    await store.put("ab.0", UrlSecret(secret=b"x" * 32, plan="starter"))
    assert await store.get("ab.0") == UrlSecret(secret=b"x" * 32, plan="starter")


async def test_closing_twice_is_a_no_op(store: UrlSecretStore) -> None:
    await store.aclose()
    await store.aclose()


async def test_an_entry_written_by_one_replica_is_read_by_the_other(
    replicas: tuple[UrlSecretStore, UrlSecretStore],
) -> None:
    first, second = replicas
    await first.put("cd.1", ENTRY)
    assert await second.get("cd.1") == ENTRY
