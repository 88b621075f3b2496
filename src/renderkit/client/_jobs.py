"""Server jobs and batches as objects: read, wait for, cancel, and their typed results.

``AsyncClient.submit`` answers an :class:`AsyncJob` at once (the server's ``202``); its
:meth:`~AsyncJob.result` is the same result type the synchronous method returns, built from
the same body, and a failed job raises the exception the synchronous call would have raised.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeAlias

from renderkit.client._errors import error_from_envelope
from renderkit.client._results import (
    Loader,
    audio_result,
    image_result,
    parse_result,
    pdf_result,
    read_result,
    screenshot_result,
)
from renderkit.core.errors import JobCancelledError, JobTimeoutError
from renderkit.core.retry import Sleep
from renderkit.image import ImageResult
from renderkit.parsing import ParseResult
from renderkit.pdf import PdfResult
from renderkit.reading import READ_FORMATS, ReadResult
from renderkit.screenshot import ScreenshotResult
from renderkit.speech import AudioResult

__all__ = ["JOB_KINDS", "AsyncBatch", "AsyncJob", "JobResult", "build_result"]

JobResult: TypeAlias = (
    ImageResult | PdfResult | ScreenshotResult | ReadResult | AudioResult | ParseResult
)
"""What a finished job's :meth:`AsyncJob.result` returns: its kind's synchronous result."""

#: A job's kind -> the result its synchronous endpoint's body describes (``pdf`` and the
#: server's own spelling ``pdf-gen`` are one kind).
_RESULTS: dict[str, Callable[[dict[str, Any], Loader], JobResult]] = {
    "image": image_result,
    "pdf": pdf_result,
    "pdf-gen": pdf_result,
    # A screenshot job asked for markdown, html or text was answered as a read.
    "screenshot": lambda body, loader: (
        read_result(body) if body.get("format") in READ_FORMATS else screenshot_result(body, loader)
    ),
    "read": lambda body, loader: read_result(body),
    "audio": audio_result,
    "parse": lambda body, loader: parse_result(body),
}

#: The kinds :meth:`AsyncClient.submit` accepts.
JOB_KINDS = frozenset(_RESULTS)

#: Job statuses after which nothing changes.
_FINISHED = frozenset({"succeeded", "failed", "cancelled"})

#: How much longer each poll waits than the previous one, up to ``max_poll``.
_POLL_GROWTH = 1.5


class _Api(Protocol):
    """What a job needs of :class:`~renderkit.client.AsyncClient` (named here, not imported:
    the client imports this module)."""

    _sleep: Sleep

    async def _request(
        self, method: str, path: str, body: Any = None, idempotency_key: str | None = None
    ) -> tuple[dict[str, Any], float | None]: ...

    def _loader(self) -> Loader: ...


def build_result(kind: str, body: dict[str, Any], loader: Loader) -> JobResult:
    """The result type of ``kind`` built from its synchronous endpoint's ``body``."""
    return _RESULTS[kind](body, loader)


async def _poll_until(
    finished: Callable[[], bool],
    refresh: Callable[[], Awaitable[float | None]],
    sleep: Callable[[float], Awaitable[Any]],
    *,
    what: str,
    job_id: str,
    timeout: float | None,
    poll: float,
    max_poll: float,
) -> None:
    """Refresh until ``finished()``: ``poll`` seconds first, each wait longer, at least what
    the server's ``Retry-After`` asked, never past ``timeout``."""
    deadline = None if timeout is None else time.monotonic() + timeout
    delay = poll
    while not finished():
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                msg = f"{what} {job_id} did not finish within {timeout} s; it keeps running"
                raise JobTimeoutError(msg, job_id=job_id, timeout=float(timeout or 0))
            delay = min(delay, left)
        await sleep(delay)
        asked = await refresh()
        delay = min(max_poll, max(delay * _POLL_GROWTH, asked or 0.0))


