"""The :class:`JobStore` protocol: the queue and the record of asynchronous jobs.

A job is one production call (image, pdf-gen, screenshot, audio, parse) accepted now and run
later by whichever worker claims it. The store is the whole queue: any replica can submit,
any worker (on any replica sharing the backend) can claim, and a job whose worker died is
claimed again once its lease runs out. Execution is therefore **at least once**; charging is
exactly once because the worker commits its quota ticket under the job's id (see
:meth:`renderkit_server.state.usage.base.UsageStore.commit`).

The lifecycle, which every backend enforces the same way::

    submit ─► queued ─claim─► running ─finish─► succeeded | failed
                 ▲              │  │
                 └──requeue─────┘  └─cancel─► cancelled      (queued ─cancel─► cancelled)
                 └──lease expired, claimed again (attempts + 1)

* **Tenancy.** Every read and every cancel names the ``owner`` (the key lineage): a job of
  another owner answers exactly like a job that does not exist (``None``), so a store never
  tells a caller whether someone else's id exists.
* **Fairness.** :meth:`JobStore.claim` serves owners round-robin, weighted: at submit each
  job gets a rank ``max(virtual_time, owner's last rank) + 1 / weight``, and claim takes the
  smallest rank (then the oldest), moving ``virtual_time`` up to it. One owner's thousand
  jobs therefore delay another owner's single job by about one job, not by the backlog,
  and a plan of weight 4 is served four times as often as one of weight 1 while both wait.
* **Leases.** A claim holds the job for ``lease_seconds``; the worker renews it with
  :meth:`JobStore.heartbeat` and learns from its answer whether the job was cancelled or
  taken over. A claim whose lease ran out is void: its :meth:`JobStore.finish` is refused,
  and the job is queued again for the next :meth:`JobStore.claim`, unless it was claimed
  ``max_attempts`` times already (then it fails with :data:`ABANDONED`, so a job that kills
  its worker every time cannot do so for ever).
* **Retention.** Jobs and batches carry ``expires_at`` (Unix seconds); once past, they read
  as missing and :meth:`JobStore.sweep` deletes them.

Times are Unix seconds from the store's clock (injected into the memory and SQLite
backends; a Redis backend uses the server's). Backend failures raise
:class:`renderkit.StorageUnavailableError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

import attrs

__all__ = [
    "ABANDONED",
    "ACTIVE",
    "JOB_STATUSES",
    "TERMINAL",
    "Batch",
    "BatchView",
    "Claim",
    "Job",
    "JobStatus",
    "JobStore",
    "rank_after",
]

JobStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]

#: Every status, in lifecycle order.
JOB_STATUSES: tuple[JobStatus, ...] = ("queued", "running", "succeeded", "failed", "cancelled")
#: The statuses a job never leaves.
TERMINAL: frozenset[str] = frozenset({"succeeded", "failed", "cancelled"})
#: The statuses that count against an owner's cap of unfinished jobs.
ACTIVE: frozenset[str] = frozenset({"queued", "running"})

#: The error of a job whose worker died ``max_attempts`` times while running it.
ABANDONED: Mapping[str, Any] = {
    "error": "the job stopped its worker every time it ran; it was given up",
    "code": "JOB_ABANDONED",
    "status": 500,
}


@attrs.frozen(kw_only=True)
class Job:
    """One asynchronous production call, as the store records it.

    Attributes:
        id: unguessable (at least 128 random bits), chosen by the submitter.
        owner: the key lineage the job belongs to; the only one who may read or cancel it.
        plan: the owner's plan when submitted (its quotas and class apply when it runs).
        kind: the operation's endpoint name (``image``, ``pdf-gen``, ``screenshot``,
            ``audio``, ``parse``).
        request: the operation's JSON body, validated at submit.
        status: where the job is in its lifecycle.
        created_at, started_at, finished_at: Unix seconds; ``started_at`` is the latest
            claim's, ``finished_at`` set once the job is terminal.
        expires_at: Unix seconds after which the job reads as missing.
        attempts: how many times a worker claimed it.
        weight: the plan's scheduling weight (:attr:`PlanLimits.browser_weight`).
        result: on success, the body the synchronous endpoint answers.
        error: on failure, the error envelope (``status`` holds the HTTP status the
            synchronous call would have had).
        webhook_url: where the job's finished event is delivered, if anywhere.
        metadata: the caller's own small JSON object, returned as given.
        batch_id: the batch the job belongs to, if any.
        base_url: the server's base URL at submit, for the URLs of the result's files.
    """

    id: str
    owner: str
    plan: str
    kind: str
    request: Mapping[str, Any]
    status: JobStatus = "queued"
    created_at: float
    expires_at: float
    started_at: float | None = None
    finished_at: float | None = None
    attempts: int = 0
    weight: int = attrs.field(default=1, validator=attrs.validators.ge(1))
    result: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    webhook_url: str | None = None
    metadata: Mapping[str, Any] | None = None
    batch_id: str | None = None
    base_url: str | None = None

    @property
    def finished(self) -> bool:
        """Whether the job reached a terminal status."""
        return self.status in TERMINAL


@attrs.frozen(kw_only=True)
class Claim:
    """A worker's hold on a running job: what :meth:`JobStore.claim` hands out.

    Attributes:
        job: the job as claimed (``status`` running, ``attempts`` counting this claim).
        token: proves the hold; a later claim of the same job gets another one.
    """

    job: Job
    token: str


@attrs.frozen(kw_only=True)
class Batch:
    """Jobs submitted together, reported together.

    Attributes:
        id: unguessable, like a job's.
        owner: the key lineage, as for its jobs.
        created_at, expires_at: Unix seconds, as for its jobs.
        job_ids: its jobs, in submission order.
        webhook_url: where the one batch event goes once every job finished.
        metadata: the caller's own small JSON object.
        completed_at: when the last job finished (set once, by :meth:`JobStore.complete_batch`).
    """

    id: str
    owner: str
    created_at: float
    expires_at: float
    job_ids: tuple[str, ...]
    webhook_url: str | None = None
    metadata: Mapping[str, Any] | None = None
    completed_at: float | None = None


@attrs.frozen(kw_only=True)
class BatchView:
    """A batch and its jobs in submission order."""

    batch: Batch
    jobs: tuple[Job, ...]


def rank_after(virtual_time: float, owner_last: float | None, weight: int) -> float:
    """The fair-queueing rank of an owner's next job (see the module docstring)."""
    start = virtual_time if owner_last is None else max(virtual_time, owner_last)
    return start + 1.0 / weight


