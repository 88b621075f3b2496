"""``Client``: the blocking twin of :class:`~renderkit.client.AsyncClient`.

It runs an :class:`AsyncClient` on an event loop in a helper thread (anyio's blocking
portal, as :mod:`renderkit.sync` does), so it works in scripts and where a loop already
runs (Jupyter), and shares every behaviour of the async client.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from types import TracebackType
from typing import Any, TypeVar

import anyio.from_thread
import httpx
from anyio.from_thread import BlockingPortal

from renderkit.client._async import DEFAULT_RETRY, AsyncClient
from renderkit.client._sync_jobs import Batch, Job
from renderkit.core.retry import RetryPolicy
from renderkit.image import ImageRequest, ImageResult
from renderkit.parsing import ParseRequest, ParseResult
from renderkit.pdf import PdfRequest, PdfResult
from renderkit.reading import ReadRequest, ReadResult
from renderkit.screenshot import ScreenshotRequest, ScreenshotResult
from renderkit.speech import AudioRequest, AudioResult

__all__ = ["Client"]

R = TypeVar("R")


class Client:
    """A renderkit server's API as blocking methods with the library's types.

    ``client.render_image(request)`` returns an :class:`~renderkit.ImageResult` whose
    ``content`` is downloaded on first access; see :class:`AsyncClient` for errors and
    retries. Use it in a ``with`` block, or call :meth:`close`.

    Args:
        base_url: the server, e.g. ``https://render.example.com``; default:
            ``RENDERKIT_BASE_URL``.
        key: the API key; default: ``RENDERKIT_API_KEY``.
        timeout: seconds per HTTP request.
        retry: how 429/5xx answers and network failures are retried.
        transport: an httpx async transport instead of the network (tests).
    """

    def __init__(
        self,
        base_url: str | None = None,
        key: str | None = None,
        *,
        timeout: float = 120.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        # Built first: a missing base URL or key raises before a helper thread starts.
        self._client = AsyncClient(base_url, key, timeout=timeout, retry=retry, transport=transport)
        self._stack = contextlib.ExitStack()
        self._portal: BlockingPortal = self._stack.enter_context(
            anyio.from_thread.start_blocking_portal()
        )
        self._stack.callback(self._portal.call, self._client.aclose)

    def __repr__(self) -> str:
        return repr(self._client).replace("AsyncClient", "Client", 1)

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections and stop the helper thread."""
        self._stack.close()

    def _run(self, call: Callable[[], Awaitable[R]]) -> R:
        result: R = self._portal.call(call)
        return result

    def render_image(
        self, request: ImageRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> ImageResult:
        """Render an image on the server; see :func:`renderkit.render_image`."""
        return self._run(
            lambda: self._client.render_image(request, idempotency_key=idempotency_key)
        )

    def render_pdf(
        self, request: PdfRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> PdfResult:
        """Render a PDF on the server; see :func:`renderkit.render_pdf`."""
        return self._run(lambda: self._client.render_pdf(request, idempotency_key=idempotency_key))

    def screenshot(
        self, request: ScreenshotRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> ScreenshotResult:
        """Capture a page on the server; see :func:`renderkit.screenshot`."""
        return self._run(lambda: self._client.screenshot(request, idempotency_key=idempotency_key))

    def read_page(
        self, request: ReadRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> ReadResult:
        """Read a page's main content on the server; see :func:`renderkit.read_page`."""
        return self._run(lambda: self._client.read_page(request, idempotency_key=idempotency_key))

    def synthesize(
        self, request: AudioRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> AudioResult:
        """Synthesise speech on the server; see :func:`renderkit.synthesize`."""
        return self._run(lambda: self._client.synthesize(request, idempotency_key=idempotency_key))

    def parse(
        self, request: ParseRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> ParseResult:
        """Parse a document on the server; see :func:`renderkit.parse`."""
        return self._run(lambda: self._client.parse(request, idempotency_key=idempotency_key))

    def submit(
        self,
        kind: str,
        request: object,
        *,
        webhook_url: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Job:
        """Queue one operation as a server job; see :meth:`AsyncClient.submit`."""
        job = self._run(
            lambda: self._client.submit(
                kind,
                request,
                webhook_url=webhook_url,
                metadata=metadata,
                idempotency_key=idempotency_key,
            )
        )
        return Job(job, self._run)

    def submit_batch(
        self,
        jobs: Iterable[tuple[str, object] | Mapping[str, Any]],
        *,
        webhook_url: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Batch:
        """Queue many operations as one batch; see :meth:`AsyncClient.submit_batch`."""
        items = list(jobs)
        batch = self._run(
            lambda: self._client.submit_batch(
                items, webhook_url=webhook_url, metadata=metadata, idempotency_key=idempotency_key
            )
        )
        return Batch(batch, self._run)

    def job(self, job_id: str) -> Job:
        """The job ``job_id`` as the server has it now."""
        return Job(self._run(lambda: self._client.job(job_id)), self._run)
