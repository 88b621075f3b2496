"""Key owners in an SQLite file, shared by the processes of one host."""

from __future__ import annotations

import os
import sqlite3

from renderkit_server.state._sqlite import SqliteDatabase

__all__ = ["SqliteKeyOwnerStore"]


class SqliteKeyOwnerStore:
    """Entries in an SQLite file (WAL mode), shared by the processes of one host.

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._db = SqliteDatabase(
            path,
            schema=(
                "CREATE TABLE IF NOT EXISTS key_owners ("
                " key_id TEXT PRIMARY KEY, email TEXT NOT NULL)"
            ),
            unavailable="the key owner store is unavailable",
        )

    def __repr__(self) -> str:
        return f"SqliteKeyOwnerStore({self._db.path!r})"

    async def put(self, key_id: str, email: str) -> None:
        """See :meth:`KeyOwnerStore.put`."""
        await self._db.run(self._put, key_id, email)

    async def get(self, key_id: str) -> str | None:
        """See :meth:`KeyOwnerStore.get`."""
        return await self._db.run(self._get, key_id)

    async def delete(self, key_id: str) -> None:
        """See :meth:`KeyOwnerStore.delete`."""
        await self._db.run(self._delete, key_id)

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._db.aclose()

    @staticmethod
    def _put(conn: sqlite3.Connection, key_id: str, email: str) -> None:
        conn.execute(
            "INSERT INTO key_owners (key_id, email) VALUES (?, ?)"
            " ON CONFLICT (key_id) DO UPDATE SET email = excluded.email",
            (key_id, email),
        )

    @staticmethod
    def _get(conn: sqlite3.Connection, key_id: str) -> str | None:
        row = conn.execute("SELECT email FROM key_owners WHERE key_id = ?", (key_id,)).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def _delete(conn: sqlite3.Connection, key_id: str) -> None:
        conn.execute("DELETE FROM key_owners WHERE key_id = ?", (key_id,))
