"""renderkit.sync: a blocking twin of every async function, as a function and as a method."""

from __future__ import annotations

import asyncio
import inspect
import io

import av
import pypdfium2
import pytest

import renderkit
import renderkit.sync
from renderkit import BrowserUnavailableError, ParseRequest
from renderkit.browser import BrowserConfig
from renderkit.sync import Renderkit, render_image
from renderkit.testing import FakeExtractor, FakeSpeechProvider

from ._server import LocalServer
from .conftest import open_image
from .parsing._documents import text_pdf

NO_CHROMIUM = BrowserConfig(executable_path="/nonexistent/chromium")
INVOICE = {
    "template": "invoice",
    "data": {
        "company_name": "Northwind",
        "client_name": "Contoso",
        "invoice_number": "INV-7",
        "line_items": [{"description": "Design", "quantity": 2, "unit_price": 1500}],
    },
}
PAGE = b"<html><body style='margin:0;background:#0a0'><h1>twin</h1></body></html>"


def pdf_text(content: bytes) -> str:
    document = pypdfium2.PdfDocument(content)
    try:
        return "".join(page.get_textpage().get_text_range() for page in document)
    finally:
        document.close()


def audio_seconds(content: bytes) -> float:
    with av.open(io.BytesIO(content)) as container:
        frames = sum(frame.samples for frame in container.decode(audio=0))
        return frames / container.streams.audio[0].sample_rate


def test_every_async_function_has_a_sync_function_and_method_twin() -> None:
    asynchronous = [
        name for name in renderkit.__all__ if inspect.iscoroutinefunction(getattr(renderkit, name))
    ]
    assert len(asynchronous) >= 5
    for name in asynchronous:
        twin = getattr(renderkit.sync, name, None)
        method = getattr(Renderkit, name, None)
        assert callable(twin) and not inspect.iscoroutinefunction(twin), name
        assert callable(method) and not inspect.iscoroutinefunction(method), name
        assert name in renderkit.sync.__all__


def test_the_five_twins_import_from_renderkit_sync() -> None:
    from renderkit.sync import parse, render_pdf, screenshot, synthesize

    assert all(map(callable, (parse, render_pdf, screenshot, synthesize, render_image)))


def test_speech_and_parsing_never_launch_chromium() -> None:
    # Chromium cannot start with this configuration: these calls succeed only because they
    # never try; the last call shows that a browser call would fail.
    with Renderkit(browser=NO_CHROMIUM) as rk:
        audio = rk.synthesize({"script": "Hello there", "format": "wav"})
        document = text_pdf([["Invoice INV-12", "Total 40.00 EUR"]])
        parsed = rk.parse(ParseRequest.from_bytes(document, "application/pdf"))
        with pytest.raises(BrowserUnavailableError):
            rk.render_image({"template": "og-card"})
    assert audio_seconds(audio.content) > 0.3
    assert (parsed.pages, parsed.data["number"]) == (1, "INV-12")


def test_a_session_closes_the_backends_it_was_given() -> None:
    speech, extractor = FakeSpeechProvider(), FakeExtractor()
    with Renderkit(browser=NO_CHROMIUM, speech=speech, extractor=extractor) as rk:
        result = rk.synthesize({"script": "Hi", "format": "mp3"})
    assert result.provider == "fake"
    assert speech.closed and extractor.closed


def test_the_one_shot_speech_twin_decodes_to_audio_of_the_measured_length() -> None:
    result = renderkit.sync.synthesize({"script": "Hello from the sync twin", "format": "mp3"})
    assert abs(audio_seconds(result.content) - result.duration_seconds) < 0.1


def test_methods_outside_the_with_block_raise() -> None:
    with pytest.raises(RuntimeError):
        Renderkit().render_image({"template": "og-card"})


@pytest.mark.browser
def test_sync_facade_reuses_one_browser_for_several_renders() -> None:
    with Renderkit(browser=BrowserConfig(slots=1)) as rk:
        first = rk.render_image({"template": "og-card", "data": {"title": "one"}})
        second = rk.render_image({"template": "twitter-card", "scale": 1})
    assert open_image(first.content).size == (2400, 1260)
    assert open_image(second.content).size == (800, 418)


@pytest.mark.browser
def test_one_shot_sync_render() -> None:
    result = render_image({"template": "announcement", "format": "jpeg", "scale": 1})
    assert open_image(result.content).size == (1200, 400)


@pytest.mark.browser
def test_each_session_method_produces_a_real_file(http_server: LocalServer) -> None:
    http_server.routes["/page"] = (200, "text/html", PAGE)
    config = BrowserConfig(slots=1, allow_private_network=True)
    with Renderkit(browser=config) as rk:
        image = rk.render_image({"template": "og-card", "scale": 1})
        pdf = rk.render_pdf(INVOICE)
        shot = rk.screenshot(
            {"url": http_server.url("/page"), "viewport": {"width": 640, "height": 480}}
        )
        audio = rk.synthesize({"script": "Hello there", "format": "mp3"})
        parsed = rk.parse(ParseRequest.from_bytes(pdf.content, "application/pdf"))
    assert open_image(image.content).size == (1200, 630)
    assert "Contoso" in pdf_text(pdf.content) and pdf.pages == 1
    screenshot = open_image(shot.content)
    assert screenshot.size == (640, 480)
    assert screenshot.getpixel((5, 470))[:3] == (0, 170, 0)
    assert audio_seconds(audio.content) > 0.3
    assert (parsed.document_type, parsed.data["number"], parsed.pages) == ("invoice", "INV-7", 1)


@pytest.mark.browser
def test_each_one_shot_function_produces_a_real_file(http_server: LocalServer) -> None:
    http_server.routes["/page"] = (200, "text/html", PAGE)
    pdf = renderkit.sync.render_pdf(INVOICE)
    shot = renderkit.sync.screenshot(
        {"url": http_server.url("/page"), "format": "jpeg"},
        browser=BrowserConfig(slots=1, allow_private_network=True),
    )
    parsed = renderkit.sync.parse(ParseRequest.from_bytes(pdf.content, "application/pdf"))
    assert "Northwind" in pdf_text(pdf.content)
    assert open_image(shot.content).size == (1280, 800)
    assert parsed.data["number"] == "INV-7"


@pytest.mark.browser
def test_the_facade_works_where_an_event_loop_is_already_running() -> None:
    # As in a Jupyter cell: the caller's thread runs a loop, the facade runs its own.
    async def cell() -> tuple[int, int]:
        with Renderkit(browser=BrowserConfig(slots=1)) as rk:
            return open_image(rk.render_image({"template": "og-card", "scale": 1}).content).size

    assert asyncio.run(cell()) == (1200, 630)
