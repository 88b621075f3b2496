"""Worker pools run CPU-heavy jobs off the event loop, a bounded number at once, and refuse
what their queue cannot hold."""

from __future__ import annotations

import threading
import time

import anyio
import anyio.to_thread
import pytest

from renderkit import ConfigurationError, WorkerPool, WorkersBusyError
from renderkit.core.pdfium import run_pdfium

pytestmark = pytest.mark.anyio


def blocker() -> tuple[threading.Event, threading.Event, object]:
    """A job that signals when it starts and runs until released (bounded: 5 s)."""
    started, release = threading.Event(), threading.Event()

    def job() -> str:
        started.set()
        release.wait(timeout=5)
        return "done"

    return started, release, job


async def test_a_job_beyond_the_workers_and_the_queue_is_refused_at_once() -> None:
    pool = WorkerPool(name="ocr", max_workers=1, max_queue=1, retry_after=2.0)
    started, release, job = blocker()
    results: list[str] = []

    async def run() -> None:
        results.append(await pool.run(job))  # type: ignore[arg-type]

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run)
        await anyio.to_thread.run_sync(started.wait, 5)
        tasks.start_soon(run)
        await anyio.wait_all_tasks_blocked()
        assert (pool.busy, pool.queued) == (1, 1)
        with pytest.raises(WorkersBusyError) as refused:
            await pool.run(job)  # type: ignore[arg-type]
        release.set()
    assert refused.value.pool == "ocr"
    assert refused.value.retry_after == 2.0
    assert results == ["done", "done"]
    assert (pool.busy, pool.queued) == (0, 0)


async def test_no_more_jobs_run_at_once_than_the_pool_has_workers() -> None:
    pool = WorkerPool(max_workers=2, max_queue=10)
    running, peak = 0, 0
    lock = threading.Lock()

    def job() -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.05)
        with lock:
            running -= 1

    async with anyio.create_task_group() as tasks:
        for _ in range(8):
            tasks.start_soon(pool.run, job)
    assert peak == 2


async def test_the_event_loop_keeps_ticking_while_every_worker_is_busy() -> None:
    pool = WorkerPool(max_workers=2, max_queue=4)
    gaps: list[float] = []

    def heavy() -> int:
        # Busy for ~0.8 s of wall time without sleeping (sha256 releases the GIL).
        import hashlib

        data = b"x" * 4_000_000
        deadline = time.monotonic() + 0.8
        rounds = 0
        while time.monotonic() < deadline:
            hashlib.sha256(data).digest()
            rounds += 1
        return rounds

    async def ping(done: anyio.Event) -> None:
        last = time.monotonic()
        while not done.is_set():
            await anyio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    done = anyio.Event()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(ping, done)
        async with anyio.create_task_group() as jobs:
            for _ in range(4):
                jobs.start_soon(pool.run, heavy)
        done.set()
    assert len(gaps) > 20
    # Generous (a shared machine): on the loop, one job alone would stall it for 0.8 s.
    assert max(gaps) < 0.5


async def test_an_abandoned_job_keeps_its_worker_until_its_thread_ends() -> None:
    pool = WorkerPool(max_workers=1, max_queue=0)
    started, release, job = blocker()
    with anyio.move_on_after(5):
        async with anyio.create_task_group() as tasks:

            async def run() -> None:
                await pool.run(job, abandon_on_cancel=True)  # type: ignore[arg-type]

            tasks.start_soon(run)
            await anyio.to_thread.run_sync(started.wait, 5)
            tasks.cancel_scope.cancel()
    # The caller has gone, but the thread still runs: the worker is not free yet.
    assert pool.busy == 1
    with pytest.raises(WorkersBusyError):
        await pool.run(job)  # type: ignore[arg-type]
    pool.max_queue = 1
    release.set()
    with anyio.fail_after(5):  # queued until the abandoned thread gives its worker back
        assert await pool.run(lambda: 7) == 7
    assert pool.busy == 0


async def test_a_cancelled_wait_in_the_queue_gives_its_place_up() -> None:
    pool = WorkerPool(max_workers=1, max_queue=1)
    started, release, job = blocker()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pool.run, job)
        await anyio.to_thread.run_sync(started.wait, 5)
        with anyio.move_on_after(0.05):
            await pool.run(job)  # type: ignore[arg-type]
        assert pool.queued == 0
        release.set()
    assert (pool.busy, pool.queued) == (0, 0)


async def test_pdfium_work_with_a_pool_is_refused_when_its_queue_is_full() -> None:
    pool = WorkerPool(name="pdf", max_workers=1, max_queue=0)
    started, release, job = blocker()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: run_pdfium(job, workers=pool))  # type: ignore[arg-type]
        await anyio.to_thread.run_sync(started.wait, 5)
        with pytest.raises(WorkersBusyError):
            await run_pdfium(lambda: None, workers=pool)
        release.set()


def test_a_pool_needs_a_worker_and_a_queue_of_at_least_zero() -> None:
    with pytest.raises(ConfigurationError):
        WorkerPool(max_workers=0)
    with pytest.raises(ConfigurationError):
        WorkerPool(max_queue=-1)
    assert WorkerPool(max_workers=3).max_queue == 12
