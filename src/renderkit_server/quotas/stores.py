"""Usage counters: the :class:`UsageStore` protocol and its memory and SQLite backends.

A usage store keeps two kinds of integer counters, both updated by atomic
check-and-increment operations so that concurrent requests (tasks, processes or replicas
sharing one backend) can never spend more than a limit:

* monthly counters, one per ``(key_id, metric, period)``; ``period`` is an opaque string
  chosen by the caller (:func:`renderkit_server.quotas.service.month_period` gives ``"2026-11"``);
* burst counters, one per ``(key_id, window_seconds, window_start)`` fixed time window.

Counters are plain integers in whatever unit the caller meters; the store never converts.
(The quota service meters audio duration in milliseconds so fractional minutes stay exact.)

Backends: :class:`MemoryUsageStore` (one process), :class:`SqliteUsageStore` (processes on
one host sharing a file) and :class:`~renderkit_server.quotas.redis_store.RedisUsageStore` (many
hosts). Backend failures raise :class:`renderkit.StorageUnavailableError`, whose message
never contains connection strings, passwords or file paths.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

import anyio
import anyio.to_thread
import attrs

from renderkit import StorageUnavailableError
from renderkit_server._sqlite import enable_wal

__all__ = [
    "MemoryUsageStore",
    "Reservation",
    "SqliteUsageStore",
    "UsageStore",
]

_T = TypeVar("_T")
_K = TypeVar("_K", bound=Hashable)


@attrs.frozen(kw_only=True)
class Reservation:
    """The outcome of one check-and-increment.

    Attributes:
        allowed: True when the amount was added; False when it would have exceeded
            ``limit`` and nothing was added.
        used: the counter after the operation (unchanged when not allowed).
        limit: the limit checked against; ``None`` means unlimited.
    """

    allowed: bool
    used: int
    limit: int | None

    @property
    def remaining(self) -> int | None:
        """What is left under the limit (never negative); ``None`` when unlimited."""
        if self.limit is None:
            return None
        return max(self.limit - self.used, 0)


@runtime_checkable
class UsageStore(Protocol):
    """Atomic usage counters shared by every replica of the server.

    Implementations must be safe to call from concurrent tasks of one event loop, and a
    shared backend (SQLite file, Redis) must stay exact across processes. Amounts and limits
    are non-negative integers; a negative value raises :class:`ValueError`. Failures of the
    backend raise :class:`renderkit.StorageUnavailableError`, as does any call after
    :meth:`aclose`.
    """

    async def reserve(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None
    ) -> Reservation:
        """Add ``amount`` to a monthly counter unless that would exceed ``limit``.

        The check and the increment are one atomic step: 50 concurrent reservations of 1
        against a limit of 10 allow exactly 10.

        Args:
            key_id: the API key lineage id the usage belongs to.
            metric: what is counted, e.g. ``images``.
            period: the accounting period, e.g. ``2026-11``.
            amount: how much to add; 0 only reads the counter.
            limit: the most the counter may reach; ``None`` means unlimited.

        Returns:
            ``allowed=True`` and the new total, or ``allowed=False`` and the current total
            when ``used + amount > limit`` (nothing is added then).
        """
        ...

    async def release(self, key_id: str, metric: str, period: str, amount: int) -> None:
        """Subtract ``amount`` from a monthly counter, stopping at zero.

        Used to refund a reservation whose call then failed. Releasing from a counter that
        does not exist is a no-op.
        """
        ...

    async def usage(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: used}`` for one key and period; zero counters are left out."""
        ...

    async def hit(
        self, key_id: str, window_start: int, window_seconds: int, limit: int | None
    ) -> Reservation:
        """Count one request in a fixed time window unless the window is full.

        Atomic like :meth:`reserve`. Counters of windows that have ended are deleted by the
        backend (expiry or opportunistic clean-up), so they must not be read back later.

        Args:
            key_id: the API key lineage id.
            window_start: start of the window, in seconds since the Unix epoch.
            window_seconds: length of the window, e.g. 60.
            limit: the most requests the window may hold; ``None`` means unlimited.

        Returns:
            The reservation for this window's counter.
        """
        ...

    async def ping(self) -> None:
        """Check the backend answers.

        Raises:
            StorageUnavailableError: the backend cannot be reached or was closed.
        """
        ...

    async def aclose(self) -> None:
        """Release connections; calling it again is a no-op."""
        ...


