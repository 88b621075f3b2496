"""Where key regenerations are recorded: "generations below N of lineage L are invalid".

:class:`KeyService` loads every threshold into memory at start and verifies keys without
touching the store; the store only has to persist thresholds and raise them atomically.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import NoReturn, Protocol, TypeVar, runtime_checkable

from renderkit_server._sqlite import SqliteDatabase

__all__ = [
    "MemoryRevocationStore",
    "RevocationFeed",
    "RevocationStore",
    "SqliteRevocationStore",
]

_T = TypeVar("_T")


@runtime_checkable
class RevocationStore(Protocol):
    """Persists "generations below ``before`` of lineage ``key_id`` are invalid".

    Thresholds only ever grow. Implementations must be safe to share between processes
    when they claim to persist (the compare-and-set in :meth:`revoke` is what stops a key
    from being regenerated twice by two processes).
    """

    async def revoke(self, key_id: str, *, before: int) -> bool:
        """Raise the threshold of ``key_id`` to ``before`` if it is lower.

        Returns:
            True if the threshold was raised by this call, False if it already was at least
            ``before`` (someone else revoked that generation first).

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def load_all(self) -> dict[str, int]:
        """Return every lineage's threshold (``key_id`` → ``before``); empty when none."""
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...


@runtime_checkable
class RevocationFeed(Protocol):
    """A store that also pushes revocations made by other processes as they happen."""

    async def follow(
        self,
        on_revoked: Callable[[str, int], None],
        on_connected: Callable[[], Awaitable[None]],
    ) -> NoReturn:
        """Call ``on_revoked(key_id, before)`` for every revocation, until cancelled.

        ``on_connected`` is awaited each time the feed is (re)connected, after which no
        revocation is missed: the caller reloads everything there, to pick up what was
        revoked while the feed was down. Connection failures are retried, never raised.
        """
        ...


class MemoryRevocationStore:
    """Keeps revocations in this instance only: nothing survives a restart (tests, dev)."""

    def __init__(self) -> None:
        self._before: dict[str, int] = {}

    async def revoke(self, key_id: str, *, before: int) -> bool:
        """See :meth:`RevocationStore.revoke`."""
        if self._before.get(key_id, 0) >= before:
            return False
        self._before[key_id] = before
        return True

    async def load_all(self) -> dict[str, int]:
        """See :meth:`RevocationStore.load_all`."""
        return dict(self._before)

    async def aclose(self) -> None:
        """Nothing to release."""


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
