"""The in-process job workers: claim a job, run it through the metered pipeline, record it.

Each worker runs a job with :func:`renderkit_server.operations.execute` as the job's key
lineage and plan, so everything a synchronous call meets applies unchanged: the plan's
browser class and in-flight cap, the failed-work budget, the render cache and the monthly
quotas (the burst limit was counted when the job was submitted). The charge is committed
under the job's id (``charge_id``), so a job run twice, because its first worker died after
charging but before recording the result, is charged once.

Sharing the machine with synchronous calls: at most ``browser_share`` browser jobs run at
once on this replica (fewer than the pool's slots), so a queue of browser jobs never holds
every slot and a synchronous render always finds one free or is next.

A worker holds its job by a lease it renews every third of ``lease_seconds``. The renewal's
answer tells it whether the job was cancelled (or taken over after a stall): the work is then
cancelled at once, its reservation released, nothing charged. At shutdown a running job is
cancelled the same way and given back to the queue (:meth:`JobStore.requeue`): it runs
again, here after a restart or on another replica, and is charged only then.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

from renderkit import StorageUnavailableError
from renderkit.core.waits import cancel_and_wait, wait_set
from renderkit_server.errors import envelope
from renderkit_server.jobs.service import JobService
from renderkit_server.metrics import Metrics
from renderkit_server.operations import OPERATIONS, Production, execute
from renderkit_server.state.jobs import Claim, Job

__all__ = ["BROWSER_KINDS", "JobWorkers", "maintain_forever"]

logger = logging.getLogger("renderkit_server")

#: Seconds the workers get to put their jobs back at shutdown before it goes on.
_STOP_SECONDS = 10.0

#: The operations that hold a browser slot while they run.
# pdf-ops counts as browser work: its inputs may be pdf-gen requests rendered first.
BROWSER_KINDS = frozenset({"image", "pdf-gen", "screenshot", "read", "pdf-ops"})

# Errors meaning "not now" rather than "never": the machine or a store is busy. The job
# goes back to the queue (keeping its place) instead of failing.
_TRANSIENT_CODES = frozenset(
    {"OVERLOADED", "TOO_MANY_IN_FLIGHT", "QUOTA_UNAVAILABLE", "RENDERER_UNAVAILABLE"}
)
_INTERNAL_ERROR = {"error": "internal error", "code": "INTERNAL_ERROR", "status": 500}


class JobWorkers:
    """``count`` workers in this process, started and stopped with the app.

    Args:
        service: the jobs service (its store, its announcements).
        production: what :func:`execute` runs on.
        metrics: where job waits, runs and outcomes are counted.
        count: workers (jobs running at once here); 0 starts none.
        browser_share: browser jobs running at once here, at most.
        lease_seconds: how long a claim holds without renewal.
        poll_seconds: how often an idle worker looks at the queue when nobody rings (jobs
            submitted to other replicas).
        max_attempts: claims a job may have before it is given up (its worker kept dying).
    """

    def __init__(
        self,
        service: JobService,
        production: Production,
        *,
        metrics: Metrics,
        count: int,
        browser_share: int,
        lease_seconds: float,
        poll_seconds: float = 0.5,
        max_attempts: int = 3,
    ) -> None:
        self._service = service
        self._production = production
        self._metrics = metrics
        self._count = count
        self._browser = asyncio.Semaphore(max(browser_share, 1))
        self._lease = lease_seconds
        self._poll = poll_seconds
        self._max_attempts = max_attempts
        self._name = f"{socket.gethostname()}:{os.getpid()}"
        self._doorbell = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        #: The jobs running here, by id, and the ones whose work was voided (cancelled).
        self._running: dict[str, asyncio.Task[Any]] = {}
        self._voided: set[str] = set()
        service.set_wake(self.wake)
        service.cancel_running = self.cancel

    def start(self) -> None:
        """Start the workers (once)."""
        if not self._tasks:
            self._tasks = [
                asyncio.create_task(self._loop(f"{self._name}/{i}")) for i in range(self._count)
            ]

    def wake(self) -> None:
        """A job was submitted here: idle workers look at once."""
        self._doorbell.set()

    def cancel(self, job_id: str) -> None:
        """Stop the job's work if it runs here (the store already recorded the cancel)."""
        task = self._running.get(job_id)
        if task is not None:
            self._voided.add(job_id)
            task.cancel()

    async def aclose(self) -> None:
        """Stop every worker; running jobs go back to the queue uncharged."""
        stuck = await cancel_and_wait(*self._tasks, within=_STOP_SECONDS)
        for task in stuck:  # shutdown goes on; the job's lease runs out and it is queued again
            logger.warning("a job worker did not stop at shutdown: %r", task)
        self._tasks = []

    async def _loop(self, name: str) -> None:
        store = self._service.store
        while True:
            try:
                claim = await store.claim(name, self._lease, max_attempts=self._max_attempts)
            except StorageUnavailableError:
                logger.warning("the job queue is unavailable; retrying", exc_info=True)
                await asyncio.sleep(self._poll)
                continue
            if claim is None:
                await wait_set(self._doorbell, self._poll)
                self._doorbell.clear()
                continue
            try:
                await self._run(claim)
            except asyncio.CancelledError:
                raise
            except Exception:
                # The claim is left to expire: the job runs again elsewhere (charged once).
                logger.exception("job %s could not be recorded", claim.job.id)

    async def _run(self, claim: Claim) -> None:
        job = claim.job
        operation = OPERATIONS[job.kind]
        task = asyncio.current_task()
        assert task is not None
        self._running[job.id] = task
        beat = asyncio.create_task(self._heartbeat(claim, task))
        claimed = time.monotonic()
        waited = (job.started_at or job.created_at) - job.created_at
        status = "failed"
        result: dict[str, Any] | None = None
        error: dict[str, Any] | None = None
        try:
            async with self._slot(operation.name):
                execution = await execute(
                    operation,
                    dict(job.request),
                    production=self._production,
                    key_id=job.owner,
                    plan=job.plan,
                    base_url=job.base_url,
                    charge_id=job.id,
                    burst=False,
                )
            status, result = "succeeded", execution.body
        except asyncio.CancelledError:
            if job.id not in self._voided:  # the app is stopping: give the job back
                status = "requeued"
                await self._service.store.requeue(claim)
                raise
            task.uncancel()
            status = "cancelled"
            return
        except Exception as exc:
            described = envelope(exc)
            error = described[1] if described is not None else dict(_INTERNAL_ERROR)
            if described is None:
                logger.error("job %s failed unexpectedly", job.id, exc_info=exc)
            if error.get("code") in _TRANSIENT_CODES:
                status = "requeued"
                if await self._service.store.requeue(claim):
                    await asyncio.sleep(self._poll)  # let the machine drain first
                return
        finally:
            beat.cancel()
            self._running.pop(job.id, None)
            self._voided.discard(job.id)
            self._metrics.observe_job(
                job.kind, status, waited=waited, ran=time.monotonic() - claimed
            )
        # Outside the try: a failure to record is no failure of the job. The claim is then
        # left to expire and the job runs again (its charge is not repeated).
        finished: Job | None
        if result is not None:
            finished = await self._service.store.finish(claim, status="succeeded", result=result)
        else:
            finished = await self._service.store.finish(claim, status="failed", error=error)
        if finished is not None:
            await self._service.announce(finished)

    @contextlib.asynccontextmanager
    async def _slot(self, kind: str) -> AsyncIterator[None]:
        if kind not in BROWSER_KINDS:
            yield
            return
        async with self._browser:
            yield

    async def _heartbeat(self, claim: Claim, task: asyncio.Task[Any]) -> None:
        store = self._service.store
        while True:
            await asyncio.sleep(self._lease / 3)
            try:
                held = await store.heartbeat(claim, self._lease)
            except StorageUnavailableError:
                logger.warning("could not renew job %s; retrying", claim.job.id, exc_info=True)
                continue
            if not held:  # cancelled, or taken over after a stall: stop, record nothing
                self._voided.add(claim.job.id)
                task.cancel()
                return


async def maintain_forever(service: JobService, metrics: Metrics, *, every: float = 5.0) -> None:
    """Sweep expired jobs and sample the queue depth every ``every`` seconds."""
    sweeps = 0
    while True:
        try:
            metrics.sample_jobs(await service.store.depth(), tuple(OPERATIONS))
            if sweeps % 12 == 0:  # about once a minute at the default pace
                deleted = await service.store.sweep()
                if deleted:
                    logger.info("deleted %d expired jobs", deleted)
            sweeps += 1
        except StorageUnavailableError:
            logger.warning("job queue maintenance failed; retrying", exc_info=True)
        await asyncio.sleep(every)
