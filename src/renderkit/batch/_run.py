"""render_many: many jobs through one browser, a bounded number at a time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

import attrs

from renderkit.batch._jobs import Job, JobRequest, to_job
from renderkit.browser import Browser
from renderkit.client import JobResult
from renderkit.core.errors import ConfigurationError, RenderkitError
from renderkit.image import ImageRequest, render_image
from renderkit.parsing import Extractor, ParseRequest, parse
from renderkit.pdf import PdfRequest, render_pdf
from renderkit.screenshot import ScreenshotRequest, screenshot
from renderkit.speech import (
    AudioRequest,
    SpeechProvider,
    default_speech_provider,
    synthesize,
)
from renderkit.storage import Storage

__all__ = ["DEFAULT_CONCURRENCY", "JobOutcome", "JobResult", "as_completed", "render_many"]

#: Jobs in flight at once unless told: enough to keep a default two-slot pool busy while
#: the next jobs are validated and encoded, without queueing the whole batch in the pool.
DEFAULT_CONCURRENCY = 4

AnyJob = Job | JobRequest | Mapping[str, Any]


@attrs.frozen(kw_only=True)
class JobOutcome:
    """What became of one job: its result, or the error it raised.

    Attributes:
        index: the job's position in the input.
        job: the validated job (None when the job itself was invalid).
        result: the result, when the job succeeded.
        error: the renderkit error it raised otherwise; an invalid job's
            :class:`~renderkit.InvalidRequestError` names ``jobs[<index>].<field>`` (or
            ``line <n>.<field>`` for a job read from a file).
        seconds: how long the job took, validation included.
    """

    index: int
    job: Job | None
    result: JobResult | None = None
    error: RenderkitError | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the job produced its result."""
        return self.error is None


@attrs.frozen(kw_only=True)
class _Backends:
    browser: Browser | None
    storage: Storage | None
    speech: SpeechProvider | None
    extractor: Extractor | None


async def as_completed(
    jobs: Iterable[AnyJob],
    *,
    browser: Browser | None = None,
    storage: Storage | None = None,
    speech: SpeechProvider | None = None,
    extractor: Extractor | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> AsyncIterator[JobOutcome]:
    """Run ``jobs`` like :func:`render_many`, yielding each outcome as it finishes.

    For progress reporting: outcomes arrive in completion order, each with its ``index``.
    Closing the iterator cancels the jobs still running; to stop early, wrap it so that
    happens at once rather than when the generator is garbage-collected::

        async with contextlib.aclosing(as_completed(jobs, browser=pool)) as outcomes:
            async for outcome in outcomes:
                ...

    Raises:
        ValueError: ``concurrency`` is below 1.
    """
    if concurrency < 1:
        msg = "concurrency must be at least 1"
        raise ValueError(msg)
    # Audio jobs share one set of engines (a Kokoro model is loaded once per batch).
    owned = default_speech_provider() if speech is None else None
    backends = _Backends(
        browser=browser,
        storage=storage,
        speech=speech if speech is not None else owned,
        extractor=extractor,
    )
    limit = asyncio.Semaphore(concurrency)
    queue = iter(enumerate(jobs))
    running: set[asyncio.Task[JobOutcome]] = set()

    def start_next() -> bool:
        entry = next(queue, None)
        if entry is None:
            return False
        running.add(asyncio.ensure_future(_run_one(entry[0], entry[1], backends, limit)))
        return True

    try:
        # Tasks are created only as slots free up, so a huge batch is not held as tasks.
        while len(running) < concurrency and start_next():
            pass
        while running:
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                running.discard(task)
                start_next()
            for task in sorted(done, key=lambda t: t.result().index):
                yield task.result()
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
        if owned is not None:
            await owned.aclose()


async def render_many(
    jobs: Iterable[AnyJob],
    *,
    browser: Browser | None = None,
    storage: Storage | None = None,
    speech: SpeechProvider | None = None,
    extractor: Extractor | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> list[JobOutcome]:
    """Run many image, PDF, screenshot, audio and parse jobs, ``concurrency`` at a time.

    Every job goes through the one ``browser`` (normally a
    :class:`~renderkit.browser.ChromiumPool`), so a batch pays for one Chromium launch and
    reuses its warm pages. One job's failure never stops the others or raises here: its
    outcome carries the error instead.

    Args:
        jobs: each a request model (:class:`~renderkit.ImageRequest`, :class:`~renderkit.
            PdfRequest`, :class:`~renderkit.ScreenshotRequest`, :class:`~renderkit.
            AudioRequest`, :class:`~renderkit.ParseRequest`), a :class:`Job`, or a mapping
            ``{"kind": "image", "request": {...}}`` (``output`` optional).
        browser: renders images, PDFs and screenshots; needed only when there are some.
        storage: when given, every file is stored there and results carry key and URL.
        speech: the speech provider for audio jobs (default: one
            :func:`~renderkit.speech.default_speech_provider` for the whole batch).
        extractor: the document extractor for parse jobs (default: the local rules).
        concurrency: jobs in flight at once (at least 1).

    Returns:
        One :class:`JobOutcome` per job, in input order.

    Raises:
        ValueError: ``concurrency`` is below 1.
    """
    outcomes = [
        outcome
        async for outcome in as_completed(
            jobs,
            browser=browser,
            storage=storage,
            speech=speech,
            extractor=extractor,
            concurrency=concurrency,
        )
    ]
    return sorted(outcomes, key=lambda outcome: outcome.index)


async def _run_one(
    index: int, value: AnyJob, backends: _Backends, limit: asyncio.Semaphore
) -> JobOutcome:
    async with limit:
        started = time.perf_counter()
        job: Job | None = None
        try:
            job = to_job(value, where=f"jobs[{index}]")
            result = await _dispatch(job.request, backends)
        except RenderkitError as exc:
            return JobOutcome(
                index=index, job=job, error=exc, seconds=time.perf_counter() - started
            )
        return JobOutcome(
            index=index, job=job, result=result, seconds=time.perf_counter() - started
        )


async def _dispatch(request: JobRequest, backends: _Backends) -> JobResult:
    storage = backends.storage
    if isinstance(request, AudioRequest):
        return await synthesize(request, provider=backends.speech, storage=storage)
    if isinstance(request, ParseRequest):
        return await parse(request, extractor=backends.extractor)
    browser = backends.browser
    if browser is None:
        msg = "image, PDF and screenshot jobs need a browser: pass browser=ChromiumPool()"
        raise ConfigurationError(msg)
    if isinstance(request, ImageRequest):
        return await render_image(request, browser=browser, storage=storage)
    if isinstance(request, PdfRequest):
        return await render_pdf(request, browser=browser, storage=storage)
    assert isinstance(request, ScreenshotRequest)  # JobRequest has no other member
    return await screenshot(request, browser=browser, storage=storage)
