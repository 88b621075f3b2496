"""Batch jobs run as a renderkit server's jobs: submitted, polled, downloaded.

The server's twin of :func:`~renderkit.batch.as_completed`: the same :class:`JobOutcome` per
job, so ``renderkit batch --server`` writes files and reports exactly as a local run does.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Sequence

import anyio
import attrs

from renderkit.batch._jobs import Job
from renderkit.batch._run import JobOutcome
from renderkit.client import AsyncClient, AsyncJob
from renderkit.core.errors import RateLimitError, RenderkitError
from renderkit.core.retry import Sleep

__all__ = ["as_completed_on_server"]

#: The envelope code of a submit beyond the plan's jobs queued or running at once.
_TOO_MANY_JOBS = "TOO_MANY_JOBS"
#: How much longer each polling round waits than the previous one, up to ``max_poll``.
_POLL_GROWTH = 1.5


@attrs.define
class _Submitted:
    index: int
    job: Job
    remote: AsyncJob
    started: float


async def as_completed_on_server(
    jobs: Sequence[Job],
    client: AsyncClient,
    *,
    poll: float = 0.25,
    max_poll: float = 5.0,
    sleep: Sleep = anyio.sleep,
) -> AsyncIterator[JobOutcome]:
    """Submit every job to the server, and yield each outcome as its job finishes.

    Jobs are submitted as fast as the key's plan lets them be queued: a submit refused with
    429 ``TOO_MANY_JOBS`` waits until one of ours finished. A result's file is downloaded
    before it is yielded. Closing the iterator early (Ctrl-C) cancels, on the server, every
    job submitted and not finished, so nothing more is charged.

    Args:
        jobs: the validated jobs.
        client: the server's client.
        poll: the first wait between polling rounds; each next one is half as long again
            (up to ``max_poll``), and back to ``poll`` once a job finished.
        max_poll: the longest wait between two rounds.
        sleep: how the rounds wait (tests pass a recorder).
    """
    waiting: list[_Submitted] = []
    following = 0
    delay = poll
    # The submit under way, by its idempotency key: interrupted, it may have queued a job
    # whose id never arrived.
    submitting: tuple[Job, str] | None = None
    try:
        while following < len(jobs) or waiting:
            while following < len(jobs):
                job, started = jobs[following], time.perf_counter()
                submitting = (job, str(uuid.uuid4()))
                try:
                    remote = await client.submit(
                        job.kind, job.request, idempotency_key=submitting[1]
                    )
                except RenderkitError as exc:
                    submitting = None  # refused: nothing was queued
                    if isinstance(exc, RateLimitError) and exc.code == _TOO_MANY_JOBS and waiting:
                        break  # the plan's limit: submit more once one of ours finished
                    yield _failed(following, job, exc, started)
                    following += 1
                    continue
                submitting = None
                waiting.append(_Submitted(index=following, job=job, remote=remote, started=started))
                following += 1
            if not waiting:
                continue
            await sleep(delay)
            delay = min(max_poll, delay * _POLL_GROWTH)
            for submitted in list(waiting):
                await submitted.remote.refresh()
                if submitted.remote.finished:
                    waiting.remove(submitted)
                    delay = poll
                    yield await _outcome(submitted, client)
    finally:
        with contextlib.suppress(RenderkitError):
            if submitting is not None:
                # The same key again answers the job the interrupted submit queued (or
                # queues it now), so it is cancelled like the others.
                job, key = submitting
                waiting.append(
                    _Submitted(
                        index=-1,
                        job=job,
                        remote=await client.submit(job.kind, job.request, idempotency_key=key),
                        started=0.0,
                    )
                )
        for submitted in waiting:
            # Unreachable now: the job stays the server's, visible in its list.
            with contextlib.suppress(RenderkitError):
                await submitted.remote.cancel()


def _failed(index: int, job: Job, error: RenderkitError, started: float) -> JobOutcome:
    return JobOutcome(index=index, job=job, error=error, seconds=time.perf_counter() - started)


async def _outcome(submitted: _Submitted, client: AsyncClient) -> JobOutcome:
    index, job = submitted.index, submitted.job
    try:
        result = await client.download(await submitted.remote.result())
    except RenderkitError as exc:
        return _failed(index, job, exc, submitted.started)
    seconds = time.perf_counter() - submitted.started
    return JobOutcome(index=index, job=job, result=result, seconds=seconds)
