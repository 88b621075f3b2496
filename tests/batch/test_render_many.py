"""render_many: many jobs of every kind through one browser, bounded, in input order."""

from __future__ import annotations

import asyncio
import contextlib
import io

import pytest
from pypdf import PdfReader

from renderkit import (
    AudioResult,
    ImageRequest,
    ImageResult,
    InvalidRequestError,
    NavigationError,
    PdfResult,
    ScreenshotResult,
    render_many,
)
from renderkit.batch import as_completed
from renderkit.browser import Capture, ChromiumPool, Shell
from renderkit.sync import Renderkit
from renderkit.testing import FakeBrowser
from tests._server import LocalServer
from tests.conftest import open_image

pytestmark = pytest.mark.anyio


class SlowBrowser(FakeBrowser):
    """A fake whose image renders take ``delay(title)`` seconds and count how many overlap."""

    def __init__(self, delays: dict[str, float] | None = None) -> None:
        super().__init__()
        self.delays = delays or {}
        self.running = 0
        self.most = 0

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            delay = next((d for t, d in self.delays.items() if t in fragment), 0.02)
            await asyncio.sleep(delay)
            return await super().capture_fragment(shell, fragment, capture)
        finally:
            self.running -= 1


class HeldBrowser(FakeBrowser):
    """A fake whose render naming "slow" waits until :attr:`release` is set (bounded: 5 s),
    which happens by itself once ``release_after`` other renders have finished."""

    def __init__(self, release_after: int | None = None) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.release_after = release_after

    async def capture_fragment(self, shell: Shell, fragment: str, capture: Capture) -> bytes:
        if "slow" in fragment:
            async with asyncio.timeout(5):
                await self.release.wait()
            return await super().capture_fragment(shell, fragment, capture)
        image = await super().capture_fragment(shell, fragment, capture)
        if len(self.renders) == self.release_after:  # the held render is not recorded yet
            self.release.set()
        return image


def card(title: str) -> dict[str, object]:
    request = {"template": "og-card", "data": {"title": title}, "scale": 1, "format": "jpeg"}
    return {"kind": "image", "request": request}


@pytest.mark.browser
async def test_a_mix_of_kinds_renders_through_one_pool_and_a_bad_job_fails_alone(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    http_server.routes["/page"] = (200, "text/html", b"<body style='background:#0f0'>hi</body>")
    jobs = [
        ImageRequest(template="twitter-card", scale=1, format="png"),
        {"kind": "pdf", "request": {"template": "invoice", "data": {"invoice_number": "INV-7"}}},
        {"kind": "audio", "request": {"script": "Hello batch"}},
        {"kind": "image", "request": {"template": "og-card", "data": {"title": 5}}},
        {
            "kind": "screenshot",
            "request": {"url": http_server.url("/page"), "viewport": {"width": 320, "height": 200}},
        },
        {"kind": "screenshot", "request": {"url": "http://127.0.0.1:9/closed"}},
    ]
    outcomes = await render_many(jobs, browser=pool, concurrency=3)

    assert [o.index for o in outcomes] == list(range(6))
    image, pdf, audio, invalid, shot, unreachable = outcomes
    assert isinstance(image.result, ImageResult)
    assert open_image(image.result.content).size == (800, 418)
    assert image.result.filename == "twitter-card.png"
    assert isinstance(pdf.result, PdfResult)
    assert "INV-7" in PdfReader(io.BytesIO(pdf.result.content)).pages[0].extract_text()
    assert pdf.result.filename == "invoice-INV-7.pdf"
    assert isinstance(audio.result, AudioResult)
    assert audio.result.duration_seconds > 0.3
    assert isinstance(shot.result, ScreenshotResult)
    assert shot.result.filename == "screenshot-127.0.0.1.png"
    assert open_image(shot.result.content).convert("RGB").getpixel((300, 180)) == (0, 255, 0)
    assert isinstance(invalid.error, InvalidRequestError)
    assert invalid.job is None and invalid.result is None
    assert [e.field for e in invalid.error.errors] == ["jobs[3].request.data.title"]
    assert isinstance(unreachable.error, NavigationError)
    assert not unreachable.ok and unreachable.result is None


async def test_no_more_jobs_run_at_once_than_the_concurrency() -> None:
    browser = SlowBrowser()
    outcomes = await render_many([card(f"t{i}") for i in range(12)], browser=browser, concurrency=3)
    assert all(o.ok for o in outcomes)
    assert browser.most == 3
    assert len(browser.renders) == 12


async def test_outcomes_come_in_input_order_though_they_finish_in_another() -> None:
    jobs = [card("slow"), card("fast"), card("fast too")]
    browser = HeldBrowser()
    finished = []
    async for outcome in as_completed(jobs, browser=browser, concurrency=3):
        finished.append(outcome.index)
        if len(finished) == 2:
            browser.release.set()  # the other two came out first: now the slow one may end
    assert sorted(finished[:2]) == [1, 2] and finished[-1] == 0
    ordered = await render_many(jobs, browser=HeldBrowser(release_after=2), concurrency=3)
    assert [o.index for o in ordered] == [0, 1, 2]
    assert [o.job.request.data.title for o in ordered if o.job] == ["slow", "fast", "fast too"]


async def test_leaving_as_completed_early_cancels_the_jobs_still_running() -> None:
    browser = SlowBrowser({"slow": 30})
    jobs = [card("quick"), card("slow"), card("slow 2")]
    async with asyncio.timeout(5):
        async with contextlib.aclosing(as_completed(jobs, browser=browser, concurrency=3)) as it:
            async for outcome in it:
                assert outcome.index == 0
                break
    await asyncio.sleep(0)
    assert browser.running == 0


@pytest.mark.parametrize(
    ("job", "field"),
    [
        ({"kind": "video", "request": {}}, "jobs[0].kind"),
        ({"kind": "image"}, "jobs[0].request"),
        ({"kind": "image", "request": {}, "outptu": "a.png"}, "jobs[0].outptu"),
        ("og-card", "jobs[0]"),
    ],
)
async def test_a_malformed_job_is_an_invalid_request_naming_its_field(
    job: object, field: str
) -> None:
    [outcome] = await render_many([job], browser=FakeBrowser())  # type: ignore[list-item]
    assert isinstance(outcome.error, InvalidRequestError)
    assert outcome.error.errors[0].field == field


async def test_browser_jobs_without_a_browser_fail_and_speech_jobs_still_run() -> None:
    outcomes = await render_many([card("x"), {"kind": "audio", "request": {"script": "Hi"}}])
    assert "need a browser" in str(outcomes[0].error)
    assert isinstance(outcomes[1].result, AudioResult)


def test_the_sync_twin_returns_outcomes_in_order() -> None:
    with Renderkit() as rk:
        outcomes = rk.render_many(
            [{"kind": "audio", "request": {"script": "One"}}, {"kind": "audio", "request": {}}]
        )
    assert isinstance(outcomes[0].result, AudioResult)
    assert outcomes[0].result.filename == "speech-one.mp3"
    assert isinstance(outcomes[1].error, InvalidRequestError)
    assert outcomes[1].error.errors[0].field == "jobs[1].request.script"
