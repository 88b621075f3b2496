"""The jobs service: submit, read, list and cancel jobs and batches for one key lineage.

Every call names the caller's verified key; a job belongs to the key's lineage
(``ApiKey.key_id``, kept by regenerated keys), and a job of any other lineage, a bogus id
and an expired job all answer the same 404 through the same store read, so nobody learns
whether someone else's id exists.

Submitting costs one request of the key's burst limit (whatever the batch size: the queue,
not the caller, sets the pace of the work) and is refused with 429 ``TOO_MANY_JOBS`` when
the lineage would have more than its plan's ``jobs_active`` jobs queued or running.
Nothing is charged at submit: each job is charged when it succeeds (:mod:`.worker`).
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from renderkit import RenderkitError
from renderkit.core.netpolicy import UrlPolicy
from renderkit_server import errors
from renderkit_server.engines import Engines
from renderkit_server.errors import HttpProblem
from renderkit_server.jobs.notify import JobNotifier
from renderkit_server.jobs.submission import JobSubmission, parse_batch, parse_job
from renderkit_server.jobs.views import batch_event, job_event
from renderkit_server.keys import ApiKey
from renderkit_server.quotas import QuotaService
from renderkit_server.state.jobs import Batch, BatchView, Job, JobStore

__all__ = ["JOB_ID", "LIST_LIMIT", "JobService", "TooManyJobsError", "new_id"]

logger = logging.getLogger("renderkit_server")

#: What a job or batch id looks like: a prefix and 128 random bits in hex.
JOB_ID = re.compile(r"(job|batch)_[0-9a-f]{32}")

#: The largest page of ``GET /api/jobs``.
LIST_LIMIT = 100

#: Seconds a refused submitter is told to wait: jobs finish and free the cap.
_CAP_RETRY_AFTER = 30


class TooManyJobsError(RenderkitError):
    """The lineage has as many jobs queued or running as its plan allows."""

    def __init__(self, message: str, *, limit: int, retry_after: int) -> None:
        super().__init__(message)
        self.limit = limit
        self.retry_after = retry_after


errors.register(TooManyJobsError, 429, "TOO_MANY_JOBS")


def new_id(prefix: str) -> str:
    """An unguessable id: ``prefix_`` and 128 random bits."""
    return f"{prefix}_{secrets.token_hex(16)}"


def _not_found(what: str) -> HttpProblem:
    return HttpProblem(404, "NOT_FOUND", f"no such {what}")


class JobService:
    """Jobs and batches of the callers' lineages over a :class:`JobStore`.

    Args:
        store: the queue and the records.
        quotas: the plans (caps, weights) and the burst limit a submission counts against.
        engines: what a request's admission is checked against.
        notifier: announces finished jobs and completed batches.
        webhook_policy: the egress policy a ``webhook_url`` must pass at submit (the
            webhook dispatcher's).
        retention_seconds: how long jobs and batches stay readable.
        wake: called after each submission (the local workers look at once).
        clock: Unix seconds; the store's clock should agree.
    """

    def __init__(
        self,
        store: JobStore,
        *,
        quotas: QuotaService,
        engines: Engines,
        notifier: JobNotifier,
        webhook_policy: UrlPolicy,
        retention_seconds: int,
        wake: Callable[[], None] = lambda: None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.quotas = quotas
        self.notifier = notifier
        self._engines = engines
        self._webhook_policy = webhook_policy
        self._retention = retention_seconds
        self._wake = wake
        self._clock = clock
        #: Cancels a job running in this process at once (set by the local workers).
        self.cancel_running: Callable[[str], None] = lambda job_id: None

    def set_wake(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` after each submission (the local workers' doorbell)."""
        self._wake = wake

    async def submit(self, key: ApiKey, payload: Mapping[str, Any], base_url: str) -> Job:
        """Validate and queue one job.

        Raises:
            InvalidRequestError: the body or its request is invalid, or its ``webhook_url``
                is refused by the webhook policy (nothing queued).
            RateLimitedError: the key's burst limit is reached.
            TooManyJobsError: the lineage's cap of unfinished jobs is reached.
        """
        submission = await parse_job(payload, engines=self._engines, policy=self._webhook_policy)
        await self.quotas.reserve(key.key_id, key.plan, {})  # one request of the burst limit
        now = self._clock()
        job = self._job(key, submission, now, base_url, batch_id=None)
        await self._queue(key, [job], batch=None)
        return job

    async def submit_batch(
        self, key: ApiKey, payload: Mapping[str, Any], base_url: str
    ) -> BatchView:
        """Validate every item and queue them all, or none.

        Raises:
            InvalidRequestError: naming the first wrong fields (``jobs[3].request...``).
            RateLimitedError, TooManyJobsError: as :meth:`submit`.
        """
        limits = self.quotas.limits(key.plan)
        submission = await parse_batch(
            payload,
            engines=self._engines,
            policy=self._webhook_policy,
            max_jobs=limits.batch_size,
        )
        await self.quotas.reserve(key.key_id, key.plan, {})
        now = self._clock()
        batch_id = new_id("batch")
        jobs = [self._job(key, item, now, base_url, batch_id=batch_id) for item in submission.jobs]
        batch = Batch(
            id=batch_id,
            owner=key.key_id,
            created_at=now,
            expires_at=now + self._retention,
            job_ids=tuple(job.id for job in jobs),
            webhook_url=submission.webhook_url,
            metadata=submission.metadata,
        )
        await self._queue(key, jobs, batch=batch)
        return BatchView(batch=batch, jobs=tuple(jobs))

    async def get(self, key: ApiKey, job_id: str) -> Job:
        """The lineage's job.

        Raises:
            HttpProblem: 404 for an unknown, expired or foreign id alike.
        """
        job = await self.store.get(job_id, owner=key.key_id) if JOB_ID.fullmatch(job_id) else None
        if job is None:
            raise _not_found("job")
        return job

    async def list(self, key: ApiKey, *, limit: int, before: str | None) -> list[Job]:
        """The lineage's jobs, newest first, at most ``limit`` (capped at :data:`LIST_LIMIT`)."""
        if before is not None and not JOB_ID.fullmatch(before):
            return []
        return await self.store.list(
            key.key_id, limit=max(1, min(limit, LIST_LIMIT)), before=before
        )

    async def cancel(self, key: ApiKey, job_id: str) -> Job:
        """Cancel a queued or running job (a running one stops at once here, or at its
        worker's next heartbeat elsewhere); nothing is charged for it.

        Raises:
            HttpProblem: 404 as :meth:`get`.
        """
        before = await self.get(key, job_id)
        job = await self.store.cancel(job_id, owner=key.key_id)
        if job is None:
            raise _not_found("job")
        if before.status in ("queued", "running") and job.status == "cancelled":
            self.cancel_running(job.id)
            await self.announce(job)
        return job

    async def get_batch(self, key: ApiKey, batch_id: str) -> BatchView:
        """The lineage's batch and its jobs.

        Raises:
            HttpProblem: 404 as :meth:`get`.
        """
        found = None
        if JOB_ID.fullmatch(batch_id):
            found = await self.store.get_batch(batch_id, owner=key.key_id)
        if found is None:
            raise _not_found("batch")
        return found

    async def cancel_batch(self, key: ApiKey, batch_id: str) -> BatchView:
        """Cancel every job of the batch not finished yet.

        Raises:
            HttpProblem: 404 as :meth:`get`.
        """
        before = await self.get_batch(key, batch_id)
        found = await self.store.cancel_batch(batch_id, owner=key.key_id)
        if found is None:
            raise _not_found("batch")
        was_active = {job.id for job in before.jobs if not job.finished}
        for job in found.jobs:
            if job.id in was_active and job.status == "cancelled":
                self.cancel_running(job.id)
        await self._complete(found.batch.id)
        return found

    async def announce(self, job: Job) -> None:
        """Tell the notifier a job finished, and complete its batch if it was the last."""
        base_url = job.base_url or ""
        try:
            await self.notifier.job_finished(job_event(job, base_url, self._clock()))
        except Exception:  # the outcome is recorded; announcing is the notifier's concern
            logger.warning("the job notifier failed for job %s", job.id, exc_info=True)
        if job.batch_id is not None:
            await self._complete(job.batch_id)

    async def _complete(self, batch_id: str) -> None:
        batch = await self.store.complete_batch(batch_id)
        if batch is None:
            return
        found = await self.store.get_batch(batch_id, owner=batch.owner)
        if found is None:
            return
        base_url = next((job.base_url for job in found.jobs if job.base_url), "")
        try:
            await self.notifier.batch_completed(batch_event(found, base_url, self._clock()))
        except Exception:  # as in announce()
            logger.warning("the job notifier failed for batch %s", batch_id, exc_info=True)

    def _job(
        self,
        key: ApiKey,
        submission: JobSubmission,
        now: float,
        base_url: str,
        *,
        batch_id: str | None,
    ) -> Job:
        return Job(
            id=new_id("job"),
            owner=key.key_id,
            plan=key.plan,
            kind=submission.operation.name,
            request=submission.request,
            created_at=now,
            expires_at=now + self._retention,
            weight=self.quotas.limits(key.plan).browser_weight,
            webhook_url=submission.webhook_url,
            metadata=submission.metadata,
            batch_id=batch_id,
            base_url=base_url,
        )

    async def _queue(self, key: ApiKey, jobs: Sequence[Job], *, batch: Batch | None) -> None:
        cap = self.quotas.limits(key.plan).jobs_active
        if not await self.store.submit(jobs, cap=cap, batch=batch):
            assert cap is not None  # only a cap refuses
            msg = (
                f"the plan allows {cap} jobs queued or running at once; wait for some to "
                "finish or cancel some"
            )
            raise TooManyJobsError(msg, limit=cap, retry_after=_CAP_RETRY_AFTER)
        self._wake()
