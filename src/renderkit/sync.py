"""Blocking twins of renderkit's async API, for scripts and notebooks.

Every async function has a blocking twin here, as a one-shot function and as a method of
:class:`Renderkit`, which keeps one warm browser (and the other backends) across calls::

    from renderkit.sync import Renderkit

    with Renderkit() as rk:
        rk.render_image({"template": "og-card", "data": {"title": "Hello"}}).save("card.png")
        rk.synthesize({"script": "Hello"}).save("hello.mp3")   # no browser involved

The facade runs an event loop in a helper thread (anyio's blocking portal), so it also works
where a loop is already running, as in Jupyter; there, the async API (``await
renderkit.render_image(...)``) is the more direct choice.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeVar

import anyio.from_thread
from anyio.from_thread import BlockingPortal

from renderkit.batch import DEFAULT_CONCURRENCY, Job, JobOutcome, JobRequest
from renderkit.batch import render_many as _render_many
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.image import ImageRequest, ImageResult
from renderkit.image import render_image as _render_image
from renderkit.parsing import Extractor, ParseRequest, ParseResult
from renderkit.parsing import parse as _parse
from renderkit.pdf import PdfRequest, PdfResult
from renderkit.pdf import render_pdf as _render_pdf
from renderkit.reading import ReadRequest, ReadResult
from renderkit.reading import read_page as _read_page
from renderkit.screenshot import ScreenshotRequest, ScreenshotResult
from renderkit.screenshot import screenshot as _screenshot
from renderkit.speech import AudioRequest, AudioResult, SpeechProvider, default_speech_provider
from renderkit.speech import synthesize as _synthesize
from renderkit.storage import Storage

__all__ = [
    "Renderkit",
    "parse",
    "read_page",
    "render_image",
    "render_many",
    "render_pdf",
    "screenshot",
    "synthesize",
]

R = TypeVar("R")


class Renderkit:
    """renderkit's operations as blocking methods, sharing one set of backends.

    Chromium is launched on the first image, PDF, screenshot or page read, never for speech or
    parsing. Leaving the ``with`` block (or :meth:`close`) closes the browser and every
    backend given here: they may hold connections opened on the session's own event loop,
    which only that loop can close.
    """

    def __init__(
        self,
        *,
        browser: BrowserConfig | None = None,
        storage: Storage | None = None,
        speech: SpeechProvider | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        """Configure the session; nothing starts until the ``with`` block.

        Args:
            browser: the browser pool's settings (default :class:`BrowserConfig`).
            storage: when given, every file is stored there and results carry key and URL.
            speech: the speech provider (default: one
                :func:`~renderkit.speech.default_speech_provider` for the session: espeak-ng,
                and Kokoro when installed).
            extractor: the document extractor (default: the local rules).
        """
        self._config = browser or BrowserConfig()
        self._storage = storage
        self._speech = speech
        self._extractor = extractor
        self._portal_cm: contextlib.AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._pool: ChromiumPool | None = None
        self._owned_speech: SpeechProvider | None = None

    def __enter__(self) -> Renderkit:
        self._portal_cm = anyio.from_thread.start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        # Built on the session's loop; it launches Chromium only when first asked to render.
        self._pool = self._portal.call(ChromiumPool, self._config)
        if self._speech is None:
            # One set of engines for the session, so a Kokoro model is loaded once.
            self._speech = self._owned_speech = self._portal.call(default_speech_provider)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the browser and the backends, and stop the helper thread. Idempotent."""
        portal, portal_cm = self._portal, self._portal_cm
        self._portal = self._portal_cm = None
        if portal is None or portal_cm is None:
            return
        try:
            portal.call(self._aclose_backends)
        finally:
            portal_cm.__exit__(None, None, None)
            self._pool = None
            if self._owned_speech is not None:  # closed above; a new session builds its own
                self._speech = self._owned_speech = None

    async def _aclose_backends(self) -> None:
        # An exit stack closes every backend even when one of them fails to close.
        async with contextlib.AsyncExitStack() as stack:
            for backend in (self._storage, self._extractor, self._speech, self._pool):
                if backend is not None:
                    stack.push_async_callback(backend.aclose)

    def _call(self, function: Callable[..., Awaitable[R]], request: Any, **backends: Any) -> R:
        """Run ``function(request, **backends)`` on the session's loop and wait for it."""
        if self._portal is None:
            msg = "use Renderkit inside a with block"
            raise RuntimeError(msg)
        return self._portal.call(functools.partial(function, request, **backends))

    def render_image(self, request: ImageRequest | Mapping[str, Any]) -> ImageResult:
        """Blocking :func:`renderkit.render_image` (same request, result and errors)."""
        return self._call(_render_image, request, browser=self._pool, storage=self._storage)

    def render_pdf(self, request: PdfRequest | Mapping[str, Any]) -> PdfResult:
        """Blocking :func:`renderkit.render_pdf` (same request, result and errors)."""
        return self._call(_render_pdf, request, browser=self._pool, storage=self._storage)

    def screenshot(self, request: ScreenshotRequest | Mapping[str, Any]) -> ScreenshotResult:
        """Blocking :func:`renderkit.screenshot` (same request, result and errors)."""
        return self._call(_screenshot, request, browser=self._pool, storage=self._storage)

    def read_page(self, request: ReadRequest | Mapping[str, Any]) -> ReadResult:
        """Blocking :func:`renderkit.read_page` (same request, result and errors)."""
        return self._call(_read_page, request, browser=self._pool)

    def synthesize(self, request: AudioRequest | Mapping[str, Any]) -> AudioResult:
        """Blocking :func:`renderkit.synthesize` (same request, result and errors)."""
        return self._call(_synthesize, request, provider=self._speech, storage=self._storage)

    def parse(self, request: ParseRequest | Mapping[str, Any]) -> ParseResult:
        """Blocking :func:`renderkit.parse` (same request, result and errors)."""
        return self._call(_parse, request, extractor=self._extractor)

    def render_many(
        self,
        jobs: Iterable[Job | JobRequest | Mapping[str, Any]],
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
    ) -> list[JobOutcome]:
        """Blocking :func:`renderkit.render_many`: outcomes in input order, never raising
        for one job's failure."""
        return self._call(
            _render_many,
            list(jobs),
            browser=self._pool,
            storage=self._storage,
            speech=self._speech,
            extractor=self._extractor,
            concurrency=concurrency,
        )


