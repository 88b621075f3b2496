"""A :class:`~renderkit_server.state.jobs.base.JobStore` in this process's memory: the test
fake, and enough for one process that may lose its queue on restart."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs

from renderkit_server.state.jobs.base import (
    ABANDONED,
    ACTIVE,
    TERMINAL,
    Batch,
    BatchView,
    Claim,
    Job,
    rank_after,
)

__all__ = ["MemoryJobStore", "check_submission"]


def check_submission(jobs: Sequence[Job]) -> str:
    """The one owner of ``jobs``.

    Raises:
        ValueError: no jobs, or several owners.
    """
    owners = {job.owner for job in jobs}
    if len(owners) != 1:
        msg = "a submission holds the jobs of exactly one owner"
        raise ValueError(msg)
    return owners.pop()


@attrs.define
class _Entry:
    job: Job
    rank: float
    token: str | None = None
    lease_until: float = 0.0


class MemoryJobStore:
    """Jobs in dictionaries; one process (one event loop) only.

    Args:
        clock: returns Unix seconds; injected by tests to move time.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._jobs: dict[str, _Entry] = {}
        self._batches: dict[str, Batch] = {}
        self._owner_rank: dict[str, float] = {}
        self._virtual_time = 0.0

    def __repr__(self) -> str:
        return f"MemoryJobStore(jobs={len(self._jobs)})"

    async def submit(
        self, jobs: Sequence[Job], *, cap: int | None = None, batch: Batch | None = None
    ) -> bool:
        """See :meth:`JobStore.submit`."""
        owner = check_submission(jobs)
        if cap is not None:
            active = sum(
                1
                for e in self._jobs.values()
                if e.job.owner == owner and e.job.status in ACTIVE and self._live(e.job)
            )
            if active + len(jobs) > cap:
                return False
        for job in jobs:
            rank = rank_after(self._virtual_time, self._owner_rank.get(owner), job.weight)
            self._owner_rank[owner] = rank
            self._jobs[job.id] = _Entry(job=job, rank=rank)
        if batch is not None:
            self._batches[batch.id] = batch
        return True

    async def get(self, job_id: str, *, owner: str) -> Job | None:
        """See :meth:`JobStore.get`."""
        entry = self._entry(job_id, owner)
        return None if entry is None else entry.job

    async def list(self, owner: str, *, limit: int, before: str | None = None) -> list[Job]:
        """See :meth:`JobStore.list`."""
        mine = sorted(
            (e.job for e in self._jobs.values() if e.job.owner == owner and self._live(e.job)),
            key=lambda job: (job.created_at, job.id),
            reverse=True,
        )
        if before is not None:
            cursor = self._entry(before, owner)
            if cursor is None:
                return []
            after = (cursor.job.created_at, cursor.job.id)
            mine = [job for job in mine if (job.created_at, job.id) < after]
        return mine[: max(limit, 1)]

    async def claim(
        self, worker: str, lease_seconds: float, *, max_attempts: int = 3
    ) -> Claim | None:
        """See :meth:`JobStore.claim`."""
        now = self._clock()
        self._recover(now, max_attempts)
        waiting = [e for e in self._jobs.values() if e.job.status == "queued" and self._live(e.job)]
        if not waiting:
            return None
        entry = min(waiting, key=lambda e: (e.rank, e.job.created_at, e.job.id))
        self._virtual_time = max(self._virtual_time, entry.rank)
        entry.token = uuid.uuid4().hex
        entry.lease_until = now + lease_seconds
        entry.job = attrs.evolve(
            entry.job, status="running", started_at=now, attempts=entry.job.attempts + 1
        )
        return Claim(job=entry.job, token=entry.token)

    async def heartbeat(self, claim: Claim, lease_seconds: float) -> bool:
        """See :meth:`JobStore.heartbeat`."""
        now = self._clock()
        entry = self._held(claim, now)
        if entry is None:
            return False
        entry.lease_until = now + lease_seconds
        return True

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
        entry = self._held(claim, now)
        if entry is None:
            return None
        entry.token = None
        entry.job = attrs.evolve(
            entry.job, status=status, finished_at=now, result=result, error=error
        )
        return entry.job

    async def requeue(self, claim: Claim) -> bool:
        """See :meth:`JobStore.requeue`."""
        entry = self._held(claim, self._clock())
        if entry is None:
            return False
        entry.token = None
        entry.job = attrs.evolve(entry.job, status="queued")
        return True

    async def cancel(self, job_id: str, *, owner: str) -> Job | None:
        """See :meth:`JobStore.cancel`."""
        entry = self._entry(job_id, owner)
        if entry is None:
            return None
        self._cancel(entry, self._clock())
        return entry.job

    async def get_batch(self, batch_id: str, *, owner: str) -> BatchView | None:
        """See :meth:`JobStore.get_batch`."""
        batch = self._batches.get(batch_id)
        if batch is None or batch.owner != owner or not self._live(batch):
            return None
        jobs = tuple(self._jobs[i].job for i in batch.job_ids if i in self._jobs)
        return BatchView(batch=batch, jobs=jobs)

    async def cancel_batch(self, batch_id: str, *, owner: str) -> BatchView | None:
        """See :meth:`JobStore.cancel_batch`."""
        view = await self.get_batch(batch_id, owner=owner)
        if view is None:
            return None
        now = self._clock()
        for job in view.jobs:
            self._cancel(self._jobs[job.id], now)
        return await self.get_batch(batch_id, owner=owner)

    async def complete_batch(self, batch_id: str) -> Batch | None:
        """See :meth:`JobStore.complete_batch`."""
        batch = self._batches.get(batch_id)
        if batch is None or batch.completed_at is not None or not self._live(batch):
            return None
        if any(i in self._jobs and self._jobs[i].job.status not in TERMINAL for i in batch.job_ids):
            return None
        batch = attrs.evolve(batch, completed_at=self._clock())
        self._batches[batch_id] = batch
        return batch

    async def depth(self) -> dict[str, int]:
        """See :meth:`JobStore.depth`."""
        counts: dict[str, int] = {}
        for entry in self._jobs.values():
            if entry.job.status == "queued" and self._live(entry.job):
                counts[entry.job.kind] = counts.get(entry.job.kind, 0) + 1
        return counts

    async def sweep(self) -> int:
        """See :meth:`JobStore.sweep`."""
        expired = [i for i, e in self._jobs.items() if not self._live(e.job)]
        for job_id in expired:
            del self._jobs[job_id]
        for batch_id in [i for i, b in self._batches.items() if not self._live(b)]:
            del self._batches[batch_id]
        return len(expired)

    async def aclose(self) -> None:
        """Nothing to release."""

    def _live(self, record: Job | Batch) -> bool:
        return record.expires_at > self._clock()

    def _entry(self, job_id: str, owner: str) -> _Entry | None:
        entry = self._jobs.get(job_id)
        if entry is None or entry.job.owner != owner or not self._live(entry.job):
            return None
        return entry

    def _held(self, claim: Claim, now: float) -> _Entry | None:
        entry = self._jobs.get(claim.job.id)
        if (
            entry is None
            or entry.job.status != "running"
            or entry.token != claim.token
            or entry.lease_until <= now
        ):
            return None
        return entry

    def _cancel(self, entry: _Entry, now: float) -> None:
        if entry.job.status in ACTIVE:
            entry.token = None
            entry.job = attrs.evolve(entry.job, status="cancelled", finished_at=now)

    def _recover(self, now: float, max_attempts: int) -> None:
        """Queue again (or give up) the running jobs whose worker stopped renewing."""
        for entry in self._jobs.values():
            if entry.job.status != "running" or entry.lease_until > now:
                continue
            entry.token = None
            if entry.job.attempts >= max_attempts:
                entry.job = attrs.evolve(
                    entry.job, status="failed", finished_at=now, error=dict(ABANDONED)
                )
            else:
                entry.job = attrs.evolve(entry.job, status="queued")
