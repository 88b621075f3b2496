"""A :class:`~renderkit_server.state.jobs.base.JobStore` in an SQLite file: the embedded
queue, shared by the processes of one host, kept across restarts.

Every state change is one ``BEGIN IMMEDIATE`` transaction, so two workers (threads or
processes) never claim one job: the claim reads the smallest rank and takes it in the same
write transaction. JSON fields are stored as text.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from renderkit_server.state._sqlite import SqliteDatabase, immediate
from renderkit_server.state.jobs.base import ABANDONED, Batch, BatchView, Claim, Job, rank_after
from renderkit_server.state.jobs.memory import check_submission

__all__ = ["SqliteJobStore"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS jobs ("
    " id TEXT PRIMARY KEY, owner TEXT NOT NULL, plan TEXT NOT NULL, kind TEXT NOT NULL,"
    " request TEXT NOT NULL, status TEXT NOT NULL, created_at REAL NOT NULL,"
    " expires_at REAL NOT NULL, started_at REAL, finished_at REAL,"
    " attempts INTEGER NOT NULL, weight INTEGER NOT NULL, result TEXT, error TEXT,"
    " webhook_url TEXT, metadata TEXT, batch_id TEXT, base_url TEXT,"
    " rank REAL NOT NULL, token TEXT, lease_until REAL NOT NULL DEFAULT 0)",
    "CREATE INDEX IF NOT EXISTS jobs_queue ON jobs (status, rank, created_at)",
    "CREATE INDEX IF NOT EXISTS jobs_owner ON jobs (owner, created_at)",
    "CREATE INDEX IF NOT EXISTS jobs_batch ON jobs (batch_id)",
    "CREATE TABLE IF NOT EXISTS job_batches ("
    " id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at REAL NOT NULL,"
    " expires_at REAL NOT NULL, job_ids TEXT NOT NULL, webhook_url TEXT, metadata TEXT,"
    " completed_at REAL)",
    # The fair-queueing state: each owner's last rank, and the virtual time (name 'now').
    "CREATE TABLE IF NOT EXISTS job_ranks (owner TEXT PRIMARY KEY, last_rank REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS job_clock (name TEXT PRIMARY KEY, value REAL NOT NULL)",
)

_COLUMNS = (
    "id, owner, plan, kind, request, status, created_at, expires_at, started_at,"
    " finished_at, attempts, weight, result, error, webhook_url, metadata, batch_id, base_url"
)


def _dump(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"))


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _job(row: Sequence[Any]) -> Job:
    return Job(
        id=row[0],
        owner=row[1],
        plan=row[2],
        kind=row[3],
        request=json.loads(row[4]),
        status=row[5],
        created_at=row[6],
        expires_at=row[7],
        started_at=row[8],
        finished_at=row[9],
        attempts=row[10],
        weight=row[11],
        result=_load(row[12]),
        error=_load(row[13]),
        webhook_url=row[14],
        metadata=_load(row[15]),
        batch_id=row[16],
        base_url=row[17],
    )


def _batch(row: Sequence[Any]) -> Batch:
    return Batch(
        id=row[0],
        owner=row[1],
        created_at=row[2],
        expires_at=row[3],
        job_ids=tuple(json.loads(row[4])),
        webhook_url=row[5],
        metadata=_load(row[6]),
        completed_at=row[7],
    )


class SqliteJobStore:
    """Jobs as rows; claims and leases as columns updated in write transactions.

    Args:
        path: database file; its directory must exist.
        clock: returns Unix seconds (the host's processes share the wall clock); injected
            by tests.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, clock: Callable[[], float] = time.time
    ) -> None:
        self._db = SqliteDatabase(
            path,
            schema=_SCHEMA,
            unavailable="the job store is unavailable",
            # WAL with NORMAL syncs at checkpoints, not per claim: a crash of the process
            # loses nothing; a power cut may lose the last claims, which then run again.
            pragmas=("PRAGMA synchronous = NORMAL",),
        )
        self._clock = clock

    def __repr__(self) -> str:
        return f"SqliteJobStore({self._db.path!r})"

    async def submit(
        self, jobs: Sequence[Job], *, cap: int | None = None, batch: Batch | None = None
    ) -> bool:
        """See :meth:`JobStore.submit`."""
        owner = check_submission(jobs)
        now = self._clock()

        def run(conn: sqlite3.Connection) -> bool:
            with immediate(conn):
                if cap is not None:
                    (active,) = conn.execute(
                        "SELECT COUNT(*) FROM jobs WHERE owner = ?"
                        " AND status IN ('queued', 'running') AND expires_at > ?",
                        (owner, now),
                    ).fetchone()
                    if active + len(jobs) > cap:
                        return False
                virtual = _virtual_time(conn)
                row = conn.execute(
                    "SELECT last_rank FROM job_ranks WHERE owner = ?", (owner,)
                ).fetchone()
                last = None if row is None else float(row[0])
                for job in jobs:
                    last = rank_after(virtual, last, job.weight)
                    conn.execute(
                        f"INSERT INTO jobs ({_COLUMNS}, rank) VALUES"
                        " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            job.id,
                            job.owner,
                            job.plan,
                            job.kind,
                            json.dumps(job.request, separators=(",", ":")),
                            job.status,
                            job.created_at,
                            job.expires_at,
                            job.started_at,
                            job.finished_at,
                            job.attempts,
                            job.weight,
                            _dump(job.result),
                            _dump(job.error),
                            job.webhook_url,
                            _dump(job.metadata),
                            job.batch_id,
                            job.base_url,
                            last,
                        ),
                    )
                conn.execute(
                    "INSERT INTO job_ranks (owner, last_rank) VALUES (?, ?)"
                    " ON CONFLICT (owner) DO UPDATE SET last_rank = excluded.last_rank",
                    (owner, last),
                )
                if batch is not None:
                    conn.execute(
                        "INSERT INTO job_batches (id, owner, created_at, expires_at, job_ids,"
                        " webhook_url, metadata, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            batch.id,
                            batch.owner,
                            batch.created_at,
                            batch.expires_at,
                            json.dumps(list(batch.job_ids)),
                            batch.webhook_url,
                            _dump(batch.metadata),
                            batch.completed_at,
                        ),
                    )
            return True

        return await self._db.run(run)

    async def get(self, job_id: str, *, owner: str) -> Job | None:
        """See :meth:`JobStore.get`."""
        now = self._clock()
        return await self._db.run(lambda conn: _get(conn, job_id, owner, now))

    async def list(self, owner: str, *, limit: int, before: str | None = None) -> list[Job]:
        """See :meth:`JobStore.list`."""
        now = self._clock()

        def run(conn: sqlite3.Connection) -> list[Job]:
            sql = f"SELECT {_COLUMNS} FROM jobs WHERE owner = ? AND expires_at > ?"
            params: list[Any] = [owner, now]
            if before is not None:
                cursor = _get(conn, before, owner, now)
                if cursor is None:
                    return []
                sql += " AND (created_at, id) < (?, ?)"
                params += [cursor.created_at, cursor.id]
            sql += " ORDER BY created_at DESC, id DESC LIMIT ?"
            params.append(max(limit, 1))
            return [_job(row) for row in conn.execute(sql, params)]

        return await self._db.run(run)

    async def claim(
        self, worker: str, lease_seconds: float, *, max_attempts: int = 3
    ) -> Claim | None:
        """See :meth:`JobStore.claim`."""
        now = self._clock()
        token = uuid.uuid4().hex

        def run(conn: sqlite3.Connection) -> Claim | None:
            with immediate(conn):
                _recover(conn, now, max_attempts)
                row = conn.execute(
                    "SELECT id, rank FROM jobs WHERE status = 'queued' AND expires_at > ?"
                    " ORDER BY rank, created_at, id LIMIT 1",
                    (now,),
                ).fetchone()
                if row is None:
                    return None
                job_id, rank = row
                conn.execute(
                    "INSERT INTO job_clock (name, value) VALUES ('now', ?) ON CONFLICT (name)"
                    " DO UPDATE SET value = MAX(value, excluded.value)",
                    (rank,),
                )
                conn.execute(
                    "UPDATE jobs SET status = 'running', started_at = ?, attempts = attempts + 1,"
                    " token = ?, lease_until = ? WHERE id = ?",
                    (now, token, now + lease_seconds, job_id),
                )
                found = conn.execute(
                    f"SELECT {_COLUMNS} FROM jobs WHERE id = ?", (job_id,)
                ).fetchone()
            return Claim(job=_job(found), token=token)

        return await self._db.run(run)

    async def heartbeat(self, claim: Claim, lease_seconds: float) -> bool:
        """See :meth:`JobStore.heartbeat`."""
        now = self._clock()
        changed = await self._db.run(
            lambda conn: (
                conn.execute(
                    "UPDATE jobs SET lease_until = ? WHERE id = ? AND token = ?"
                    " AND status = 'running' AND lease_until > ?",
                    (now + lease_seconds, claim.job.id, claim.token, now),
                ).rowcount
            )
        )
        return bool(changed)

    async def finish(
        self,
        claim: Claim,
        *,
        status: Literal["succeeded", "failed"],
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
    ) -> Job | None:
        """See :meth:`JobStore.finish`."""
        now = self._clock()

        def run(conn: sqlite3.Connection) -> Job | None:
            with immediate(conn):
                changed = conn.execute(
                    "UPDATE jobs SET status = ?, finished_at = ?, result = ?, error = ?,"
                    " token = NULL WHERE id = ? AND token = ? AND status = 'running'"
                    " AND lease_until > ?",
                    (status, now, _dump(result), _dump(error), claim.job.id, claim.token, now),
                ).rowcount
                if not changed:
                    return None
                row = conn.execute(
                    f"SELECT {_COLUMNS} FROM jobs WHERE id = ?", (claim.job.id,)
                ).fetchone()
            return _job(row)

        return await self._db.run(run)

    async def requeue(self, claim: Claim) -> bool:
        """See :meth:`JobStore.requeue`."""
        now = self._clock()
        changed = await self._db.run(
            lambda conn: (
                conn.execute(
                    "UPDATE jobs SET status = 'queued', token = NULL WHERE id = ? AND token = ?"
                    " AND status = 'running' AND lease_until > ?",
                    (claim.job.id, claim.token, now),
                ).rowcount
            )
        )
        return bool(changed)

    async def cancel(self, job_id: str, *, owner: str) -> Job | None:
        """See :meth:`JobStore.cancel`."""
        now = self._clock()

        def run(conn: sqlite3.Connection) -> Job | None:
            with immediate(conn):
                conn.execute(
                    "UPDATE jobs SET status = 'cancelled', finished_at = ?, token = NULL"
                    " WHERE id = ? AND owner = ? AND expires_at > ?"
                    " AND status IN ('queued', 'running')",
                    (now, job_id, owner, now),
                )
                return _get(conn, job_id, owner, now)

        return await self._db.run(run)

    async def get_batch(self, batch_id: str, *, owner: str) -> BatchView | None:
        """See :meth:`JobStore.get_batch`."""
        now = self._clock()
        return await self._db.run(lambda conn: _get_batch(conn, batch_id, owner, now))

    async def cancel_batch(self, batch_id: str, *, owner: str) -> BatchView | None:
        """See :meth:`JobStore.cancel_batch`."""
        now = self._clock()

        def run(conn: sqlite3.Connection) -> BatchView | None:
            with immediate(conn):
                if _get_batch(conn, batch_id, owner, now) is None:
                    return None
                conn.execute(
                    "UPDATE jobs SET status = 'cancelled', finished_at = ?, token = NULL"
                    " WHERE batch_id = ? AND owner = ? AND status IN ('queued', 'running')",
                    (now, batch_id, owner),
                )
                return _get_batch(conn, batch_id, owner, now)

        return await self._db.run(run)

    async def complete_batch(self, batch_id: str) -> Batch | None:
        """See :meth:`JobStore.complete_batch`."""
        now = self._clock()

        def run(conn: sqlite3.Connection) -> Batch | None:
            with immediate(conn):
                (unfinished,) = conn.execute(
                    "SELECT COUNT(*) FROM jobs WHERE batch_id = ?"
                    " AND status IN ('queued', 'running')",
                    (batch_id,),
                ).fetchone()
                if unfinished:
                    return None
                changed = conn.execute(
                    "UPDATE job_batches SET completed_at = ? WHERE id = ?"
                    " AND completed_at IS NULL AND expires_at > ?",
                    (now, batch_id, now),
                ).rowcount
                if not changed:
                    return None
                row = conn.execute(
                    "SELECT id, owner, created_at, expires_at, job_ids, webhook_url, metadata,"
                    " completed_at FROM job_batches WHERE id = ?",
                    (batch_id,),
                ).fetchone()
            return _batch(row)

        return await self._db.run(run)

    async def depth(self) -> dict[str, int]:
        """See :meth:`JobStore.depth`."""
        now = self._clock()
        return await self._db.run(
            lambda conn: dict(
                conn.execute(
                    "SELECT kind, COUNT(*) FROM jobs WHERE status = 'queued' AND expires_at > ?"
                    " GROUP BY kind",
                    (now,),
                ).fetchall()
            )
        )

    async def sweep(self) -> int:
        """See :meth:`JobStore.sweep`."""
        now = self._clock()

        def run(conn: sqlite3.Connection) -> int:
            with immediate(conn):
                deleted = conn.execute("DELETE FROM jobs WHERE expires_at <= ?", (now,)).rowcount
                conn.execute("DELETE FROM job_batches WHERE expires_at <= ?", (now,))
                # An owner with nothing left restarts from the virtual time, as a new one.
                conn.execute(
                    "DELETE FROM job_ranks WHERE owner NOT IN (SELECT DISTINCT owner FROM jobs)"
                )
            return int(deleted)

        return await self._db.run(run)

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._db.aclose()


