"""The one SQLite helper of the server's stores: a shared WAL-mode file behind a lock."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import anyio.to_thread

from renderkit import StorageUnavailableError

__all__ = ["SqliteDatabase", "SqliteTextMap", "enable_wal", "immediate"]

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


@contextlib.contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """Run the block in a write transaction taken up front, so writers queue, not deadlock."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


class SqliteDatabase:
    """One SQLite file in WAL mode behind a connection that worker threads share in turn.

    The server's SQLite stores (usage, revocations, URL-signing secrets, the render cache
    index) differ only in their tables and queries; this holds what they share: the
    connection, opened on first use with the store's schema, a lock serialising it, calls
    run in worker threads, and SQLite errors turned into :class:`StorageUnavailableError`.
    The connection is in autocommit mode: a store needing several statements to be atomic
    wraps them in :func:`immediate`.

    Args:
        path: database file; its directory must exist.
        schema: the ``CREATE ... IF NOT EXISTS`` statements of the store, run in one
            transaction when the connection opens.
        unavailable: the error when SQLite fails: a message naming the store, or a function
            of the driver's error returning the error to raise (chained from it).
        timeout: seconds to wait for another process's write lock before failing.
        pragmas: ``PRAGMA`` statements run on each new connection (``synchronous = NORMAL``).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        schema: str | Sequence[str],
        unavailable: str | Callable[[sqlite3.Error], StorageUnavailableError],
        timeout: float = 10.0,
        pragmas: Sequence[str] = (),
    ) -> None:
        self.path = os.fspath(path)
        self._schema = (schema,) if isinstance(schema, str) else tuple(schema)
        self._unavailable = unavailable
        self._timeout = timeout
        self._pragmas = tuple(pragmas)
        self._conn: sqlite3.Connection | None = None
        self._closed_for_good: StorageUnavailableError | None = None
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
            if isinstance(self._unavailable, str):
                raise StorageUnavailableError(self._unavailable) from exc
            raise self._unavailable(exc) from exc

    async def aclose(self, *, refuse: StorageUnavailableError | None = None) -> None:
        """Close the connection; a later call reopens it, unless ``refuse`` is given: then
        later calls raise it (a store whose contract refuses calls after closing)."""
        await anyio.to_thread.run_sync(self._close, refuse)

    def _locked(self, func: Callable[..., _T], *args: object) -> _T:
        with self._lock:
            # Checked under the lock: a call queued behind the close must not reopen it.
            if self._closed_for_good is not None:
                raise self._closed_for_good
            return func(self._connect(), *args)

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            # Autocommit: every statement of the stores is atomic on its own.
            conn = sqlite3.connect(
                self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
            )
            try:
                enable_wal(conn, timeout=self._timeout)
                for pragma in self._pragmas:
                    conn.execute(pragma)
                with immediate(conn):
                    for statement in self._schema:
                        conn.execute(statement)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _close(self, refuse: StorageUnavailableError | None) -> None:
        with self._lock:
            if refuse is not None:
                self._closed_for_good = refuse
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class SqliteTextMap:
    """One table of text keys to text values: the stores that only put, get and delete one
    string by another (key owners, URL-signing secrets) differ in nothing but names.

    Args:
        path: database file; its directory must exist.
        table, key, value: the table and its two columns (names from code, never input).
        unavailable: the error message when SQLite fails, naming the store.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, table: str, key: str, value: str, unavailable: str
    ) -> None:
        self._db = SqliteDatabase(
            path,
            schema=(
                f"CREATE TABLE IF NOT EXISTS {table}"
                f" ({key} TEXT PRIMARY KEY, {value} TEXT NOT NULL)"
            ),
            unavailable=unavailable,
        )
        # Identifiers cannot be bound parameters; these come from the stores' own code.
        self._put = (
            f"INSERT INTO {table} ({key}, {value}) VALUES (?, ?)"
            f" ON CONFLICT ({key}) DO UPDATE SET {value} = excluded.{value}"
        )
        self._get = f"SELECT {value} FROM {table} WHERE {key} = ?"
        self._delete = f"DELETE FROM {table} WHERE {key} = ?"

    @property
    def path(self) -> str:
        """The database file."""
        return self._db.path

    async def put(self, key: str, value: str) -> None:
        """Set ``key`` to ``value``, replacing what it held."""
        await self._db.run(_execute, self._put, (key, value))

    async def get(self, key: str) -> str | None:
        """The value of ``key``, None when it has none."""
        row = await self._db.run(_fetch_one, self._get, (key,))
        return None if row is None else str(row[0])

    async def delete(self, key: str) -> None:
        """Forget ``key`` (nothing happens when it is unknown)."""
        await self._db.run(_execute, self._delete, (key,))

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._db.aclose()


def _execute(conn: sqlite3.Connection, sql: str, params: tuple[str, ...]) -> None:
    conn.execute(sql, params)


def _fetch_one(
    conn: sqlite3.Connection, sql: str, params: tuple[str, ...]
) -> tuple[object, ...] | None:
    row: tuple[object, ...] | None = conn.execute(sql, params).fetchone()
    return row
