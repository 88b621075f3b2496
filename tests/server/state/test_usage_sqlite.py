"""What the SQLite store adds to the contract: processes sharing a file, WAL, clean-up."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from renderkit import StorageUnavailableError
from renderkit_server.state.usage import SqliteUsageStore
from tests.server.state._usage import WINDOW

pytestmark = pytest.mark.anyio

_SQLITE_WORKER = textwrap.dedent(
    """
    import asyncio, sys
    from renderkit_server.state.usage import SqliteUsageStore

    async def main():
        store = SqliteUsageStore(sys.argv[1])
        results = await asyncio.gather(
            *(store.reserve("key-1", "images", "2026-11", 1, 10) for _ in range(30))
        )
        await store.aclose()
        print(sum(r.allowed for r in results))

    asyncio.run(main())
    """
)


def test_two_processes_sharing_a_sqlite_file_allow_exactly_ten(tmp_path: Path) -> None:
    path = str(tmp_path / "usage.db")
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _SQLITE_WORKER, path], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    allowed = [int(worker.communicate(timeout=60)[0]) for worker in workers]

    assert all(worker.returncode == 0 for worker in workers)
    assert sum(allowed) == 10
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT used FROM usage").fetchall() == [(10,)]


async def test_sqlite_deletes_ended_burst_windows(tmp_path: Path) -> None:
    store = SqliteUsageStore(tmp_path / "usage.db")
    for offset in range(0, 600, 60):
        await store.hit("key-1", WINDOW + offset, 60, 10)
    await store.aclose()

    with sqlite3.connect(tmp_path / "usage.db") as conn:
        starts = [row[0] for row in conn.execute("SELECT window_start FROM burst")]
    # The current window and the one before it are kept for replicas with lagging clocks.
    assert sorted(starts) == [WINDOW + 480, WINDOW + 540]


async def test_sqlite_uses_wal_mode(tmp_path: Path) -> None:
    store = SqliteUsageStore(tmp_path / "usage.db")
    await store.ping()
    await store.aclose()

    with sqlite3.connect(tmp_path / "usage.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_sqlite_failure_raises_storage_unavailable_without_the_path(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "secret-dir-name" / "usage.db"
    store = SqliteUsageStore(missing)

    with pytest.raises(StorageUnavailableError) as info:
        await store.ping()
    assert "secret-dir-name" not in str(info.value)
    assert isinstance(info.value.__cause__, sqlite3.Error)
    await store.aclose()
