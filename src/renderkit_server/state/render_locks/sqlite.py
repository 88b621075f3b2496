"""A :class:`~renderkit_server.state.render_locks.base.RenderLocks` in an SQLite file,
shared by the processes (server workers) of one host."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
import uuid

from renderkit_server.state._sqlite import SqliteDatabase, immediate
from renderkit_server.state.render_locks.base import POLL_SECONDS

__all__ = ["SqliteRenderLocks"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS render_locks ("
    " name TEXT PRIMARY KEY, token TEXT NOT NULL, expires_at REAL NOT NULL)"
)


class SqliteRenderLocks:
    """Locks as rows with an expiry (wall-clock seconds, which the host's processes share).

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._db = SqliteDatabase(
            path, schema=_SCHEMA, unavailable="the render lock store is unavailable"
        )

    def __repr__(self) -> str:
        return f"SqliteRenderLocks({self._db.path!r})"

    async def acquire(self, name: str, seconds: float) -> str | None:
        """See :meth:`RenderLocks.acquire`."""
        token = uuid.uuid4().hex
        taken = await self._db.run(self._acquire, name, token, seconds)
        return token if taken else None

    async def release(self, name: str, token: str) -> None:
        """See :meth:`RenderLocks.release`."""
        await self._db.run(
            lambda conn: conn.execute(
                "DELETE FROM render_locks WHERE name = ? AND token = ?", (name, token)
            )
        )

    async def wait(self, name: str, timeout: float) -> None:
        """See :meth:`RenderLocks.wait`; looks every :data:`POLL_SECONDS`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not await self._db.run(self._held, name):
                return
            await asyncio.sleep(POLL_SECONDS)

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._db.aclose()

    @staticmethod
    def _acquire(conn: sqlite3.Connection, name: str, token: str, seconds: float) -> bool:
        now = time.time()
        with immediate(conn):
            conn.execute("DELETE FROM render_locks WHERE expires_at <= ?", (now,))
            inserted = conn.execute(
                "INSERT OR IGNORE INTO render_locks (name, token, expires_at) VALUES (?, ?, ?)",
                (name, token, now + seconds),
            ).rowcount
        return bool(inserted)

    @staticmethod
    def _held(conn: sqlite3.Connection, name: str) -> bool:
        row = conn.execute(
            "SELECT 1 FROM render_locks WHERE name = ? AND expires_at > ?", (name, time.time())
        ).fetchone()
        return row is not None
