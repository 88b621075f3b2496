"""Every render attempt under a deadline, cut short when its browser dies, retried once.

A render that runs out of time is the page's fault (RenderTimeoutError) unless the browser
itself stopped answering. While an attempt runs, its browser is asked a trivial DevTools
question every second; a browser that does not answer (stopped, deadlocked) is abandoned
(killed, or dropped in remote mode) at once, and the render runs once more on a new one
within its budget plus a small margin (:data:`HANG_MARGIN`): a hang costs the caller seconds,
not a second budget. A browser that disconnects fails its renders at once
(:meth:`RenderWatch.lost`), not at their deadlines, and the retry gets a whole budget.
Renders are idempotent (templates, documents, and page loads, which are GETs), so one retry
is safe.
"""

from __future__ import annotations

import asyncio
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
from renderkit.core.waits import wait_set

__all__ = ["Budget", "RenderWatch", "WatchedBrowser"]

T = TypeVar("T")

logger = logging.getLogger("renderkit.browser")

#: After a DevTools failure, how long to wait for the browser's disconnect to tell whether
#: the browser died (its connection closes a moment after a renderer's).
_DEATH_GRACE = 0.5
#: Seconds between liveness questions to the browser while an attempt runs.
_PROBE_INTERVAL = 1.0
#: Seconds past its budget a render whose browser hung may take, for the retry on a new
#: browser (a launch takes 1-2 s).
HANG_MARGIN = 3.0

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

    def __init__(self, generation: int, *, hung: bool = False) -> None:
        super().__init__(generation)
        #: The generation of the browser that was lost.
        self.generation = generation
        #: True when the browser stopped answering (rather than disconnecting).
        self.hung = hung


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
        probe_interval: seconds between liveness questions while an attempt runs.
    """

    def __init__(
        self,
        browser: WatchedBrowser,
        *,
        clock: Clock | None = None,
        death_grace: float = _DEATH_GRACE,
        probe_interval: float = _PROBE_INTERVAL,
    ) -> None:
        self._browser = browser
        self._clock = clock
        self._death_grace = death_grace
        self._probe_interval = probe_interval
        self._attempts: set[_Attempt] = set()
        #: Generations abandoned because they stopped answering.
        self._hung: set[int] = set()

    def now(self) -> float:
        """The current time on the watch's clock."""
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    async def run(
        self,
        work: Callable[[Budget], Awaitable[T]],
        timeout: float,
        *,
        document: bool = False,
        ready: Callable[[], Awaitable[object]] | None = None,
    ) -> T:
        """Run ``work`` within ``timeout`` seconds; once more if its browser was lost.

        ``document``: the work shows the caller's document, whose navigation errors are
        the caller's mistake. ``ready``: brings up the browser (a launch or relaunch, under
        its own timeout) before each attempt; its time is not taken from the budget.

        Raises:
            RenderTimeoutError: the work did not finish in time on a browser that answers.
            BrowserUnavailableError: the browser was lost on both attempts.
            InvalidRequestError: a document navigated away from itself.
            RenderError: a DevTools call failed on a browser still alive.
        """
        limit = self.now() + timeout + HANG_MARGIN
        hung = False
        for attempt in (1, 2):
            if ready is not None:
                # Starting Chromium is not the caller's content: the budget starts on a
                # warm browser, and the hang limit moves by the launch's time too.
                started = self.now()
                await ready()
                limit += self.now() - started
            # After a crash the retry gets a whole budget: the first one went to the
            # browser's death, not to the caller's content. After a hang, found within
            # about a probe interval, it gets what is left of the budget plus the margin.
            deadline = self.now() + timeout
            budget = Budget(min(deadline, limit) if hung else deadline, self.now)
            try:
                return await self._attempt(work, budget, timeout, document=document)
            except BrowserLostError as exc:
                if attempt == 2:
                    msg = "the browser stopped during the render; retry shortly"
                    raise BrowserUnavailableError(msg, retry_after=1.0) from exc
                hung = exc.hung
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
                monitor = asyncio.create_task(self._watch_for_hang(attempt.generation))
                try:
                    return await work(budget)
                finally:
                    self._attempts.discard(attempt)
                    monitor.cancel()
        except (TimeoutError, PlaywrightTimeoutError) as exc:
            if attempt.lost.is_set():
                raise self._lost(attempt.generation) from exc
            if not await self._browser.responsive(attempt.generation):
                # Not the caller's content: the browser itself stopped answering (stopped,
                # swapping, deadlocked) in the last moments. Abandon it so every render on
                # it fails now and the retry runs on a fresh one.
                self._abandon(attempt.generation)
                raise self._lost(attempt.generation) from exc
            msg = f"the render did not finish within {timeout:g} s"
            raise RenderTimeoutError(msg, timeout=timeout) from exc
        except (PlaywrightError, RuntimeError, WebSocketException) as exc:
            # A DevTools call failed: the browser may be dying (its connection closes a
            # moment after a renderer's), which is not the page's fault.
            await wait_set(attempt.lost, self._death_grace)
            # A browser of another generation means this one died and has already been
            # replaced (another render's retry can relaunch within the grace): lost too.
            if (
                attempt.lost.is_set()
                or not self._browser.connected
                or self._browser.generation != attempt.generation
            ):
                raise self._lost(attempt.generation) from exc
            text = str(exc)
            if document and ("navigat" in text or "context was destroyed" in text):
                raise InvalidRequestError.single("html", NAVIGATES_AWAY) from exc
            if not isinstance(exc, PlaywrightError):
                raise
            logger.warning("render failed: %s", text.splitlines()[0] if text else exc)
            msg = "the browser failed to render the page"
            raise RenderError(msg) from exc

    async def _watch_for_hang(self, generation: int) -> None:
        """Abandon the browser of ``generation`` as soon as it stops answering."""
        while True:
            await asyncio.sleep(self._probe_interval)
            if generation in self._hung or generation != self._browser.generation:
                return
            if not await self._browser.responsive(generation):
                # Every attempt on it is cut short (through ``lost``) and retried.
                self._abandon(generation)
                return

    def _abandon(self, generation: int) -> None:
        if generation not in self._hung:
            self._hung.add(generation)
            self._browser.abandon(generation)

    def _lost(self, generation: int) -> BrowserLostError:
        return BrowserLostError(generation, hung=generation in self._hung)
