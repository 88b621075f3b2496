"""The render cache's index in an SQLite file, shared by the processes of one host."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable

from renderkit import StorageUnavailableError
from renderkit_server.state._sqlite import SqliteDatabase
from renderkit_server.state.render_cache.base import UNAVAILABLE, CachedEntry

__all__ = ["SqliteRenderCache"]


class SqliteRenderCache:
    """Keeps entries in an SQLite file (WAL mode), shared by the processes of one host.

    Expired rows are deleted as new entries are written, in worker threads. Lookups run on
    the event loop through a connection of their own: an indexed read in WAL mode never
    waits for a writer, and a hit should not pay for a thread hop (it is the fast path).

    Args:
        path: database file; its directory must exist.
        clock: Unix seconds.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, clock: Callable[[], float] = time.time
    ) -> None:
        self._db = SqliteDatabase(
            path,
            schema=(
                "CREATE TABLE IF NOT EXISTS render_cache ("
                " key TEXT PRIMARY KEY,"
                " entry TEXT NOT NULL,"
                " expires REAL NOT NULL)"
            ),
            unavailable=UNAVAILABLE,
        )
        self._clock = clock
        self._reader: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"SqliteRenderCache({self._db.path!r})"

    async def get(self, key: str) -> CachedEntry | None:
        """See :meth:`RenderCache.get`."""
        try:
            if self._reader is None:
                await self._db.run(lambda conn: None)  # creates the file, table and WAL mode
                self._reader = sqlite3.connect(
                    self._db.path, timeout=1, isolation_level=None, check_same_thread=False
                )
            text = self._get(self._reader, key, self._clock())
        except sqlite3.Error as exc:
            raise StorageUnavailableError(UNAVAILABLE) from exc
        return None if text is None else CachedEntry.from_json(text)

    async def put(self, key: str, entry: CachedEntry, ttl: int) -> None:
        """See :meth:`RenderCache.put`."""
        now = self._clock()
        await self._db.run(self._put, key, entry.to_json(), now, now + ttl)

    async def aclose(self) -> None:
        """Close the connections; a later call reopens them."""
        await self._db.aclose()
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    @staticmethod
    def _get(conn: sqlite3.Connection, key: str, now: float) -> str | None:
        row = conn.execute(
            "SELECT entry FROM render_cache WHERE key = ? AND expires > ?", (key, now)
        ).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def _put(conn: sqlite3.Connection, key: str, entry: str, now: float, expires: float) -> None:
        conn.execute("DELETE FROM render_cache WHERE expires <= ?", (now,))
        conn.execute(
            "INSERT OR REPLACE INTO render_cache (key, entry, expires) VALUES (?, ?, ?)",
            (key, entry, expires),
        )