def _virtual_time(conn: sqlite3.Connection) -> float:
    row = conn.execute("SELECT value FROM job_clock WHERE name = 'now'").fetchone()
    return 0.0 if row is None else float(row[0])


def _get(conn: sqlite3.Connection, job_id: str, owner: str, now: float) -> Job | None:
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM jobs WHERE id = ? AND owner = ? AND expires_at > ?",
        (job_id, owner, now),
    ).fetchone()
    return None if row is None else _job(row)


def _get_batch(conn: sqlite3.Connection, batch_id: str, owner: str, now: float) -> BatchView | None:
    row = conn.execute(
        "SELECT id, owner, created_at, expires_at, job_ids, webhook_url, metadata, completed_at"
        " FROM job_batches WHERE id = ? AND owner = ? AND expires_at > ?",
        (batch_id, owner, now),
    ).fetchone()
    if row is None:
        return None
    batch = _batch(row)
    found = {
        r[0]: _job(r)
        for r in conn.execute(f"SELECT {_COLUMNS} FROM jobs WHERE batch_id = ?", (batch_id,))
    }
    return BatchView(batch=batch, jobs=tuple(found[i] for i in batch.job_ids if i in found))


def _recover(conn: sqlite3.Connection, now: float, max_attempts: int) -> None:
    """Queue again (or give up) the running jobs whose worker stopped renewing."""
    conn.execute(
        "UPDATE jobs SET status = 'failed', finished_at = ?, error = ?, token = NULL"
        " WHERE status = 'running' AND lease_until <= ? AND attempts >= ?",
        (now, json.dumps(dict(ABANDONED)), now, max_attempts),
    )
    conn.execute(
        "UPDATE jobs SET status = 'queued', token = NULL"
        " WHERE status = 'running' AND lease_until <= ?",
        (now,),
    )