# One-shot twins: a session for one call. For several calls, keep one Renderkit open, so
# the browser stays warm (each of these launches and closes Chromium when it needs one).


def render_image(
    request: ImageRequest | Mapping[str, Any],
    *,
    browser: BrowserConfig | None = None,
    storage: Storage | None = None,
) -> ImageResult:
    """Render one image with a browser launched for this call (see :class:`Renderkit`)."""
    with Renderkit(browser=browser, storage=storage) as rk:
        return rk.render_image(request)


def render_pdf(
    request: PdfRequest | Mapping[str, Any],
    *,
    browser: BrowserConfig | None = None,
    storage: Storage | None = None,
) -> PdfResult:
    """Render one PDF with a browser launched for this call (see :class:`Renderkit`)."""
    with Renderkit(browser=browser, storage=storage) as rk:
        return rk.render_pdf(request)


def screenshot(
    request: ScreenshotRequest | Mapping[str, Any],
    *,
    browser: BrowserConfig | None = None,
    storage: Storage | None = None,
) -> ScreenshotResult:
    """Capture one page with a browser launched for this call (see :class:`Renderkit`)."""
    with Renderkit(browser=browser, storage=storage) as rk:
        return rk.screenshot(request)


def read_page(
    request: ReadRequest | Mapping[str, Any], *, browser: BrowserConfig | None = None
) -> ReadResult:
    """Read one page with a browser launched for this call (see :class:`Renderkit`)."""
    with Renderkit(browser=browser) as rk:
        return rk.read_page(request)


def synthesize(
    request: AudioRequest | Mapping[str, Any],
    *,
    provider: SpeechProvider | None = None,
    storage: Storage | None = None,
) -> AudioResult:
    """Speak one script (no browser is launched; see :class:`Renderkit`)."""
    with Renderkit(speech=provider, storage=storage) as rk:
        return rk.synthesize(request)


def parse(
    request: ParseRequest | Mapping[str, Any], *, extractor: Extractor | None = None
) -> ParseResult:
    """Parse one document (no browser is launched; see :class:`Renderkit`)."""
    with Renderkit(extractor=extractor) as rk:
        return rk.parse(request)


def render_many(
    jobs: Iterable[Job | JobRequest | Mapping[str, Any]],
    *,
    browser: BrowserConfig | None = None,
    storage: Storage | None = None,
    speech: SpeechProvider | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> list[JobOutcome]:
    """Run many jobs through one browser launched for this call (see :class:`Renderkit`)."""
    with Renderkit(browser=browser, storage=storage, speech=speech) as rk:
        return rk.render_many(jobs, concurrency=concurrency)
