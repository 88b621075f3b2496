"""The retry and hang watch, on an in-memory browser and an injected clock: no Chromium."""

from __future__ import annotations

import asyncio

import anyio
import attrs
import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from renderkit import (
    BrowserUnavailableError,
    InvalidRequestError,
    RenderError,
    RenderTimeoutError,
)
from renderkit.browser._watch import HANG_MARGIN, Budget, RenderWatch

pytestmark = pytest.mark.anyio


@attrs.define
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@attrs.define
class FakeBrowser:
    """A browser the test decides about: whether it answers, and what was done to it."""

    generation: int = 1
    connected: bool = True
    answers: bool = True
    abandoned: list[int] = attrs.Factory(list)
    resets: list[int] = attrs.Factory(list)
    #: Told when a browser is abandoned, as the pool tells its watch.
    watch: RenderWatch | None = None

    async def responsive(self, generation: int) -> bool:
        return self.answers

    def abandon(self, generation: int) -> None:
        self.abandoned.append(generation)
        if self.watch is not None:
            self.watch.lost(generation)

    async def reset(self, generation: int) -> None:
        self.resets.append(generation)
        if generation == self.generation:
            self.generation += 1


async def test_a_timeout_on_a_browser_that_answers_is_the_pages_fault() -> None:
    browser = FakeBrowser(answers=True)
    watch = RenderWatch(browser, clock=FakeClock())

    async def work(budget: Budget) -> str:
        raise PlaywrightTimeoutError("page.goto: Timeout exceeded")

    with pytest.raises(RenderTimeoutError) as caught:
        await watch.run(work, 4)
    assert caught.value.timeout == 4
    assert browser.abandoned == []
    assert browser.resets == []


async def test_a_browser_hung_at_the_deadline_is_retried_within_budget_plus_margin() -> None:
    clock = FakeClock()
    browser = FakeBrowser(answers=False)
    watch = RenderWatch(browser, clock=clock)
    seen: list[tuple[int, float]] = []

    async def work(budget: Budget) -> str:
        seen.append((browser.generation, budget.remaining_ms()))
        if len(seen) == 1:
            clock.now += 9.5  # the hang used most of the budget before Playwright gave up
            raise PlaywrightTimeoutError("Timeout exceeded")
        return "png"

    assert await watch.run(work, 10) == "png"
    assert browser.abandoned == [1]
    assert browser.resets == [1]
    # Not a second whole budget: what is left of it, plus the hang margin.
    assert seen == [(1, 10_000.0), (2, (10 + HANG_MARGIN - 9.5) * 1000)]


async def test_a_browser_that_stops_answering_mid_render_is_abandoned_at_once() -> None:
    browser = FakeBrowser(answers=True)
    watch = RenderWatch(browser, probe_interval=0.01)
    browser.watch = watch
    attempts: list[int] = []

    async def work(budget: Budget) -> str:
        attempts.append(browser.generation)
        if len(attempts) == 1:
            browser.answers = False  # stopped: every question from now on goes unanswered
            await asyncio.Event().wait()
        browser.answers = True
        return "png"

    with anyio.fail_after(2):  # the budget is 60 s: only the probe can end the first attempt
        assert await watch.run(work, 60) == "png"
    assert browser.abandoned == [1]
    assert attempts == [1, 2]


async def test_a_browser_lost_twice_makes_the_render_unavailable() -> None:
    browser = FakeBrowser(answers=False)
    watch = RenderWatch(browser, clock=FakeClock())

    async def work(budget: Budget) -> str:
        raise PlaywrightTimeoutError("Timeout exceeded")

    with pytest.raises(BrowserUnavailableError):
        await watch.run(work, 4)
    assert browser.abandoned == [1, 2]
    assert browser.resets == [1]


async def test_a_disconnect_cuts_a_waiting_render_short_and_it_runs_again() -> None:
    browser = FakeBrowser()
    watch = RenderWatch(browser)
    started = asyncio.Event()
    attempts = 0

    async def work(budget: Budget) -> str:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            started.set()
            await asyncio.Event().wait()  # a render on a browser that just died
        return "png"

    async def disconnect() -> None:
        await started.wait()
        watch.lost(1)

    with anyio.fail_after(5):  # far below the render's own 60 s budget
        task = asyncio.create_task(disconnect())
        assert await watch.run(work, 60) == "png"
        await task
    assert attempts == 2
    assert browser.resets == [1]
    assert browser.abandoned == []


async def test_a_devtools_failure_on_a_live_browser_is_a_render_error() -> None:
    browser = FakeBrowser()
    watch = RenderWatch(browser, clock=FakeClock(), death_grace=0.01)

    async def work(budget: Budget) -> str:
        raise PlaywrightError("Protocol error (Page.captureScreenshot): failed")

    with pytest.raises(RenderError):
        await watch.run(work, 4)
    assert browser.resets == []


async def test_a_devtools_failure_as_the_browser_dies_is_retried() -> None:
    browser = FakeBrowser()
    watch = RenderWatch(browser, clock=FakeClock(), death_grace=0.01)

    async def work(budget: Budget) -> str:
        if browser.generation == 1:
            browser.connected = False
            raise PlaywrightError("Target closed")
        browser.connected = True
        return "pdf"

    assert await watch.run(work, 4) == "pdf"
    assert browser.resets == [1]


async def test_a_devtools_failure_on_a_browser_replaced_within_the_grace_is_retried() -> None:
    # The browser dies under this render, and another render's retry has already launched
    # its successor before the grace is over: connected again, but not this render's browser.
    browser = FakeBrowser()
    watch = RenderWatch(browser, clock=FakeClock(), death_grace=0.01)
    tries: list[int] = []

    async def work(budget: Budget) -> str:
        tries.append(browser.generation)
        if len(tries) == 1:
            browser.generation += 1  # relaunched elsewhere, and connected
            raise RuntimeError("the DevTools connection closed")
        return "png"

    assert await watch.run(work, 4) == "png"
    assert tries == [1, 2]
    assert browser.resets == [1]  # the dead generation's reset, which the new one ignores


async def test_a_document_navigating_away_is_the_callers_mistake() -> None:
    watch = RenderWatch(FakeBrowser(), clock=FakeClock(), death_grace=0.01)

    async def work(budget: Budget) -> str:
        raise PlaywrightError("Execution context was destroyed, most likely a navigation")

    with pytest.raises(InvalidRequestError):
        await watch.run(work, 4, document=True)
    with pytest.raises(RenderError):
        await watch.run(work, 4, document=False)


def test_a_budget_never_reports_less_than_a_millisecond() -> None:
    clock = FakeClock(now=50.0)
    budget = Budget(deadline=50.25, clock=clock)
    assert budget.remaining_ms() == 250.0
    clock.now = 51.0
    assert budget.remaining_ms() == 1.0