def _check_amount(amount: int) -> None:
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
        msg = f"amount must be a non-negative integer, got {amount!r}"
        raise ValueError(msg)


def _check_limit(limit: int | None) -> None:
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        msg = f"limit must be a non-negative integer or None, got {limit!r}"
        raise ValueError(msg)


def _check_window(window_start: int, window_seconds: int) -> None:
    if not isinstance(window_seconds, int) or window_seconds <= 0:
        msg = f"window_seconds must be a positive integer, got {window_seconds!r}"
        raise ValueError(msg)
    if not isinstance(window_start, int):
        msg = f"window_start must be an integer, got {window_start!r}"
        raise ValueError(msg)


def _check_open(closed: bool, backend: str) -> None:
    if closed:
        msg = f"the {backend} usage store is closed"
        raise StorageUnavailableError(msg)


class MemoryUsageStore:
    """Counters in dicts owned by the instance: for tests and single-process servers.

    Each instance starts empty and shares nothing. Counters are lost when the process ends,
    and every replica counts on its own, so use SQLite or Redis for more than one process.
    """

    def __init__(self) -> None:
        self._monthly: dict[tuple[str, str, str], int] = {}
        self._windows: dict[tuple[str, int, int], int] = {}
        self._swept_before = 0
        # Never held across an await, so it costs nothing on the event loop, and it keeps
        # the store exact if it is also used from worker threads.
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"MemoryUsageStore(<{len(self._monthly)} counters>)"

    def _check_open(self) -> None:
        _check_open(self._closed, "memory")

    async def reserve(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None
    ) -> Reservation:
        """Add ``amount`` to a monthly counter unless that would exceed ``limit``."""
        _check_amount(amount)
        _check_limit(limit)
        self._check_open()
        with self._lock:
            return self._add(self._monthly, (key_id, metric, period), amount, limit)

    async def release(self, key_id: str, metric: str, period: str, amount: int) -> None:
        """Subtract ``amount`` from a monthly counter, stopping at zero."""
        _check_amount(amount)
        self._check_open()
        with self._lock:
            counter = (key_id, metric, period)
            if counter in self._monthly:
                self._monthly[counter] = max(self._monthly[counter] - amount, 0)

    async def usage(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: used}`` for one key and period; zero counters are left out."""
        self._check_open()
        with self._lock:
            return {
                metric: used
                for (k, metric, p), used in self._monthly.items()
                if k == key_id and p == period and used > 0
            }

    async def hit(
        self, key_id: str, window_start: int, window_seconds: int, limit: int | None
    ) -> Reservation:
        """Count one request in a fixed window unless the window is full."""
        _check_window(window_start, window_seconds)
        _check_limit(limit)
        self._check_open()
        with self._lock:
            if window_start > self._swept_before:
                # Sweep at most once per new window; windows that ended before this one
                # started can never be hit again by a caller with a sane clock.
                self._windows = {
                    w: n for w, n in self._windows.items() if w[1] + w[2] > window_start
                }
                self._swept_before = window_start
            return self._add(self._windows, (key_id, window_start, window_seconds), 1, limit)

    @staticmethod
    def _add(counters: dict[_K, int], counter: _K, amount: int, limit: int | None) -> Reservation:
        used = counters.get(counter, 0)
        if limit is not None and used + amount > limit:
            return Reservation(allowed=False, used=used, limit=limit)
        counters[counter] = used + amount
        return Reservation(allowed=True, used=used + amount, limit=limit)

    async def ping(self) -> None:
        """Raise :class:`renderkit.StorageUnavailableError` once the store is closed."""
        self._check_open()

    async def aclose(self) -> None:
        """Mark the store closed; later calls raise ``StorageUnavailableError``."""
        self._closed = True


_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS usage (
        key_id TEXT NOT NULL,
        metric TEXT NOT NULL,
        period TEXT NOT NULL,
        used INTEGER NOT NULL,
        PRIMARY KEY (key_id, metric, period)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE IF NOT EXISTS burst (
        key_id TEXT NOT NULL,
        window_seconds INTEGER NOT NULL,
        window_start INTEGER NOT NULL,
        window_end INTEGER NOT NULL,
        hits INTEGER NOT NULL,
        PRIMARY KEY (key_id, window_seconds, window_start)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX IF NOT EXISTS burst_window_end ON burst (window_end)",
)

# One statement checks and increments, so the limit holds even without the surrounding
# IMMEDIATE transaction; the transaction only makes the follow-up read of a refused counter
# consistent. The SELECT needs its WHERE clause anyway: SQLite requires one to parse an
# upsert on INSERT ... SELECT.
_RESERVE = """
    INSERT INTO usage (key_id, metric, period, used)
    SELECT :key_id, :metric, :period, :amount WHERE :limit IS NULL OR :amount <= :limit
    ON CONFLICT (key_id, metric, period) DO UPDATE SET used = used + excluded.used
    WHERE :limit IS NULL OR used + excluded.used <= :limit
    RETURNING used
