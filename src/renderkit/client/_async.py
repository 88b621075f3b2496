"""``AsyncClient``: the five operations of a renderkit server, as the library's functions."""

from __future__ import annotations

import os
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from types import TracebackType
from typing import Any, TypeVar

import anyio
import attrs
import httpx

from renderkit.client._download import download_blocking, downloaded
from renderkit.client._errors import error_from_response
from renderkit.client._jobs import JOB_KINDS, AsyncBatch, AsyncJob
from renderkit.client._results import (
    LazyContent,
    Loader,
    audio_result,
    image_result,
    parse_result,
    pdf_result,
    read_result,
    screenshot_result,
)
from renderkit.core.converter import unstructure
from renderkit.core.errors import (
    ConfigurationError,
    InvalidRequestError,
    ServerUnreachableError,
)
from renderkit.core.retry import RetryPolicy, Sleep, parse_retry_after, send_with_retries
from renderkit.image import ImageRequest, ImageResult
from renderkit.parsing import ParseRequest, ParseResult
from renderkit.pdf import PdfRequest, PdfResult
from renderkit.reading import READ_FORMATS, ReadRequest, ReadResult
from renderkit.screenshot import ScreenshotRequest, ScreenshotResult
from renderkit.speech import AudioRequest, AudioResult

__all__ = ["DEFAULT_RETRY", "AsyncClient"]

#: Retries of 429 and 5xx answers and network failures: up to 3, from 0.5 s doubling, at
#: least what Retry-After asks, at most 30 s each, with jitter so clients spread out.
DEFAULT_RETRY = RetryPolicy(max_retries=3, backoff=0.5, max_delay=30.0, jitter=0.25)

T = TypeVar("T")

#: Read by the constructor, and only there, for an argument not given.
BASE_URL_VARIABLE = "RENDERKIT_BASE_URL"
API_KEY_VARIABLE = "RENDERKIT_API_KEY"

#: The header carrying a call's idempotency key (IETF draft-ietf-httpapi-idempotency-key-header).
IDEMPOTENCY_HEADER = "Idempotency-Key"

# What a connection failure names as its provider (as the server's own errors do).
_REMOTE = "renderkit-server"


def _given_or_environment(value: str | None, variable: str, what: str) -> str:
    """``value``, else the environment variable; a client without either cannot work."""
    if value is None:
        value = os.environ.get(variable) or None
    if value is None:
        msg = f"no {what}: pass {what.replace(' ', '_')}= or set {variable}"
        raise ConfigurationError(msg)
    return value


async def _reach(url: str, send: Callable[[], Awaitable[httpx.Response]]) -> httpx.Response:
    """``send()``; a network failure (after the retries) as the library's exception."""
    try:
        return await send()
    except httpx.TransportError as exc:
        msg = f"cannot reach {url}: {exc or type(exc).__name__}"
        raise ServerUnreachableError(msg, provider=_REMOTE) from exc


class _NotWorthWaiting(Exception):
    """The server asked to wait longer than the policy's ``max_delay``: stop retrying."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


class _FirstStillRunning(Exception):
    """The first attempt with this call's idempotency key is still running on the server."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _in_progress(response: httpx.Response) -> bool:
    if response.status_code != 409:
        return False
    try:
        code = response.json().get("code")
    except ValueError:
        return False
    return bool(code == "IDEMPOTENCY_KEY_IN_PROGRESS")


def _body(request: object) -> Any:
    """A request model as its JSON body; a mapping is sent as given (the server validates)."""
    if isinstance(request, Mapping):
        return dict(request)
    if attrs.has(type(request)):
        return unstructure(request)
    msg = f"request must be a request model or a mapping, not {type(request).__name__}"
    raise TypeError(msg)


