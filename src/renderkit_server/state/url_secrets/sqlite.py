"""URL-signing secrets in an SQLite file, shared by the processes of one host."""

from __future__ import annotations

import os
import sqlite3

from renderkit_server.state._sqlite import SqliteDatabase
from renderkit_server.state.url_secrets.base import UrlSecret, decode, encode

__all__ = ["SqliteUrlSecretStore"]


class SqliteUrlSecretStore:
    """Entries in an SQLite file (WAL mode), shared by the processes of one host.

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._db = SqliteDatabase(
            path,
            schema=(
                "CREATE TABLE IF NOT EXISTS url_secrets ("
                " public_id TEXT PRIMARY KEY, entry TEXT NOT NULL)"
            ),
            unavailable="the URL-signing secret store is unavailable",
        )

    def __repr__(self) -> str:
        return f"SqliteUrlSecretStore({self._db.path!r})"

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """See :meth:`UrlSecretStore.put`."""
        await self._db.run(self._put, public_id, encode(entry))

    async def get(self, public_id: str) -> UrlSecret | None:
        """See :meth:`UrlSecretStore.get`."""
        value = await self._db.run(self._get, public_id)
        return None if value is None else decode(value)

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._db.aclose()

    @staticmethod
    def _put(conn: sqlite3.Connection, public_id: str, value: str) -> None:
        conn.execute(
            "INSERT INTO url_secrets (public_id, entry) VALUES (?, ?)"
            " ON CONFLICT (public_id) DO UPDATE SET entry = excluded.entry",
            (public_id, value),
        )

    @staticmethod
    def _get(conn: sqlite3.Connection, public_id: str) -> str | None:
        row = conn.execute(
            "SELECT entry FROM url_secrets WHERE public_id = ?", (public_id,)
        ).fetchone()
        return None if row is None else str(row[0])
