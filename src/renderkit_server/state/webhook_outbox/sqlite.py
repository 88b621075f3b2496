"""The webhook outbox in an SQLite file, shared by the processes of one host."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime

import attrs

from renderkit_server.state._sqlite import SqliteDatabase, immediate
from renderkit_server.state.webhook_outbox.base import Delivery, backlog_full, decode, encode

__all__ = ["SqliteWebhookOutbox"]

# The record is the JSON of base.encode; the other columns are what the queries select on.
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS webhook_deliveries ("
    " id TEXT PRIMARY KEY, lineage TEXT NOT NULL, subject TEXT NOT NULL,"
    " status TEXT NOT NULL, due REAL, created REAL NOT NULL, record TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (due)"
    " WHERE status = 'pending'",
    "CREATE INDEX IF NOT EXISTS webhook_deliveries_lineage"
    " ON webhook_deliveries (lineage, status, subject)",
)
_UPSERT = (
    "INSERT INTO webhook_deliveries (id, lineage, subject, status, due, created, record)"
    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status,"
    " due = excluded.due, record = excluded.record"
)


def _row(d: Delivery) -> tuple[object, ...]:
    due = None if d.due is None or d.status != "pending" else d.due.timestamp()
    return (d.id, d.lineage, d.subject, d.status, due, d.created.timestamp(), encode(d))


class SqliteWebhookOutbox:
    """Deliveries in an SQLite file (WAL mode), shared by the processes of one host.

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._db = SqliteDatabase(
            path, schema=_SCHEMA, unavailable="the webhook outbox is unavailable"
        )

    def __repr__(self) -> str:
        return f"SqliteWebhookOutbox({self._db.path!r})"

    async def add(self, delivery: Delivery, *, max_pending: int) -> bool:
        """See :meth:`WebhookOutbox.add`."""
        added = await self._db.run(_add, _row(delivery), max_pending)
        if added is None:
            raise backlog_full(max_pending)
        return added

    async def claim(self, now: datetime, *, lease: float, limit: int) -> list[Delivery]:
        """See :meth:`WebhookOutbox.claim`."""
        records = await self._db.run(_claim, now.timestamp(), lease, limit)
        return [decode(record) for record in records]

    async def save(self, delivery: Delivery) -> None:
        """See :meth:`WebhookOutbox.save`."""
        await self._db.run(_save, _row(delivery))

    async def get(self, delivery_id: str) -> Delivery | None:
        """See :meth:`WebhookOutbox.get`."""
        rows = await self._db.run(
            _select, "SELECT record FROM webhook_deliveries WHERE id = ?", (delivery_id,)
        )
        return decode(rows[0]) if rows else None

    async def for_subject(self, lineage: str, subject: str) -> list[Delivery]:
        """See :meth:`WebhookOutbox.for_subject`."""
        rows = await self._db.run(
            _select,
            "SELECT record FROM webhook_deliveries WHERE lineage = ? AND subject = ?"
            " ORDER BY created, id",
            (lineage, subject),
        )
        return [decode(record) for record in rows]

    async def purge(self, before: datetime) -> int:
        """See :meth:`WebhookOutbox.purge`."""
        return await self._db.run(_purge, before.timestamp())

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._db.aclose()


def _add(conn: sqlite3.Connection, row: tuple[object, ...], max_pending: int) -> bool | None:
    # True: written; False: the id was there already; None: the backlog is full.
    with immediate(conn):
        if conn.execute("SELECT 1 FROM webhook_deliveries WHERE id = ?", (row[0],)).fetchone():
            return False
        (pending,) = conn.execute(
            "SELECT COUNT(*) FROM webhook_deliveries WHERE lineage = ? AND status = 'pending'",
            (row[1],),
        ).fetchone()
        if pending >= max_pending:
            return None
        conn.execute(_UPSERT, row)
    return True


def _claim(conn: sqlite3.Connection, now: float, lease: float, limit: int) -> list[str]:
    with immediate(conn):
        rows = conn.execute(
            "SELECT id, record FROM webhook_deliveries WHERE status = 'pending' AND due <= ?"
            " ORDER BY due, id LIMIT ?",
            (now, limit),
        ).fetchall()
        records = []
        for delivery_id, record in rows:
            # The lease lives in both the column (what claim selects on) and the record.
            claimed = encode(_leased(decode(record), now + lease))
            conn.execute(
                "UPDATE webhook_deliveries SET due = ?, record = ? WHERE id = ?",
                (now + lease, claimed, delivery_id),
            )
            records.append(claimed)
    return records


def _leased(delivery: Delivery, until: float) -> Delivery:
    return attrs.evolve(delivery, due=datetime.fromtimestamp(until, tz=UTC))


def _save(conn: sqlite3.Connection, row: tuple[object, ...]) -> None:
    conn.execute(_UPSERT, row)


def _select(conn: sqlite3.Connection, sql: str, params: tuple[str, ...]) -> list[str]:
    return [str(row[0]) for row in conn.execute(sql, params).fetchall()]


def _purge(conn: sqlite3.Connection, before: float) -> int:
    cursor = conn.execute(
        "DELETE FROM webhook_deliveries WHERE status != 'pending' AND created < ?", (before,)
    )
    return cursor.rowcount
