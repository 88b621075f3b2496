"""SQLite helpers shared by the server's stores."""

from __future__ import annotations

import sqlite3
import time

__all__ = ["enable_wal"]


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
