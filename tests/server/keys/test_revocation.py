"""The key service over revocation stores shared by processes (the stores' own contract is
tests/server/state/test_revocations.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from renderkit_server.keys import (
    InvalidKeyError,
    KeyService,
    MemoryRevocationStore,
    SqliteRevocationStore,
)

from .conftest import make_signer


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
