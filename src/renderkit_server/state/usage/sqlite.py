"""A :class:`~renderkit_server.state.usage.base.UsageStore` in an SQLite file, shared by
the processes of one host."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import attrs

from renderkit import StorageUnavailableError
from renderkit_server.state._sqlite import SqliteDatabase, immediate
from renderkit_server.state.usage.base import (
    Lease,
    Reservation,
    check_amount,
    check_lease_seconds,
    check_limit,
    check_window,
    closed_error,
    store_failure,
)

__all__ = ["SqliteUsageStore"]

_T = TypeVar("_T")

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
    """
    CREATE TABLE IF NOT EXISTS leases (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        metric TEXT NOT NULL,
        period TEXT NOT NULL,
        amount INTEGER NOT NULL,
        expires_at REAL NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS leases_counter ON leases (key_id, period, metric)",
    "CREATE INDEX IF NOT EXISTS leases_expires_at ON leases (expires_at)",
    # The idempotent charges made (commit's ``once``), one row per charge of a job.
    """
    CREATE TABLE IF NOT EXISTS charged (
        key_id TEXT NOT NULL,
        metric TEXT NOT NULL,
        period TEXT NOT NULL,
        once TEXT NOT NULL,
        PRIMARY KEY (key_id, metric, period, once)
    ) WITHOUT ROWID
    """,
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
_SWEEP_LEASES = "DELETE FROM leases WHERE expires_at <= :now"
_HELD = """
    SELECT coalesce(sum(amount), 0) FROM leases
    WHERE key_id = :key_id AND metric = :metric AND period = :period
"""
_INSERT_LEASE = """
    INSERT INTO leases (id, key_id, metric, period, amount, expires_at)
    VALUES (:id, :key_id, :metric, :period, :amount, :expires_at)
"""
_DROP_LEASE = "DELETE FROM leases WHERE id = :id"
_CHARGE = """
    INSERT INTO usage (key_id, metric, period, used) VALUES (:key_id, :metric, :period, :amount)
    ON CONFLICT (key_id, metric, period) DO UPDATE SET used = used + excluded.used
"""
_CHARGE_ONCE = """
    INSERT OR IGNORE INTO charged (key_id, metric, period, once)
    VALUES (:key_id, :metric, :period, :once)
"""
_RENEW = "UPDATE leases SET expires_at = :expires_at WHERE id = :id AND expires_at > :now"
_IN_FLIGHT = """
    SELECT metric, sum(amount) FROM leases
    WHERE key_id = :key_id AND period = :period AND expires_at > :now
    GROUP BY metric HAVING sum(amount) > 0
"""
_EXPORT = "SELECT key_id, metric, used FROM usage WHERE period = ? AND used > 0"
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
        clock: Unix seconds now, which lease expiries are measured by; injected by tests.
            Processes sharing a file must agree on it (one host's clock does).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 5.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._clock = clock
        self._db = SqliteDatabase(
            path,
            schema=_SCHEMA,
            unavailable=_failure,
            timeout=busy_timeout,
            pragmas=("PRAGMA synchronous = NORMAL",),
        )
        self._swept_before = 0

    def __repr__(self) -> str:
        return f"SqliteUsageStore({Path(self._db.path).name!r})"

    async def reserve(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None
    ) -> Reservation:
        """Add ``amount`` to a monthly counter unless that would exceed ``limit``.

        Raises:
            StorageUnavailableError: the database cannot be opened, is locked for longer
                than the busy timeout, or the store is closed.
        """
        check_amount(amount)
        check_limit(limit)
        params = {
            "key_id": key_id,
            "metric": metric,
            "period": period,
            "amount": amount,
            "limit": limit,
        }

        def run(conn: sqlite3.Connection) -> Reservation:
            with immediate(conn):
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
        check_amount(amount)
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

    async def lease(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None, seconds: float
    ) -> Reservation:
        """Hold ``amount`` unless committed usage plus live leases would exceed ``limit``.

        Expired leases of every key are deleted in the same transaction.

        Raises:
            StorageUnavailableError: the database failed or the store is closed.
        """
        check_amount(amount)
        check_limit(limit)
        check_lease_seconds(seconds)
        now = self._clock()
        lease = Lease(
            key_id=key_id,
            metric=metric,
            period=period,
            amount=amount,
            expires_at=now + seconds,
        )
        params = {
            "id": lease.id,
            "key_id": key_id,
            "metric": metric,
            "period": period,
            "amount": amount,
            "expires_at": lease.expires_at,
            "now": now,
        }

        def run(conn: sqlite3.Connection) -> Reservation:
            with immediate(conn):
                conn.execute(_SWEEP_LEASES, params)
                row = conn.execute(_READ, params).fetchone()
                used = (row[0] if row else 0) + conn.execute(_HELD, params).fetchone()[0]
                if limit is not None and used + amount > limit:
                    return Reservation(allowed=False, used=used, limit=limit)
                conn.execute(_INSERT_LEASE, params)
            return Reservation(allowed=True, used=used + amount, limit=limit, lease=lease)

        return await self._run(run)

    async def commit(self, lease: Lease, *, once: str | None = None) -> bool:
        """Charge ``lease.amount`` and delete the lease, in one transaction; with ``once``,
        the charge is recorded in the same transaction and made only the first time.

        Raises:
            StorageUnavailableError: the database failed or the store is closed.
        """
        check_amount(lease.amount)
        params = {
            "id": lease.id,
            "key_id": lease.key_id,
            "metric": lease.metric,
            "period": lease.period,
            "amount": lease.amount,
            "once": once,
        }

        def run(conn: sqlite3.Connection) -> bool:
            with immediate(conn):
                conn.execute(_DROP_LEASE, params)
                if once is not None and not conn.execute(_CHARGE_ONCE, params).rowcount:
                    return False
                conn.execute(_CHARGE, params)
            return True

        return await self._run(run)

    async def drop(self, lease: Lease) -> None:
        """Delete a lease without charging it.

        Raises:
            StorageUnavailableError: the database failed or the store is closed.
        """
        await self._run(lambda conn: conn.execute(_DROP_LEASE, {"id": lease.id}))

    async def renew(self, lease: Lease, seconds: float) -> Lease | None:
        """Move a live lease's expiry to ``seconds`` from now; ``None`` if it is gone.

        Raises:
            StorageUnavailableError: the database failed or the store is closed.
        """
        check_lease_seconds(seconds)
        now = self._clock()
        params = {"id": lease.id, "expires_at": now + seconds, "now": now}

        def run(conn: sqlite3.Connection) -> int:
            return conn.execute(_RENEW, params).rowcount

        if not await self._run(run):
            return None
        return attrs.evolve(lease, expires_at=now + seconds)

    async def in_flight(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: held}`` over the live leases of one key and period.

        Raises:
            StorageUnavailableError: the database failed or the store is closed.
        """
        params = {"key_id": key_id, "period": period, "now": self._clock()}

        # Read-only (expired rows are filtered, and deleted by the next lease): a key holder
        # may poll its usage often, and must not take the write lock every time to do so.
        def run(conn: sqlite3.Connection) -> dict[str, int]:
            return dict(conn.execute(_IN_FLIGHT, params).fetchall())

        return await self._run(run)

    async def export(self, period: str) -> dict[str, dict[str, int]]:
        """Return ``{key_id: {metric: used}}`` of every key with committed usage.

        Raises:
            StorageUnavailableError: the database failed or the store is closed.
        """

        def run(conn: sqlite3.Connection) -> dict[str, dict[str, int]]:
            result: dict[str, dict[str, int]] = {}
            for key_id, metric, used in conn.execute(_EXPORT, (period,)).fetchall():
                result.setdefault(key_id, {})[metric] = used
            return result

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
        check_window(window_start, window_seconds)
        check_limit(limit)
        params = {
            "key_id": key_id,
            "window_seconds": window_seconds,
            "window_start": window_start,
            "window_end": window_start + window_seconds,
            "limit": limit,
        }

        def run(conn: sqlite3.Connection) -> Reservation:
            with immediate(conn):
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
        await self._db.aclose(refuse=closed_error("sqlite"))

    async def _run(self, func: Callable[[sqlite3.Connection], _T]) -> _T:
        return await self._db.run(func)


def _failure(exc: sqlite3.Error) -> StorageUnavailableError:
    # The driver's messages hold no path, but the error name is all a client needs.
    return store_failure("sqlite", getattr(exc, "sqlite_errorname", None) or type(exc).__name__)