@runtime_checkable
class JobStore(Protocol):
    """The job queue and its records, shared by every replica using the backend.

    Safe to call from concurrent tasks; a shared backend (SQLite file, Redis) stays exact
    across processes: two workers never hold valid claims on one job at once.
    """

    async def submit(
        self, jobs: Sequence[Job], *, cap: int | None = None, batch: Batch | None = None
    ) -> bool:
        """Queue ``jobs`` (all of one owner), and record ``batch`` if given, all or nothing.

        Args:
            jobs: new jobs with status ``queued``; each id must be new.
            cap: the most queued plus running jobs the owner may have once these are in;
                ``None`` for no cap. Checked and applied as one atomic step.
            batch: the batch the jobs form (their ``batch_id`` names it).

        Returns:
            True when queued; False when the cap refused them (nothing is stored).

        Raises:
            ValueError: no jobs, or jobs of several owners.
        """
        ...

    async def get(self, job_id: str, *, owner: str) -> Job | None:
        """The job, or ``None`` when it does not exist, expired or belongs to another owner."""
        ...

    async def list(self, owner: str, *, limit: int, before: str | None = None) -> list[Job]:
        """The owner's live jobs, newest first, at most ``limit``.

        Args:
            owner: the key lineage.
            limit: the page size (at least 1).
            before: a job id of the previous page; only jobs created before it are listed
                (an unknown id lists nothing).
        """
        ...

    async def claim(
        self, worker: str, lease_seconds: float, *, max_attempts: int = 3
    ) -> Claim | None:
        """Take the next job to run, fair across owners, or ``None`` when none waits.

        Jobs whose claim expired are queued again first (or failed with
        :data:`ABANDONED` after ``max_attempts`` claims).

        Args:
            worker: names the claimant (logs and debugging only).
            lease_seconds: how long the claim holds without :meth:`heartbeat`.
            max_attempts: the claims a job may have before it is given up.
        """
        ...

    async def heartbeat(self, claim: Claim, lease_seconds: float) -> bool:
        """Extend a claim to ``lease_seconds`` from now.

        Returns:
            False when the claim is void (the job was cancelled, its lease ran out, or it
            was claimed again): the worker must stop and record nothing.
        """
        ...

    async def finish(
        self,
        claim: Claim,
        *,
        status: Literal["succeeded", "failed"],
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
    ) -> Job | None:
        """Record the outcome of a claimed job.

        Returns:
            The finished job, or ``None`` when the claim was void (nothing recorded).
        """
        ...

    async def requeue(self, claim: Claim) -> bool:
        """Give a claimed job back to the queue unrun (its worker is shutting down); keeps
        its rank, so it is next. Returns False when the claim was void."""
        ...

    async def cancel(self, job_id: str, *, owner: str) -> Job | None:
        """Cancel a queued or running job of ``owner``; a finished job stays as it is.

        A running job's claim becomes void, which its worker learns at its next
        :meth:`heartbeat`.

        Returns:
            The job after the call, or ``None`` as :meth:`get` would.
        """
        ...

    async def get_batch(self, batch_id: str, *, owner: str) -> BatchView | None:
        """The batch and its jobs, or ``None`` as :meth:`get` would."""
        ...

    async def cancel_batch(self, batch_id: str, *, owner: str) -> BatchView | None:
        """Cancel every queued or running job of the batch; ``None`` as :meth:`get` would."""
        ...

    async def complete_batch(self, batch_id: str) -> Batch | None:
        """Mark the batch completed if every job of it is finished and it was not yet.

        Returns:
            The completed batch to the one caller that completed it (across every replica);
            ``None`` to every other call, and while a job is unfinished.
        """
        ...

    async def depth(self) -> dict[str, int]:
        """Queued jobs by kind (live ones only); kinds without any are left out."""
        ...

    async def sweep(self) -> int:
        """Delete jobs and batches whose ``expires_at`` passed; returns the jobs deleted."""
        ...

    async def aclose(self) -> None:
        """Release connections; calling it again is a no-op."""
        ...
