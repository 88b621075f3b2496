"""SQLite helpers shared by the server's stores."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

from renderkit import StorageUnavailableError

__all__ = ["SqliteDatabase", "enable_wal"]

_T = TypeVar("_T")


def enable_wal(conn: sqlite3.Connection, timeout: float) -> None:
    """Switch the database to WAL mode (it stays so), waiting out a concurrent switch.

    Changing the journal mode needs the database to itself and fails at once, without the
    busy handler, while another connection (a second replica starting at the same moment)
    holds a lock: retry for up to ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() == "wal":
                return
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            name = getattr(exc, "sqlite_errorname", "")
            busy = name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
            if not busy or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


class SqliteDatabase:
    """One SQLite file in WAL mode behind a connection that worker threads share in turn.

    The server's small stores (revocations, URL-signing secrets, the render cache index)
    differ only in their tables and queries; this holds what they share: the connection,
    opened on first use with the store's schema, a lock serialising it, calls run in worker
    threads, and SQLite errors turned into :class:`StorageUnavailableError`.

    Args:
        path: database file; its directory must exist.
        schema: the ``CREATE TABLE IF NOT EXISTS`` statement of the store.
        unavailable: the error message when SQLite fails, naming the store.
    """

    def __init__(self, path: str | os.PathLike[str], *, schema: str, unavailable: str) -> None:
        self.path = os.fspath(path)
        self._schema = schema
        self._unavailable = unavailable
        self._conn: sqlite3.Connection | None = None
        # sqlite3 connection objects need serialised access across threads.
        self._lock = threading.Lock()

    async def run(self, func: Callable[..., _T], *args: object) -> _T:
        """``func(connection, *args)`` in a worker thread, holding the connection.

        Raises:
            StorageUnavailableError: SQLite failed.
        """
        try:
            return await anyio.to_thread.run_sync(self._locked, func, *args)
        except sqlite3.Error as exc:
            raise StorageUnavailableError(self._unavailable) from exc

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await anyio.to_thread.run_sync(self._close)

    def _locked(self, func: Callable[..., _T], *args: object) -> _T:
        with self._lock:
            return func(self._connect(), *args)

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            # Autocommit: every statement of the stores is atomic on its own.
            conn = sqlite3.connect(
                self.path, timeout=10, isolation_level=None, check_same_thread=False
            )
            try:
                enable_wal(conn, timeout=10)
                conn.execute(self._schema)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