class AsyncJob:
    """A job on the server, as last read.

    Attributes:
        id: the job's id (``job_...``).
        view: the server's last answer for it (``GET /api/jobs/{id}``).
    """

    def __init__(self, client: _Api, view: Mapping[str, Any]) -> None:
        self._client = client
        self.view: dict[str, Any] = dict(view)
        self.id: str = self.view["id"]

    def __repr__(self) -> str:
        return f"AsyncJob({self.id!r}, status={self.status!r})"

    @property
    def status(self) -> str:
        """``queued``, ``running``, ``succeeded``, ``failed`` or ``cancelled``."""
        return str(self.view["status"])

    @property
    def kind(self) -> str:
        """The operation: ``image``, ``pdf-gen``, ``screenshot``, ``read``, ``audio`` or
        ``parse``."""
        return str(self.view["kind"])

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The metadata given at submit, as given."""
        found: dict[str, Any] | None = self.view.get("metadata")
        return found

    @property
    def finished(self) -> bool:
        """Whether the job succeeded, failed or was cancelled."""
        return self.status in _FINISHED

    async def refresh(self) -> AsyncJob:
        """Read the job again; returns itself."""
        await self._read()
        return self

    async def wait(
        self, timeout: float | None = None, *, poll: float = 0.5, max_poll: float = 10.0
    ) -> AsyncJob:
        """Poll until the job finished; returns itself.

        Args:
            timeout: seconds to wait at most (None: as long as it takes).
            poll: the first wait between reads; each next one is half as long again, at
                least what the server's ``Retry-After`` asks, at most ``max_poll``.
            max_poll: the longest wait between two reads.

        Raises:
            JobTimeoutError: the job had not finished within ``timeout`` (it keeps running).
        """
        await _poll_until(
            lambda: self.finished,
            self._read,
            self._client._sleep,
            what="job",
            job_id=self.id,
            timeout=timeout,
            poll=poll,
            max_poll=max_poll,
        )
        return self

    async def result(self, timeout: float | None = None, *, poll: float = 0.5) -> JobResult:
        """Wait for the job, then its result: what the synchronous method returns.

        Raises:
            JobCancelledError: the job was cancelled.
            JobTimeoutError: it had not finished within ``timeout``.
            RenderkitError: the job failed: the exception the synchronous call would
                have raised (a 429 quota is a RateLimitError, a bad URL a BlockedUrlError).
        """
        await self.wait(timeout, poll=poll)
        return self._outcome()

    async def cancel(self) -> AsyncJob:
        """Cancel the job if it has not finished (nothing is charged); returns itself."""
        self.view, _ = await self._client._request("DELETE", f"/api/jobs/{self.id}")
        return self

    def _outcome(self) -> JobResult:
        if self.status == "succeeded":
            return build_result(self.kind, self.view["result"], self._client._loader())
        if self.status == "cancelled":
            msg = f"job {self.id} was cancelled"
            raise JobCancelledError(msg, job_id=self.id)
        error: dict[str, Any] = self.view.get("error") or {}
        raise error_from_envelope(error, int(error.get("status") or 500))

    async def _read(self) -> float | None:
        self.view, asked = await self._client._request("GET", f"/api/jobs/{self.id}")
        return asked


class AsyncBatch:
    """A batch of jobs on the server, as last read.

    Attributes:
        id: the batch's id.
        view: the server's last answer for it (``GET /api/batches/{id}``).
    """

    def __init__(self, client: _Api, view: Mapping[str, Any]) -> None:
        self._client = client
        self.view: dict[str, Any] = dict(view)
        self.id: str = self.view["id"]

    def __repr__(self) -> str:
        return f"AsyncBatch({self.id!r}, status={self.status!r})"

    @property
    def status(self) -> str:
        """``in_progress``, or ``completed`` once every job finished."""
        return str(self.view["status"])

    @property
    def finished(self) -> bool:
        """Whether every job of the batch finished."""
        return self.status == "completed"

    @property
    def counts(self) -> dict[str, int]:
        """How many jobs are in each status."""
        return dict(self.view["counts"])

    @property
    def jobs(self) -> list[AsyncJob]:
        """The batch's jobs in submission order, as of the last read."""
        return [AsyncJob(self._client, view) for view in self.view["jobs"]]

    async def refresh(self) -> AsyncBatch:
        """Read the batch again; returns itself."""
        await self._read()
        return self

    async def wait(
        self, timeout: float | None = None, *, poll: float = 0.5, max_poll: float = 10.0
    ) -> AsyncBatch:
        """Poll until every job finished; see :meth:`AsyncJob.wait`."""
        await _poll_until(
            lambda: self.finished,
            self._read,
            self._client._sleep,
            what="batch",
            job_id=self.id,
            timeout=timeout,
            poll=poll,
            max_poll=max_poll,
        )
        return self

    async def cancel(self) -> AsyncBatch:
        """Cancel the jobs not finished yet; returns itself."""
        self.view, _ = await self._client._request("DELETE", f"/api/batches/{self.id}")
        return self

    async def _read(self) -> float | None:
        self.view, asked = await self._client._request("GET", f"/api/batches/{self.id}")
        return asked
