from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from renderkit import StorageUnavailableError
from renderkit_server.keys import (
    InvalidKeyError,
    KeyService,
    MemoryRevocationStore,
    RevocationStore,
    SqliteRevocationStore,
)

from .conftest import make_signer


def test_stores_satisfy_the_revocation_store_protocol(tmp_path: Path) -> None:
    assert isinstance(MemoryRevocationStore(), RevocationStore)
    assert isinstance(SqliteRevocationStore(tmp_path / "r.db"), RevocationStore)


@pytest.mark.anyio
async def test_revocation_survives_a_restart_with_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "revocations.db"
    async with KeyService(make_signer(), SqliteRevocationStore(path)) as before_restart:
        old = await before_restart.issue("a@example.com", "pro")
        new = await before_restart.regenerate(old.key)

    async with KeyService(make_signer(), SqliteRevocationStore(path)) as after_restart:
        with pytest.raises(InvalidKeyError):
            after_restart.verify(old.key)
        assert after_restart.verify(new.key).generation == 1

    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()


@pytest.mark.anyio
async def test_revocation_does_not_survive_a_restart_with_a_memory_store() -> None:
    async with KeyService(make_signer(), MemoryRevocationStore()) as first:
        old = await first.issue("a@example.com", "pro")
        await first.regenerate(old.key)

    async with KeyService(make_signer(), MemoryRevocationStore()) as second:
        assert second.verify(old.key).generation == 0


@pytest.mark.anyio
async def test_processes_sharing_a_sqlite_store_see_revocations_after_refresh(
    tmp_path: Path,
) -> None:
    path = tmp_path / "revocations.db"
    async with (
        KeyService(make_signer(), SqliteRevocationStore(path)) as worker_a,
        KeyService(make_signer(), SqliteRevocationStore(path)) as worker_b,
    ):
        old = await worker_a.issue("a@example.com", "pro")
        await worker_a.regenerate(old.key)
        assert worker_b.verify(old.key).generation == 0  # B's cache is stale until refresh

        await worker_b.refresh()

        with pytest.raises(InvalidKeyError):
            worker_b.verify(old.key)


@pytest.mark.anyio
async def test_a_key_cannot_be_regenerated_twice_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "revocations.db"
    async with (
        KeyService(make_signer(), SqliteRevocationStore(path)) as worker_a,
        KeyService(make_signer(), SqliteRevocationStore(path)) as worker_b,
    ):
        old = await worker_a.issue("a@example.com", "pro")
        await worker_a.regenerate(old.key)

        with pytest.raises(InvalidKeyError):
            await worker_b.regenerate(old.key)
        with pytest.raises(InvalidKeyError):
            worker_b.verify(old.key)


@pytest.mark.anyio
async def test_revocation_thresholds_only_grow(tmp_path: Path) -> None:
    for store in (MemoryRevocationStore(), SqliteRevocationStore(tmp_path / "r.db")):
        assert await store.revoke("k", before=2) is True
        assert await store.revoke("k", before=2) is False
        assert await store.revoke("k", before=1) is False
        assert await store.revoke("k", before=3) is True
        assert await store.load_all() == {"k": 3}
        await store.aclose()
        await store.aclose()


@pytest.mark.anyio
async def test_unreachable_sqlite_store_raises_storage_unavailable(tmp_path: Path) -> None:
    store = SqliteRevocationStore(tmp_path / "missing-dir" / "r.db")

    with pytest.raises(StorageUnavailableError) as info:
        await store.load_all()
    assert str(tmp_path) not in str(info.value)
