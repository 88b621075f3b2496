"""Key revocations in an SQLite file, shared by the processes of one host."""

from __future__ import annotations

import os
import sqlite3
import time

from renderkit_server.state._sqlite import SqliteDatabase

__all__ = ["SqliteRevocationStore"]


class SqliteRevocationStore:
    """Keeps revocations in an SQLite file (WAL mode), shared by processes on one host.

    The connection is opened and the table created on first use; blocking calls run in
    worker threads.

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._db = SqliteDatabase(
            path,
            schema=(
                "CREATE TABLE IF NOT EXISTS key_revocations ("
                " key_id TEXT PRIMARY KEY,"
                " before INTEGER NOT NULL,"
                " revoked_at INTEGER NOT NULL)"
            ),
            unavailable="the key revocation store is unavailable",
        )

    def __repr__(self) -> str:
        return f"SqliteRevocationStore({self._db.path!r})"

    async def revoke(self, key_id: str, *, before: int) -> bool:
        """See :meth:`RevocationStore.revoke`."""
        return await self._db.run(self._revoke, key_id, before)

    async def load_all(self) -> dict[str, int]:
        """See :meth:`RevocationStore.load_all`."""
        return await self._db.run(self._load_all)

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._db.aclose()

    @staticmethod
    def _revoke(conn: sqlite3.Connection, key_id: str, before: int) -> bool:
        # A single upsert is the compare-and-set: it changes a row only if it raises the
        # threshold, so of two processes revoking the same generation exactly one wins.
        cursor = conn.execute(
            "INSERT INTO key_revocations (key_id, before, revoked_at) VALUES (?, ?, ?)"
            " ON CONFLICT (key_id) DO UPDATE"
            " SET before = excluded.before, revoked_at = excluded.revoked_at"
            " WHERE excluded.before > key_revocations.before",
            (key_id, before, int(time.time())),
        )
        return cursor.rowcount == 1

    @staticmethod
    def _load_all(conn: sqlite3.Connection) -> dict[str, int]:
        return dict(conn.execute("SELECT key_id, before FROM key_revocations").fetchall())
