"""PDFium work waits for its lock in worker threads, so a long parse never freezes the loop."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
import anyio.to_thread
import pypdfium2
import pytest
from PIL import Image

from renderkit import render_pdf, screenshot
from renderkit.browser import PageCapture, PageShot, PdfOptions, Shell
from renderkit.core import pdfium
from renderkit.core.pdfium import first_page_png, page_count, run_pdfium
from renderkit.testing import FakeBrowser

pytestmark = pytest.mark.anyio


def pdf_with_pages(count: int) -> bytes:
    pages = [Image.new("RGB", (200, 280), (40 * i, 90, 160)) for i in range(count)]
    out = io.BytesIO()
    pages[0].save(out, "PDF", save_all=True, append_images=pages[1:], resolution=72.0)
    return out.getvalue()


PDF = pdf_with_pages(3)


class ThreePageBrowser(FakeBrowser):
    """Prints every PDF, documents and pages alike, as three pages."""

    async def print_fragment(self, shell: Shell, fragment: str, options: PdfOptions) -> bytes:
        await super().print_fragment(shell, fragment, options)
        return PDF

    async def capture_url(self, shot: PageShot) -> PageCapture:
        captured = await super().capture_url(shot)
        return PageCapture(content=PDF, final_url=captured.final_url, status=captured.status)


@pytest.fixture
async def long_render() -> AsyncIterator[threading.Event]:
    """A page render in another thread that holds PDFium until the returned event is set."""
    started, release = threading.Event(), threading.Event()

    def render() -> None:
        started.set()
        # Bounded, so a frozen event loop fails the test instead of hanging it.
        release.wait(timeout=5)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run_pdfium, render)
        await anyio.to_thread.run_sync(started.wait, 5)
        yield release
        release.set()


async def ticks_while(work: Awaitable[object], release: threading.Event) -> tuple[object, float]:
    """Run ``work`` while the lock is held; tick every 2 ms meanwhile, then release the lock.

    Returns what ``work`` returned and the longest gap between two ticks (seconds).
    """
    results: list[object] = []

    async def run() -> None:
        results.append(await work)

    longest = 0.0
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run)
            last = time.monotonic()
            for _ in range(25):
                await anyio.sleep(0.002)
                now = time.monotonic()
                longest, last = max(longest, now - last), now
            assert results == []  # still waiting for the lock, off the loop
            release.set()
    return results[0], longest


async def test_the_loop_keeps_ticking_while_a_long_render_holds_pdfium(
    long_render: threading.Event,
) -> None:
    pages, longest_gap = await ticks_while(page_count(PDF), long_render)
    assert pages == 3
    assert longest_gap < 0.5


async def test_render_pdf_counts_pages_correctly_while_a_long_render_holds_pdfium(
    long_render: threading.Event,
) -> None:
    rendering = render_pdf(
        {"template": "report", "data": {"title": "Q3"}}, browser=ThreePageBrowser()
    )
    result, longest_gap = await ticks_while(rendering, long_render)
    assert getattr(result, "pages", None) == 3
    assert longest_gap < 0.5


async def test_a_pdf_screenshot_counts_pages_off_the_loop(long_render: threading.Event) -> None:
    capturing = screenshot(
        {"url": "https://example.com", "format": "pdf"}, browser=ThreePageBrowser()
    )
    result, longest_gap = await ticks_while(capturing, long_render)
    assert "the PDF has 3 pages" in getattr(result, "warnings", ())
    assert longest_gap < 0.5


async def test_a_small_pdf_is_counted_at_once_when_pdfium_is_free_and_a_large_one_in_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threaded: list[int] = []
    run = pdfium.run_pdfium

    async def counting(fn: Callable[[bytes], int], content: bytes) -> int:
        threaded.append(len(content))
        return await run(fn, content)

    monkeypatch.setattr(pdfium, "run_pdfium", counting)
    large = pdf_with_pages(2) + b"%" * pdfium._INLINE_BYTES + b"\n"  # comments after %%EOF

    assert await page_count(PDF) == 3
    assert await page_count(large) == 2
    assert threaded == [len(large)]


async def test_an_unreadable_pdf_raises_pdfium_error() -> None:
    with pytest.raises(pypdfium2.PdfiumError):
        await page_count(b"%PDF-1.7 but nothing else")


async def test_pdfium_calls_run_one_at_a_time() -> None:
    inside = 0
    most = 0

    def step() -> None:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        time.sleep(0.001)  # a worker thread's PDFium call, not the loop
        inside -= 1

    async with anyio.create_task_group() as tasks:
        for _ in range(8):
            tasks.start_soon(run_pdfium, step)
    assert most == 1


def test_the_first_page_preview_is_a_png_of_the_page() -> None:
    image = Image.open(io.BytesIO(first_page_png(PDF)))
    assert (image.format, image.size) == ("PNG", (200, 280))