"""
_READ = "SELECT used FROM usage WHERE key_id = :key_id AND metric = :metric AND period = :period"
_RELEASE = """
    UPDATE usage SET used = max(used - :amount, 0)
    WHERE key_id = :key_id AND metric = :metric AND period = :period
"""
_USAGE = "SELECT metric, used FROM usage WHERE key_id = ? AND period = ? AND used > 0"
_HIT = """
    INSERT INTO burst (key_id, window_seconds, window_start, window_end, hits)
    SELECT :key_id, :window_seconds, :window_start, :window_end, 1
    WHERE :limit IS NULL OR 1 <= :limit
    ON CONFLICT (key_id, window_seconds, window_start) DO UPDATE SET hits = hits + 1
    WHERE :limit IS NULL OR hits + 1 <= :limit
    RETURNING hits
"""
_READ_HIT = """
    SELECT hits FROM burst
    WHERE key_id = :key_id AND window_seconds = :window_seconds AND window_start = :window_start
"""
# Keep one extra window so a replica whose clock lags slightly still finds its counter.
_SWEEP = "DELETE FROM burst WHERE window_end <= :window_start - :window_seconds"


class SqliteUsageStore:
    """Counters in an SQLite database file, shared by every process on one host.

    The database runs in WAL mode with a busy timeout, and each check-and-increment is one
    upsert inside an ``IMMEDIATE`` transaction, so two processes (or two instances) on the
    same file stay exact. The stdlib driver blocks, so every call runs in a worker thread;
    the connection is opened lazily there and used by one thread at a time.

    Args:
        path: the database file; created with its tables on first use. The directory must
            exist. ``":memory:"`` gives a private in-memory database.
        busy_timeout: seconds to wait for another writer before failing.
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 5.0) -> None:
        self._path = os.fspath(path)
        self._busy_timeout_ms = int(busy_timeout * 1000)
        self._conn: sqlite3.Connection | None = None
        self._lock = anyio.Lock()
        self._closed = False
        self._swept_before = 0

    def __repr__(self) -> str:
        return f"SqliteUsageStore({Path(self._path).name!r})"

    async def reserve(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None
    ) -> Reservation:
        """Add ``amount`` to a monthly counter unless that would exceed ``limit``.

        Raises:
            StorageUnavailableError: the database cannot be opened, is locked for longer
                than the busy timeout, or the store is closed.
        """
        _check_amount(amount)
        _check_limit(limit)
        params = {
            "key_id": key_id,
            "metric": metric,
            "period": period,
            "amount": amount,
            "limit": limit,
        }

        def run(conn: sqlite3.Connection) -> Reservation:
            with _immediate(conn):
                rows = conn.execute(_RESERVE, params).fetchall()
                if rows:
                    return Reservation(allowed=True, used=rows[0][0], limit=limit)
                row = conn.execute(_READ, params).fetchone()
            return Reservation(allowed=False, used=row[0] if row else 0, limit=limit)

        return await self._run(run)

    async def release(self, key_id: str, metric: str, period: str, amount: int) -> None:
        """Subtract ``amount`` from a monthly counter, stopping at zero.

        Raises:
            StorageUnavailableError: the database failed or the store is closed.
        """
        _check_amount(amount)
        params = {"key_id": key_id, "metric": metric, "period": period, "amount": amount}
        await self._run(lambda conn: conn.execute(_RELEASE, params))

    async def usage(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: used}`` for one key and period; zero counters are left out.

        Raises:
            StorageUnavailableError: the database failed or the store is closed.
        """

        def run(conn: sqlite3.Connection) -> dict[str, int]:
            return dict(conn.execute(_USAGE, (key_id, period)).fetchall())

        return await self._run(run)

    async def hit(
        self, key_id: str, window_start: int, window_seconds: int, limit: int | None
    ) -> Reservation:
        """Count one request in a fixed window unless the window is full.

        Rows of ended windows are deleted at most once per new window seen by this
        instance.

        Raises:
            StorageUnavailableError: the database failed or the store is closed.
        """
        _check_window(window_start, window_seconds)
        _check_limit(limit)
        params = {
            "key_id": key_id,
            "window_seconds": window_seconds,
            "window_start": window_start,
            "window_end": window_start + window_seconds,
            "limit": limit,
        }

        def run(conn: sqlite3.Connection) -> Reservation:
            with _immediate(conn):
                if window_start > self._swept_before:
                    conn.execute(_SWEEP, params)
                    self._swept_before = window_start
                rows = conn.execute(_HIT, params).fetchall()
                if rows:
                    return Reservation(allowed=True, used=rows[0][0], limit=limit)
                row = conn.execute(_READ_HIT, params).fetchone()
            return Reservation(allowed=False, used=row[0] if row else 0, limit=limit)

        return await self._run(run)

    async def ping(self) -> None:
        """Open the database if needed and run a trivial query.

        Raises:
            StorageUnavailableError: the database cannot be opened or the store is closed.
        """
        await self._run(lambda conn: conn.execute("SELECT 1").fetchall())

    async def aclose(self) -> None:
        """Close the connection; later calls raise ``StorageUnavailableError``."""
        async with self._lock:
            self._closed = True
            if self._conn is not None:
                conn, self._conn = self._conn, None
                await anyio.to_thread.run_sync(conn.close)

    async def _run(self, func: Callable[[sqlite3.Connection], _T]) -> _T:
        async with self._lock:
            _check_open(self._closed, "sqlite")
            return await anyio.to_thread.run_sync(self._call, func)

    def _call(self, func: Callable[[sqlite3.Connection], _T]) -> _T:
        try:
            if self._conn is None:
                self._conn = self._connect()
            return func(self._conn)
        except sqlite3.Error as exc:
            # The driver's messages hold no path, but the error name is all a client needs.
            name = getattr(exc, "sqlite_errorname", None) or type(exc).__name__
            msg = f"the sqlite usage store failed ({name})"
            raise StorageUnavailableError(msg) from exc

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: the driver opens no implicit transactions; _immediate() does.
        # check_same_thread=False: anyio may pick a different worker thread per call, and
        # the async lock guarantees only one of them uses the connection at a time.
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
            enable_wal(conn, self._busy_timeout_ms / 1000)
            conn.execute("PRAGMA synchronous = NORMAL")
            with _immediate(conn):
                for statement in _SCHEMA:
                    conn.execute(statement)
        except BaseException:
            conn.close()
            raise
        return conn


@contextmanager
def _immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """Run the block in a write transaction taken up front, so writers queue, not deadlock."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
