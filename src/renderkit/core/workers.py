"""Bounded pools for CPU-heavy work: OCR, audio encoding, PDF reading and rasterising.

Such work must never run on the event loop (one OCR page would freeze every other request
for seconds), and it must not pile up without limit either: a hundred pages read at once on
two cores each take fifty times longer, and every caller times out. A :class:`WorkerPool`
runs at most ``max_workers`` jobs at once (one core each), queues at most ``max_queue`` more
in arrival order, and refuses the rest at once with :class:`~renderkit.WorkersBusyError`,
which a server answers with 503 and ``Retry-After``.

A pool belongs to whoever creates it: the library takes pools as arguments (each engine has
its own default), and a server builds one set and hands it to every call. Nothing here is
global. A job is either a blocking function run in a worker thread (:meth:`WorkerPool.run`)
or any awaited work holding a slot (:meth:`WorkerPool.slot`), e.g. a child process.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import threading
from collections.abc import AsyncIterator, Callable
from typing import TypeVar, TypeVarTuple

import anyio.to_thread

from renderkit.core.errors import ConfigurationError, WorkersBusyError

__all__ = ["WorkerPool", "usable_cpus"]

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

#: Jobs queued per worker when no queue length is given: a few seconds of waiting at most
#: for OCR pages and audio clips, past which the caller is better told to come back.
QUEUE_PER_WORKER = 4


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


class WorkerPool:
    """At most ``max_workers`` jobs at once, ``max_queue`` waiting; the rest refused.

    Args:
        name: what the pool runs (``ocr``, ``audio``, ``pdf``...), named by its errors and
            metrics.
        max_workers: jobs run at once; None means one per usable CPU.
        max_queue: jobs waiting for a worker, served first come first served; None means
            ``4 x max_workers``; 0 refuses every job that finds all workers busy.
        retry_after: the seconds :class:`~renderkit.WorkersBusyError` suggests waiting.

    Raises:
        ConfigurationError: ``max_workers`` is below 1 or ``max_queue`` below 0.
    """

    def __init__(
        self,
        *,
        name: str = "cpu",
        max_workers: int | None = None,
        max_queue: int | None = None,
        retry_after: float = 1.0,
    ) -> None:
        workers = usable_cpus() if max_workers is None else max_workers
        queue = QUEUE_PER_WORKER * workers if max_queue is None else max_queue
        if workers < 1 or queue < 0:
            msg = f"worker pool {name!r} needs at least 1 worker and a queue of at least 0"
            raise ConfigurationError(msg)
        self.name = name
        self.max_workers = workers
        self.max_queue = queue
        self.retry_after = retry_after
        self._busy = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    def __repr__(self) -> str:
        return f"WorkerPool(name={self.name!r}, max_workers={self.max_workers}, " + (
            f"max_queue={self.max_queue}, busy={self._busy}, queued={self.queued})"
        )

    @property
    def busy(self) -> int:
        """Jobs running now."""
        return self._busy

    @property
    def queued(self) -> int:
        """Jobs waiting for a worker now."""
        return sum(1 for waiter in self._waiters if not waiter.done())

    def try_acquire(self) -> bool:
        """Take a free worker without waiting, if one is free and nobody queues for it.

        For optional extra parallelism (a job that could use a second core); the caller
        gives the worker back with :meth:`release`.
        """
        if self._busy < self.max_workers and not self.queued:
            self._busy += 1
            return True
        return False

    def release(self) -> None:
        """Give back a worker taken by :meth:`try_acquire` (the first waiter gets it)."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the worker passes on: busy stays the same
                return
        self._busy -= 1

    async def acquire(self) -> None:
        """Wait for a worker (give it back with :meth:`release`).

        Raises:
            WorkersBusyError: every worker is busy and the queue is full.
        """
        if self.try_acquire():
            return
        if self.queued >= self.max_queue:
            msg = f"the server is busy ({self.name} workers); retry shortly"
            raise WorkersBusyError(msg, pool=self.name, retry_after=self.retry_after)
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # handed a worker just as the wait was cancelled
            raise

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one worker for the body (awaited work that is CPU-heavy, e.g. a process).

        Raises:
            WorkersBusyError: every worker is busy and the queue is full.
        """
        await self.acquire()
        try:
            yield
        finally:
            self.release()

    async def run(self, fn: Callable[[*Ts], T], *args: *Ts, abandon_on_cancel: bool = False) -> T:
        """Run ``fn(*args)`` in a worker thread once a worker is free.

        Args:
            fn: blocking, CPU-bound work.
            args: its arguments.
            abandon_on_cancel: on cancellation, return at once and let a started call
                finish in its thread (it keeps its worker until then, so the bound holds);
                a call that had not started yet is dropped. False waits for the call.

        Raises:
            WorkersBusyError: every worker is busy and the queue is full.
        """
        await self.acquire()
        if not abandon_on_cancel:
            try:
                return await anyio.to_thread.run_sync(fn, *args)
            finally:
                self.release()
        loop = asyncio.get_running_loop()
        lock = threading.Lock()
        state = ["queued"]  # -> "running" (the thread releases) or "dropped" (we do)

        def give_back() -> None:
            try:
                loop.call_soon_threadsafe(self.release)
            except RuntimeError:  # the loop has closed: nothing can be waiting on it
                self.release()

        def work() -> T:
            with lock:
                if state[0] == "dropped":
                    msg = "dropped before it started"
                    raise RuntimeError(msg)
                state[0] = "running"
            try:
                return fn(*args)
            finally:
                give_back()

        try:
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except BaseException:
            with lock:
                if state[0] == "queued":
                    state[0] = "dropped"
                    self.release()
            raise
