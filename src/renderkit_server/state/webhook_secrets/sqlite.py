"""Webhook secrets in an SQLite file, shared by the processes of one host."""

from __future__ import annotations

import os
import sqlite3

from renderkit_server.state._sqlite import SqliteDatabase
from renderkit_server.state.webhook_secrets.base import WebhookSecretEntry, decode, encode

__all__ = ["SqliteWebhookSecretStore"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS webhook_secrets (lineage TEXT PRIMARY KEY, entry TEXT NOT NULL)"
)


class SqliteWebhookSecretStore:
    """Entries in an SQLite file (WAL mode), shared by the processes of one host.

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._db = SqliteDatabase(
            path, schema=_SCHEMA, unavailable="the webhook secret store is unavailable"
        )

    def __repr__(self) -> str:
        return f"SqliteWebhookSecretStore({self._db.path!r})"

    async def get(self, lineage: str) -> WebhookSecretEntry | None:
        """See :meth:`WebhookSecretStore.get`."""
        value = await self._db.run(_get, lineage)
        return None if value is None else decode(value)

    async def create(self, lineage: str, entry: WebhookSecretEntry) -> WebhookSecretEntry:
        """See :meth:`WebhookSecretStore.create`."""
        return decode(await self._db.run(_create, lineage, encode(entry)))

    async def replace(
        self, lineage: str, expected: WebhookSecretEntry, entry: WebhookSecretEntry
    ) -> bool:
        """See :meth:`WebhookSecretStore.replace`."""
        return await self._db.run(_replace, lineage, encode(expected), encode(entry))

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._db.aclose()


def _get(conn: sqlite3.Connection, lineage: str) -> str | None:
    row = conn.execute("SELECT entry FROM webhook_secrets WHERE lineage = ?", (lineage,)).fetchone()
    return None if row is None else str(row[0])


def _create(conn: sqlite3.Connection, lineage: str, value: str) -> str:
    # One statement each, and the row is never deleted: the SELECT sees the winner.
    conn.execute(
        "INSERT INTO webhook_secrets (lineage, entry) VALUES (?, ?) ON CONFLICT DO NOTHING",
        (lineage, value),
    )
    stored = _get(conn, lineage)
    assert stored is not None
    return stored


def _replace(conn: sqlite3.Connection, lineage: str, expected: str, value: str) -> bool:
    cursor = conn.execute(
        "UPDATE webhook_secrets SET entry = ? WHERE lineage = ? AND entry = ?",
        (value, lineage, expected),
    )
    return cursor.rowcount == 1
