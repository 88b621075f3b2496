"""Every render attempt under a deadline, cut short when its browser dies, retried once.

A render that runs out of time is the page's fault (RenderTimeoutError) unless the browser
itself stopped answering: then the browser is abandoned (killed, or dropped in remote mode)
and the render runs once more on a new one, with a whole new budget. A browser that
disconnects fails its renders at once (:meth:`RenderWatch.lost`), not at their deadlines.
Renders are idempotent (templates, documents, and page loads, which are GETs), so one retry
is safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

import attrs
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from websockets.exceptions import WebSocketException

from renderkit.browser._guard import NAVIGATES_AWAY
from renderkit.core.errors import (
    BrowserUnavailableError,
    InvalidRequestError,
    RenderError,
    RenderTimeoutError,
)

__all__ = ["Budget", "RenderWatch", "WatchedBrowser"]

T = TypeVar("T")

logger = logging.getLogger("renderkit.browser")

#: After a DevTools failure, how long to wait for the browser's disconnect to tell whether
#: the browser died (its connection closes a moment after a renderer's).
_DEATH_GRACE = 0.5

Clock = Callable[[], float]
"""Seconds on a monotonic clock: the event loop's, unless a test injects its own."""


class WatchedBrowser(Protocol):
    """What the watch asks of the browser its renders run on."""

    @property
    def generation(self) -> int:
        """Which browser this is: a relaunch or reconnect makes a new generation."""
        ...

    @property
    def connected(self) -> bool:
        """True while the browser's connection is up."""
        ...

    async def responsive(self, generation: int) -> bool:
        """False when the browser of ``generation`` does not answer a trivial call."""
        ...

    def abandon(self, generation: int) -> None:
        """Kill (local) or drop (remote) the browser of ``generation``; a new one follows."""
        ...

    async def reset(self, generation: int) -> None:
        """Tear down the browser of ``generation`` (no-op if it already was)."""
        ...


@attrs.define
class Budget:
    """The time one render attempt has, as ``deadline`` on ``clock``."""

    deadline: float
    clock: Clock

    def remaining_ms(self) -> float:
        """Milliseconds left, at least 1 (a Playwright timeout of 0 would mean none)."""
        return max(1.0, (self.deadline - self.clock()) * 1000)


class BrowserLostError(Exception):
    """The browser disconnected during a render attempt (internal: retried or translated)."""

    def __init__(self, generation: int) -> None:
        super().__init__(generation)
        #: The generation of the browser that was lost.
        self.generation = generation


@attrs.define(eq=False)
class _Attempt:
    """One render attempt, which a browser disconnect cuts short through its scope."""

    generation: int
    scope: asyncio.Timeout | None = None
    lost: asyncio.Event = attrs.Factory(asyncio.Event)


class RenderWatch:
    """Runs render attempts on ``browser`` under deadlines, and retries a lost one once.

    Args:
        browser: the browser the renders run on.
        clock: the clock deadlines are read on; the event loop's by default.
        death_grace: seconds a failed DevTools call waits for a disconnect to follow.
    """

    def __init__(
        self,
        browser: WatchedBrowser,
        *,
        clock: Clock | None = None,
        death_grace: float = _DEATH_GRACE,
    ) -> None:
        self._browser = browser
        self._clock = clock
        self._death_grace = death_grace
        self._attempts: set[_Attempt] = set()

    def now(self) -> float:
        """The current time on the watch's clock."""
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    async def run(
        self,
        work: Callable[[Budget], Awaitable[T]],
        timeout: float,
        *,
        document: bool = False,
    ) -> T:
        """Run ``work`` within ``timeout`` seconds; once more if its browser was lost.

        ``document``: the work shows the caller's document, whose navigation errors are
        the caller's mistake.

        Raises:
            RenderTimeoutError: the work did not finish in time on a browser that answers.
            BrowserUnavailableError: the browser was lost on both attempts.
            InvalidRequestError: a document navigated away from itself.
            RenderError: a DevTools call failed on a browser still alive.
        """
        for attempt in (1, 2):
            # The retry gets a whole budget: the first one went to the browser's death,
            # not to the caller's content. A render so waits at most twice its budget.
            budget = Budget(self.now() + timeout, self.now)
            try:
                return await self._attempt(work, budget, timeout, document=document)
            except BrowserLostError as exc:
                if attempt == 2:
                    msg = "the browser stopped during the render; retry shortly"
                    raise BrowserUnavailableError(msg, retry_after=1.0) from exc
                logger.warning("the browser stopped mid-render; retrying once")
                # Retry on a browser known to be new: the dead one may still look
                # connected for a moment, and its idle pages and spares are useless.
                await self._browser.reset(exc.generation)
        raise AssertionError  # pragma: no cover - the loop returns or raises

    def lost(self, generation: int) -> None:
        """Fail every attempt on the browser of ``generation`` now, not at its deadline."""
        now = asyncio.get_running_loop().time()
        for attempt in list(self._attempts):
            if attempt.generation <= generation and attempt.scope is not None:
                attempt.lost.set()
                attempt.scope.reschedule(now)

    async def _attempt(
        self,
        work: Callable[[Budget], Awaitable[T]],
        budget: Budget,
        timeout: float,
        *,
        document: bool,
    ) -> T:
        """One try of ``work``, cut short at once if the browser disconnects."""
        attempt = _Attempt(generation=self._browser.generation)
        try:
            async with asyncio.timeout(budget.deadline - self.now()) as scope:
                attempt.scope = scope
                self._attempts.add(attempt)
                try:
                    return await work(budget)
                finally:
                    self._attempts.discard(attempt)
        except (TimeoutError, PlaywrightTimeoutError) as exc:
            if attempt.lost.is_set():
                raise BrowserLostError(attempt.generation) from exc
            if not await self._browser.responsive(attempt.generation):
                # Not the caller's content: the browser itself stopped answering (stopped,
                # swapping, deadlocked). Abandon it so every render on it fails now and the
                # retry runs on a fresh one.
                self._browser.abandon(attempt.generation)
                raise BrowserLostError(attempt.generation) from exc
            msg = f"the render did not finish within {timeout:g} s"
            raise RenderTimeoutError(msg, timeout=timeout) from exc
        except (PlaywrightError, RuntimeError, WebSocketException) as exc:
            # A DevTools call failed: the browser may be dying (its connection closes a
            # moment after a renderer's), which is not the page's fault.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(attempt.lost.wait(), self._death_grace)
            if attempt.lost.is_set() or not self._browser.connected:
                raise BrowserLostError(attempt.generation) from exc
            text = str(exc)
            if document and ("navigat" in text or "context was destroyed" in text):
                raise InvalidRequestError.single("html", NAVIGATES_AWAY) from exc
            if not isinstance(exc, PlaywrightError):
                raise
            logger.warning("render failed: %s", text.splitlines()[0] if text else exc)
            msg = "the browser failed to render the page"
            raise RenderError(msg) from exc