class AsyncClient:
    """A renderkit server's API with the library's signatures and result types.

    ``await client.render_image(request)`` takes what :func:`renderkit.render_image` takes
    (the model or a mapping) and returns an :class:`~renderkit.ImageResult`, so code moves
    between local rendering and a server by swapping the function it calls. The file of a
    result is downloaded when ``content`` is first read (blocking; :meth:`download` fetches
    it without blocking the loop). Errors raise the library's exceptions (a 429 over quota:
    :class:`~renderkit.core.errors.RateLimitError` with ``retry_after``); 429 and 5xx
    answers are retried first, as ``retry`` says, honouring ``Retry-After`` (an answer asking
    for longer than ``retry.max_delay``, such as a monthly quota, is raised at once).

    Every call sends an ``Idempotency-Key`` (a new UUID, or the caller's
    ``idempotency_key=``) and sends the same one on its retries, so a retry after a timeout
    or a dropped connection gets the first answer instead of a second render and charge.

    A server that cannot be reached raises
    :class:`~renderkit.core.errors.ServerUnreachableError` (a ``ConnectionError``); a refused
    key, :class:`~renderkit.core.errors.AuthenticationError`.

    Args:
        base_url: the server, e.g. ``https://render.example.com``; default: the
            ``RENDERKIT_BASE_URL`` environment variable.
        key: the API key (sent as ``Authorization: Bearer``; never in errors or reprs);
            default: the ``RENDERKIT_API_KEY`` environment variable.
        timeout: seconds per HTTP request; renders can take a while.
        retry: how 429/5xx answers and network failures are retried.
        transport: an httpx transport instead of the network (tests).
        sleep: how retries wait (tests pass a recorder).

    Raises:
        ConfigurationError: neither the argument nor its environment variable is set.
    """

    def __init__(
        self,
        base_url: str | None = None,
        key: str | None = None,
        *,
        timeout: float = 120.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        base_url = _given_or_environment(base_url, BASE_URL_VARIABLE, "base url")
        key = _given_or_environment(key, API_KEY_VARIABLE, "key")
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {key}"},
            timeout=timeout,
            transport=transport,
        )
        # Files are fetched by a client without the key: their URL is signed, and may point
        # at a CDN or a bucket that must never see the key.
        self._files = httpx.AsyncClient(timeout=timeout, transport=transport)
        self._timeout = timeout
        self._retry = retry
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"AsyncClient({str(self._http.base_url)!r})"

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()
        await self._files.aclose()

    async def render_image(
        self, request: ImageRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> ImageResult:
        """Render an image on the server; see :func:`renderkit.render_image`.

        ``idempotency_key``: the call's ``Idempotency-Key`` (default: a new UUID per call,
        the same on its retries), as for every operation of this client.
        """
        answer = await self._call("image", request, idempotency_key)
        return image_result(answer, self._loader())

    async def render_pdf(
        self, request: PdfRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> PdfResult:
        """Render a PDF on the server; see :func:`renderkit.render_pdf`."""
        return pdf_result(await self._call("pdf-gen", request, idempotency_key), self._loader())

    async def screenshot(
        self, request: ScreenshotRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> ScreenshotResult:
        """Capture a page on the server; see :func:`renderkit.screenshot`.

        Raises:
            InvalidRequestError: ``format`` is markdown, html or text: that is
                :meth:`read_page`'s answer, not a screenshot.
        """
        if isinstance(request, Mapping) and request.get("format") in READ_FORMATS:
            msg = "markdown, html and text are read_page's formats, not a screenshot's"
            raise InvalidRequestError.single("format", msg)
        answer = await self._call("screenshot", request, idempotency_key)
        return screenshot_result(answer, self._loader())

    async def read_page(
        self, request: ReadRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> ReadResult:
        """Read a page's main content on the server; see :func:`renderkit.read_page`."""
        return read_result(await self._call("read", request, idempotency_key))

    async def synthesize(
        self, request: AudioRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> AudioResult:
        """Synthesise speech on the server; see :func:`renderkit.synthesize`."""
        return audio_result(await self._call("audio", request, idempotency_key), self._loader())

    async def parse(
        self, request: ParseRequest | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> ParseResult:
        """Parse a document on the server; see :func:`renderkit.parse`."""
        return parse_result(await self._call("parse", request, idempotency_key))

    async def submit(
        self,
        kind: str,
        request: object,
        *,
        webhook_url: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> AsyncJob:
        """Queue one operation as a server job (``POST /api/jobs``) and return at once.

        ``await (await client.submit("pdf", request)).result()`` returns what
        :meth:`render_pdf` returns, without holding a connection while it runs.

        Args:
            kind: ``image``, ``pdf``, ``screenshot``, ``read``, ``audio`` or ``parse``.
            request: the operation's request model or mapping, as its method takes.
            webhook_url: where the server announces the finished job (signed; see
                :func:`~renderkit.client.verify_webhook`).
            metadata: your own JSON object, returned with the job as given.
            idempotency_key: the submit's ``Idempotency-Key``: a repeat returns the same job.

        Raises:
            InvalidRequestError: the server refused the request (nothing was queued).
        """
        body = self._job_body(kind, request, webhook_url, metadata)
        view, _ = await self._request("POST", "/api/jobs", body, idempotency_key)
        return AsyncJob(self, view)

    async def submit_batch(
        self,
        jobs: Iterable[tuple[str, object] | Mapping[str, Any]],
        *,
        webhook_url: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> AsyncBatch:
        """Queue many operations as one batch (``POST /api/batches``), announced once.

        Args:
            jobs: ``(kind, request)`` pairs, or ``{"kind", "request", "metadata"}`` mappings.
            webhook_url: where the server announces the batch once its last job finished.
            metadata: your own JSON object for the batch.
            idempotency_key: the submit's ``Idempotency-Key``: a repeat returns the same batch.

        Raises:
            InvalidRequestError: an item is invalid (named ``jobs[3]...``); nothing was queued.
        """
        items = []
        for job in jobs:
            if isinstance(job, Mapping):
                item = self._job_body(job["kind"], job["request"], None, job.get("metadata"))
            else:
                item = self._job_body(job[0], job[1], None, None)
            items.append(item)
        body: dict[str, Any] = {"jobs": items}
        if webhook_url is not None:
            body["webhook_url"] = webhook_url
        if metadata is not None:
            body["metadata"] = dict(metadata)
        view, _ = await self._request("POST", "/api/batches", body, idempotency_key)
        return AsyncBatch(self, view)

    async def job(self, job_id: str) -> AsyncJob:
        """The job ``job_id`` as the server has it now (another process may have submitted it)."""
        view, _ = await self._request("GET", f"/api/jobs/{job_id}")
        return AsyncJob(self, view)

    @staticmethod
    def _job_body(
        kind: str, request: object, webhook_url: str | None, metadata: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        if kind not in JOB_KINDS:
            msg = f"kind must be one of {', '.join(sorted(JOB_KINDS))}, not {kind!r}"
            raise InvalidRequestError.single("kind", msg)
        body: dict[str, Any] = {"kind": kind, "request": _body(request)}
        if webhook_url is not None:
            body["webhook_url"] = webhook_url
        if metadata is not None:
            body["metadata"] = dict(metadata)
        return body

    async def download(self, result: T) -> T:
        """Fetch a result's file without blocking the event loop; returns the result.

        Results whose file is already here (or that have none) are returned as they are.
        """
        if not isinstance(result, LazyContent) or result.downloaded or result.url is None:
            return result
        url = result.url
        response = await _reach(
            url,
            lambda: send_with_retries(lambda: self._files.get(url), self._retry, sleep=self._sleep),
        )
        if response.is_error:
            raise error_from_response(response)
        result.fill(downloaded(response))
        return result

    async def _call(
        self, name: str, request: object, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        return (await self._request("POST", f"/api/{name}", _body(request), idempotency_key))[0]

    async def _request(
        self,
        method: str,
        path: str,
        body: Any = None,
        idempotency_key: str | None = None,
    ) -> tuple[dict[str, Any], float | None]:
        """Send one API call with the retries; its JSON answer and its ``Retry-After``.

        A POST carries an ``Idempotency-Key``; GET and DELETE are idempotent already.
        """
        # One key per logical call, sent again on each of its retries: a retry after a
        # timeout gets the first answer instead of a second render and charge.
        headers = {}
        if method == "POST":
            headers[IDEMPOTENCY_HEADER] = idempotency_key or str(uuid.uuid4())

        async def send() -> httpx.Response:
            response = await self._http.request(method, path, json=body, headers=headers)
            if _in_progress(response):
                raise _FirstStillRunning(response)
            wait = parse_retry_after(response.headers.get("retry-after"))
            if wait is not None and wait > self._retry.max_delay:
                # A monthly quota resets in days: not worth waiting for, report it now.
                raise _NotWorthWaiting(response)
            return response

        # A retry that finds the first attempt still running waits for it like a network
        # failure: the backoff, then the same key again.
        policy = attrs.evolve(self._retry, retry_on=(*self._retry.retry_on, _FirstStillRunning))
        try:
            response = await _reach(
                f"{self._http.base_url}{path}",
                lambda: send_with_retries(send, policy, sleep=self._sleep),
            )
        except (_NotWorthWaiting, _FirstStillRunning) as stop:
            response = stop.response
        if response.is_error:
            raise error_from_response(response)
        answer: dict[str, Any] = response.json()
        return answer, parse_retry_after(response.headers.get("retry-after"))

    def _loader(self) -> Loader:
        retry, timeout = self._retry, self._timeout
        loader: Loader = lambda url: download_blocking(  # noqa: E731
            url, retry=retry, timeout=timeout
        )
        return loader
