"""``Job`` and ``Batch``: the blocking twins of :class:`AsyncJob` and :class:`AsyncBatch`,
run on the :class:`~renderkit.client.Client`'s helper-thread event loop."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from renderkit.client._jobs import AsyncBatch, AsyncJob, JobResult

__all__ = ["Batch", "Job"]

R = TypeVar("R")


class _Runner(Protocol):
    """Runs a coroutine function on the client's loop and returns its value."""

    def __call__(self, call: Callable[[], Awaitable[R]]) -> R: ...


class Job:
    """A job on the server, as last read; see :class:`~renderkit.client.AsyncJob`.

    Attributes:
        id: the job's id (``job_...``).
    """

    def __init__(self, job: AsyncJob, run: _Runner) -> None:
        self._job = job
        self._run = run
        self.id = job.id

    def __repr__(self) -> str:
        return f"Job({self.id!r}, status={self.status!r})"

    @property
    def status(self) -> str:
        """``queued``, ``running``, ``succeeded``, ``failed`` or ``cancelled``."""
        return self._job.status

    @property
    def kind(self) -> str:
        """The operation (``image``, ``pdf-gen``, ``screenshot``, ``audio``, ``parse``)."""
        return self._job.kind

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The metadata given at submit."""
        return self._job.metadata

    @property
    def view(self) -> dict[str, Any]:
        """The server's last answer for the job."""
        return self._job.view

    @property
    def finished(self) -> bool:
        """Whether the job succeeded, failed or was cancelled."""
        return self._job.finished

    def refresh(self) -> Job:
        """Read the job again; returns itself."""
        self._run(self._job.refresh)
        return self

    def wait(
        self, timeout: float | None = None, *, poll: float = 0.5, max_poll: float = 10.0
    ) -> Job:
        """Poll until the job finished; see :meth:`AsyncJob.wait`."""
        self._run(lambda: self._job.wait(timeout, poll=poll, max_poll=max_poll))
        return self

    def result(self, timeout: float | None = None, *, poll: float = 0.5) -> JobResult:
        """Wait, then the job's result; see :meth:`AsyncJob.result`."""
        return self._run(lambda: self._job.result(timeout, poll=poll))

    def cancel(self) -> Job:
        """Cancel the job if it has not finished; returns itself."""
        self._run(self._job.cancel)
        return self


class Batch:
    """A batch of jobs on the server, as last read; see :class:`AsyncBatch`.

    Attributes:
        id: the batch's id.
    """

    def __init__(self, batch: AsyncBatch, run: _Runner) -> None:
        self._batch = batch
        self._run = run
        self.id = batch.id

    def __repr__(self) -> str:
        return f"Batch({self.id!r}, status={self.status!r})"

    @property
    def status(self) -> str:
        """``in_progress``, or ``completed`` once every job finished."""
        return self._batch.status

    @property
    def finished(self) -> bool:
        """Whether every job finished."""
        return self._batch.finished

    @property
    def counts(self) -> dict[str, int]:
        """How many jobs are in each status."""
        return self._batch.counts

    @property
    def view(self) -> dict[str, Any]:
        """The server's last answer for the batch."""
        return self._batch.view

    @property
    def jobs(self) -> list[Job]:
        """The batch's jobs in submission order, as of the last read."""
        return [Job(job, self._run) for job in self._batch.jobs]

    def refresh(self) -> Batch:
        """Read the batch again; returns itself."""
        self._run(self._batch.refresh)
        return self

    def wait(
        self, timeout: float | None = None, *, poll: float = 0.5, max_poll: float = 10.0
    ) -> Batch:
        """Poll until every job finished; see :meth:`AsyncJob.wait`."""
        self._run(lambda: self._batch.wait(timeout, poll=poll, max_poll=max_poll))
        return self

    def cancel(self) -> Batch:
        """Cancel the jobs not finished yet; returns itself."""
        self._run(self._batch.cancel)
        return self
