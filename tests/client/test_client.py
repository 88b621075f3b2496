"""renderkit.Client and AsyncClient against a real ``renderkit serve`` app: uvicorn on
127.0.0.1 in a thread, real Chromium, local speech and the local extractor."""

from __future__ import annotations

import io
import socket
import struct
import threading
import time
import wave
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import renderkit
from renderkit import (
    AsyncClient,
    AudioResult,
    Client,
    ImageRequest,
    ImageResult,
    InvalidRequestError,
    ParseResult,
    PdfResult,
    RateLimitError,
    ReadResult,
    ScreenshotResult,
)
from renderkit.core.retry import RetryPolicy
from renderkit_server.app import create_app
from renderkit_server.settings import Settings

from .._server import serve
from .._sleeps import Sleeps
from ..parsing._documents import text_pdf
from ..pdf._einvoice_data import sample
from ..reading._pages import page_html

ADMIN = "admin-token-for-the-client-tests-0123"

pytestmark = pytest.mark.browser


class Served:
    """The served app's base URL and keys: an unlimited one and one with no parses left."""

    def __init__(self, base: str, vip: str, no_parses: str) -> None:
        self.base = base
        self.vip = vip
        self.no_parses = no_parses


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    app = create_app(
        Settings(
            data_dir=Path(tmp_path_factory.mktemp("data")),
            admin_token=ADMIN,
            secret="client-tests-secret-long-enough-0123",
            allow_private_urls=True,
            plans={"pro": {"parses": 0}},
            render_timeout=30,
        )
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = __import__("uvicorn").Server(
        __import__("uvicorn").Config(app, host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started, "uvicorn did not start"
        keys = {}
        for plan in ("vip", "pro"):
            response = httpx.post(
                f"{base}/api/keys/generate",
                json={"email": f"{plan}@example.com", "plan": plan},
                headers={"Authorization": f"Bearer {ADMIN}"},
            )
            assert response.status_code == 200, response.text
            keys[plan] = response.json()["key"]
        yield Served(base, keys["vip"], keys["pro"])
    finally:
        server.should_exit = True
        thread.join(60)


@pytest.fixture(scope="module")
def client(served: Served) -> Iterator[Client]:
    with Client(served.base, served.vip) as client:
        yield client


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_render_image_returns_an_image_result_whose_png_downloads_on_first_access(
    client: Client,
) -> None:
    result = client.render_image(ImageRequest(template="og-card", data={"title": "Hello"}))

    assert isinstance(result, ImageResult)
    assert result.url is not None and result.url.startswith("http://127.0.0.1")
    assert not result.downloaded  # type: ignore[attr-defined]
    assert png_size(result.content) == (result.width, result.height)
    assert result.width / result.height == pytest.approx(1200 / 630, abs=0.01)
    assert result.downloaded  # type: ignore[attr-defined]


def test_saving_a_downloaded_result_into_a_directory_keeps_the_servers_file_name(
    client: Client, tmp_path: Path
) -> None:
    result = client.render_image({"template": "og-card", "data": {"title": "Hello World"}})
    assert result.filename == "og-card.png"  # the body does not carry the server's name

    saved = result.save(tmp_path)

    assert saved == tmp_path / "og-card-hello-world.png"  # the file URL's Content-Disposition
    assert result.filename == "og-card-hello-world.png"
    assert png_size(saved.read_bytes()) == (result.width, result.height)


def test_render_pdf_returns_a_pdf_result_with_its_pages(client: Client) -> None:
    result = client.render_pdf({"template": "letter", "data": {"body": "Dear Bob,"}})

    assert isinstance(result, PdfResult)
    assert result.pages == 1
    assert result.content.startswith(b"%PDF-")


def test_a_pdfa_request_reaches_the_client_with_its_standard_and_tagging(
    client: Client,
) -> None:
    plain = client.render_pdf({"template": "letter", "data": {"body": "Dear Bob,"}})
    result = client.render_pdf(
        {
            "template": "letter",
            "data": {"body": "Dear Bob,"},
            "pdf_standard": "PDF/A-3b",
            "tagged": True,
        }
    )

    assert (plain.pdf_standard, plain.tagged) == (None, False)
    assert (result.pdf_standard, result.tagged) == ("PDF/A-3b", True)
    assert b"pdfaid" in result.content


def test_an_xrechnung_reaches_the_client_as_its_xml_with_the_e_invoice_facts(
    client: Client,
) -> None:
    result = client.render_pdf(sample(einvoice="xrechnung"))

    assert result.format == "xml"
    assert result.content_type == "application/xml"
    assert result.einvoice == "xrechnung"
    assert result.einvoice_checks == ("xsd", "schematron-en16931", "xrechnung-br-de")
    assert result.content.startswith(b"<?xml")


def test_the_servers_warnings_reach_the_client_result(client: Client) -> None:
    image = client.render_image({"template": "og-card", "data": {"title": "Hi", "cta": "Go"}})
    pdf = client.render_pdf({"template": "invoice", "data": {"invoice_number": "1", "discount": 5}})

    assert image.warnings == ("data.cta: og-card does not display cta; it was ignored",)
    assert pdf.warnings == (
        "data.discount: invoice displays discount only with line_items; it was ignored",
    )


def test_screenshot_returns_a_screenshot_result_of_the_page(client: Client, served: Served) -> None:
    result = client.screenshot({"url": f"{served.base}/api/health", "device": "desktop"})

    assert isinstance(result, ScreenshotResult)
    assert result.http_status == 200
    assert result.source_url == f"{served.base}/api/health"
    assert png_size(result.content) == (result.width, result.height)


def test_read_page_returns_a_read_result_with_the_pages_markdown_and_metadata(
    client: Client,
) -> None:
    with serve() as site:
        site.routes["/news"] = (200, "text/html", page_html("news"))
        result = client.read_page({"url": site.url("/news")})

    assert isinstance(result, ReadResult)
    assert result.content.startswith("# Harbour bridge reopens after two-year repair")
    assert result.metadata.language == "en-GB"
    assert result.metadata.og["site_name"] == "The Coastal Courier"
    assert result.final_url == site.url("/news")
    assert result.read_at.tzinfo is not None


def test_a_screenshot_asked_as_markdown_is_refused_before_any_call(client: Client) -> None:
    with pytest.raises(InvalidRequestError) as info:
        client.screenshot({"url": "https://example.com/", "format": "markdown"})
    assert info.value.errors[0].field == "format"


def test_synthesize_returns_an_audio_result_whose_file_has_its_duration(client: Client) -> None:
    result = client.synthesize({"script": "Hello from the client.", "format": "wav"})

    assert isinstance(result, AudioResult)
    with wave.open(io.BytesIO(result.content)) as audio:
        seconds = audio.getnframes() / audio.getframerate()
    assert seconds == pytest.approx(result.duration_seconds, abs=0.05)
    assert result.duration_seconds > 0.5


def test_parse_returns_a_parse_result_with_the_fields_read(client: Client) -> None:
    import base64

    document = text_pdf([["Invoice INV-7", "Total 24.00"]])
    result = client.parse(
        {"file": base64.b64encode(document).decode(), "mimeType": "application/pdf"}
    )

    assert isinstance(result, ParseResult)
    assert result.pages == 1
    assert result.extractor == "local"
    assert 24.0 in result.data.values() or "24" in repr(result.data)


def test_parse_with_output_markdown_returns_the_document_and_its_blocks(client: Client) -> None:
    import base64

    document = text_pdf([["Minutes of the meeting", "The board approved the budget."]])
    result = client.parse(
        {
            "file": base64.b64encode(document).decode(),
            "mimeType": "application/pdf",
            "output": "markdown",
        }
    )

    assert result.output == "markdown" and result.data == {}
    assert result.markdown is not None
    assert "The board approved the budget." in result.markdown.markdown
    assert result.markdown.blocks[0].page == 1
    assert all(b.text in result.markdown.markdown for b in result.markdown.blocks)
    # The same result as the library's, so it serialises to the same body.
    assert result.to_dict()["markdown"] == result.markdown.markdown


def test_a_400_raises_invalid_request_error_naming_the_field(client: Client) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        client.render_image({"template": "og-card", "data": {"title": "x"}, "quality": 500})

    assert [e.field for e in raised.value.errors] == ["quality"]


def test_an_exhausted_quota_raises_rate_limit_error_with_retry_after_at_once(
    served: Served,
) -> None:
    started = time.monotonic()
    with Client(served.base, served.no_parses) as client, pytest.raises(RateLimitError) as raised:
        client.parse({"file": "JVBERi0=", "mimeType": "application/pdf"})

    assert raised.value.status == 429
    assert raised.value.code == "QUOTA_EXCEEDED"
    assert raised.value.retry_after is not None and raised.value.retry_after > 60
    assert time.monotonic() - started < 10  # a month's wait is not retried


class OverloadedFirst(httpx.AsyncBaseTransport):
    """Answers the first ``failures`` API calls 503 + Retry-After: 1, then the real server."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: list[float] = []
        self.real = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/api/"):
            self.calls.append(time.monotonic())
            if len(self.calls) <= self.failures:
                body = {"error": "every browser is busy", "code": "OVERLOADED", "status": 503}
                return httpx.Response(503, json=body, headers={"Retry-After": "1"})
        return await self.real.handle_async_request(request)

    async def aclose(self) -> None:
        await self.real.aclose()


@pytest.mark.anyio
async def test_a_503_is_retried_after_retry_after_and_then_succeeds(served: Served) -> None:
    transport = OverloadedFirst(failures=1)
    policy = RetryPolicy(max_retries=2, backoff=0.01, max_delay=5)
    sleeps = Sleeps()
    async with AsyncClient(
        served.base, served.vip, retry=policy, transport=transport, sleep=sleeps
    ) as client:
        result = await client.render_image({"template": "og-card", "data": {"title": "Hi"}})
        await client.download(result)

    assert len(transport.calls) == 2
    assert sleeps.delays == [1.0]  # waited what Retry-After asked, once
    assert png_size(result.content) == (result.width, result.height)


@pytest.mark.anyio
async def test_a_503_that_outlasts_the_retries_raises_browser_busy_error(served: Served) -> None:
    transport = OverloadedFirst(failures=10)
    policy = RetryPolicy(max_retries=1, backoff=0.01, max_delay=2)
    sleeps = Sleeps()
    async with AsyncClient(
        served.base, served.vip, retry=policy, transport=transport, sleep=sleeps
    ) as client:
        with pytest.raises(renderkit.BrowserBusyError) as raised:
            await client.render_image({"template": "og-card", "data": {"title": "Hi"}})

    assert raised.value.retry_after == 1.0
    assert len(transport.calls) == 2
    assert sleeps.delays == [1.0]


def test_the_file_url_is_fetched_without_the_key(client: Client, served: Served) -> None:
    result = client.render_image({"template": "og-card", "data": {"title": "Hi"}})

    assert result.url is not None
    assert served.vip not in result.url
    assert httpx.get(result.url).status_code == 200  # signed: no key needed
