"""The MCP endpoint driven by the official Python SDK client, against a real server.

uvicorn serves the app on 127.0.0.1 with everything real: Chromium, espeak-ng, Tesseract,
SQLite and local files. The client connects in ``legacy`` mode (the initialize handshake), in
``auto`` mode (it probes ``server/discover`` and, finding the stateless 2026-07-28 revision,
uses it) and in ``2026-07-28`` mode, lists the tools, calls each one and downloads the file
behind the returned link.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
import socket
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import av
import httpx
import httpx2
import pypdfium2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning
from PIL import Image

from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._server import LocalServer, serve
from tests.parsing._documents import text_pdf
from tests.server.conftest import ADMIN

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

PAGE = b"""<!doctype html><html><head><title>Agent page</title></head>
<body style="margin:0;background:#0b6e4f;color:white;font:48px sans-serif">
<h1>Seen by an agent</h1></body></html>"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def web_page() -> Iterator[LocalServer]:
    with serve(LocalServer(routes={"/": (200, "text/html", PAGE)})) as server:
        yield server


@pytest.fixture(scope="module")
async def server_url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    data_dir: Path = tmp_path_factory.mktemp("mcp") / "data"
    settings = Settings(
        data_dir=data_dir,
        secret="mcp-client-tests-secret-0123456789",
        admin_token=ADMIN,
        allow_private_urls=True,
        browser_slots=1,
    )
    port = _free_port()
    config = uvicorn.Config(
        create_app(settings, mailer=MemoryMailer()),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
    )
    server = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(server.serve())
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.05)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


@pytest.fixture(scope="module")
async def api_key(server_url: str) -> str:
    async with httpx.AsyncClient() as http:
        response = await http.post(
            f"{server_url}/api/keys/generate",
            json={"email": "agent@example.com", "plan": "pro"},
            headers={"Authorization": f"Bearer {ADMIN}"},
        )
    assert response.status_code == 200, response.text
    return response.json()["key"]


@contextlib.asynccontextmanager
async def _client(url: str, mode: str, key: str | None) -> AsyncIterator[Client]:
    headers = {"X-SVC-Key": key} if key else {}
    # The SDK leaves a client it was given open: close it here.
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http:
        transport = streamable_http_client(f"{url}/api/mcp", http_client=http)
        async with Client(transport, mode=mode, read_timeout_seconds=60) as client:
            yield client


async def _download(url: str) -> bytes:
    async with httpx.AsyncClient() as http:
        response = await http.get(url)
    assert response.status_code == 200, url
    return response.content


def _blocks(result: Any, kind: str) -> list[Any]:
    return [block for block in result.content if block.type == kind]


@pytest.mark.parametrize(
    ("mode", "version"),
    [
        ("legacy", "2025-11-25"),  # the initialize handshake
        ("auto", "2026-07-28"),  # probes server/discover, finds the stateless revision
        ("2026-07-28", "2026-07-28"),  # stateless only
    ],
)
async def test_the_sdk_client_negotiates_and_lists_every_tool_with_schemas(
    server_url: str, mode: str, version: str
) -> None:
    async with _client(server_url, mode, None) as client:
        assert client.protocol_version == version
        if mode != "2026-07-28":  # a pinned client skips discovery, so knows no server info
            assert client.server_info.name == "renderkit"
        listed = await client.list_tools()
        if mode == "legacy":
            with warnings.catch_warnings():  # ping is gone from 2026-07-28
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.send_ping()
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == {
        "generate_image",
        "generate_pdf",
        "generate_audio",
        "take_screenshot",
        "read_url",
        "parse_document",
        "edit_pdf",
        "read_document",
    }
    image = tools["generate_image"]
    assert image.title == "Generate an image"
    assert "template" in image.input_schema["properties"]
    assert image.output_schema["properties"]["url"]["format"] == "uri"
    assert image.annotations.read_only_hint is False
    assert tools["parse_document"].annotations.read_only_hint is True
    assert "files" in tools["edit_pdf"].input_schema["properties"]
    assert tools["edit_pdf"].annotations.read_only_hint is False
    # What an agent needs to read a document, and nothing of the field extraction.
    reading = set(tools["read_document"].input_schema["properties"])
    assert {"file", "mimeType", "max_chars"} <= reading
    assert not reading & {"schema", "hints", "include_provenance", "output"}
    assert tools["read_document"].annotations.read_only_hint is True


@pytest.mark.parametrize("mode", ["legacy", "auto", "2026-07-28"])
async def test_generate_image_returns_a_preview_and_a_link_to_the_full_file(
    server_url: str, api_key: str, mode: str
) -> None:
    arguments = {"template": "og-card", "data": {"title": "Made by an agent"}, "scale": 1}
    async with _client(server_url, mode, api_key) as client:
        result = await client.call_tool("generate_image", arguments)
    assert result.is_error is False, result.content
    structured = result.structured_content
    assert (structured["width"], structured["height"]) == (1200, 630)
    (image,) = _blocks(result, "image")
    assert image.mime_type == "image/jpeg"
    preview = Image.open(io.BytesIO(base64.b64decode(image.data)))
    assert preview.size == (512, 269)
    (link,) = _blocks(result, "resource_link")
    assert str(link.uri) == structured["url"]
    assert link.mime_type == "image/png"
    full = await _download(structured["url"])
    assert Image.open(io.BytesIO(full)).size == (1200, 630)
    assert len(base64.b64decode(image.data)) * 3 < len(full)


async def test_generate_image_inlines_the_full_file_when_asked(
    server_url: str, api_key: str
) -> None:
    arguments = {"template": "og-card", "data": {"title": "Full size"}, "scale": 1}
    async with _client(server_url, "legacy", api_key) as client:
        result = await client.call_tool("generate_image", {**arguments, "inline": "full"})
    assert result.is_error is False, result.content
    (image,) = _blocks(result, "image")
    inline = base64.b64decode(image.data)
    assert Image.open(io.BytesIO(inline)).size == (1200, 630)
    assert await _download(result.structured_content["url"]) == inline


async def test_generate_pdf_links_a_real_pdf(server_url: str, api_key: str) -> None:
    arguments = {
        "template": "invoice",
        "data": {
            "invoice_number": "MCP-7",
            "company_name": "ACME",
            "client_name": "Agent Smith",
            "line_items": [{"description": "Consulting", "quantity": 3, "unit_price": 120}],
        },
    }
    async with _client(server_url, "legacy", api_key) as client:
        result = await client.call_tool("generate_pdf", arguments)
    assert result.is_error is False, result.content
    (link,) = _blocks(result, "resource_link")
    assert link.mime_type == "application/pdf"
    content = await _download(str(link.uri))
    pdf = pypdfium2.PdfDocument(content)
    assert len(pdf) == result.structured_content["pages"] == 1
    assert "MCP-7" in pdf[0].get_textpage().get_text_range()


async def test_generate_audio_returns_playable_speech(server_url: str, api_key: str) -> None:
    arguments = {"script": "Hello from an agent. This is renderkit speaking.", "format": "mp3"}
    async with _client(server_url, "auto", api_key) as client:
        result = await client.call_tool("generate_audio", arguments)
    assert result.is_error is False, result.content
    (audio,) = _blocks(result, "audio")
    assert audio.mime_type == "audio/mpeg"
    with av.open(io.BytesIO(base64.b64decode(audio.data))) as container:
        stream = container.streams.audio[0]
        assert stream.codec_context.name.startswith("mp3")
        assert stream.sample_rate == 44100
    assert result.structured_content["duration_seconds"] > 1.0
    (link,) = _blocks(result, "resource_link")
    assert len(await _download(str(link.uri))) == result.structured_content["size_bytes"]


async def test_take_screenshot_captures_the_page(
    server_url: str, api_key: str, web_page: LocalServer
) -> None:
    arguments = {"url": web_page.url("/"), "device": "desktop"}
    async with _client(server_url, "legacy", api_key) as client:
        result = await client.call_tool("take_screenshot", arguments)
    assert result.is_error is False, result.content
    structured = result.structured_content
    assert structured["http_status"] == 200
    (link,) = _blocks(result, "resource_link")
    shot = Image.open(io.BytesIO(await _download(str(link.uri)))).convert("RGB")
    assert shot.size == (structured["width"], structured["height"])
    assert shot.getpixel((shot.width - 5, shot.height - 5)) == (11, 110, 79)  # the page colour


async def test_parse_document_returns_the_fields_as_structured_content(
    server_url: str, api_key: str
) -> None:
    pdf = text_pdf([["ACME TRADING LTD", "INVOICE", "Invoice No: INV-77", "Total EUR 42.50"]])
    arguments = {"file": base64.b64encode(pdf).decode(), "mimeType": "application/pdf"}
    async with _client(server_url, "auto", api_key) as client:
        result = await client.call_tool("parse_document", arguments)
    assert result.is_error is False, result.content
    data = result.structured_content["data"]
    assert data["number"] == "INV-77"
    assert data["total"] == 42.5
    assert _blocks(result, "resource_link") == []  # parse produces data, not a file


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_read_document_returns_the_markdown_as_text_and_links_it_stored(
    server_url: str, api_key: str, mode: str
) -> None:
    lines = ["Quarterly minutes", "The board met on Monday and approved the budget.", "Next"]
    pdf = text_pdf([lines, ["Second page of the minutes, kept for the record."]])
    arguments = {"file": base64.b64encode(pdf).decode(), "mimeType": "application/pdf"}
    async with _client(server_url, mode, api_key) as client:
        result = await client.call_tool("read_document", arguments)
    assert result.is_error is False, result.content
    markdown = result.content[0].text
    assert "The board met on Monday and approved the budget." in markdown
    assert markdown.index("<!-- page 1 -->") < markdown.index("<!-- page 2 -->")
    assert markdown.index("approved the budget") < markdown.index("Second page")
    blocks = result.structured_content["blocks"]
    assert {b["page"] for b in blocks} == {1, 2}
    assert all(b["text"] in markdown for b in blocks)
    described = json.loads(result.content[1].text)
    assert "markdown" not in described and "blocks" not in described
    assert described["omitted"] == {"blocks": len(blocks)}
    (link,) = _blocks(result, "resource_link")
    assert link.mime_type == "text/markdown"
    assert (await _download(str(link.uri))).decode() == markdown


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_read_url_returns_the_page_as_markdown_then_its_facts_and_a_link(
    server_url: str, api_key: str, web_page: LocalServer, mode: str
) -> None:
    async with _client(server_url, mode, api_key) as client:
        result = await client.call_tool("read_url", {"url": web_page.url("/")})
    assert result.is_error is False, result.content
    markdown = result.content[0].text
    assert "Seen by an agent" in markdown
    assert markdown == result.structured_content["markdown"]
    described = json.loads(result.content[1].text)
    assert "markdown" not in described
    assert described["metadata"]["title"] == "Agent page"
    (link,) = _blocks(result, "resource_link")
    assert link.mime_type == "text/markdown"
    assert (await _download(str(link.uri))).decode() == markdown


async def test_read_document_refuses_the_arguments_it_sets_itself(
    server_url: str, api_key: str
) -> None:
    pdf = text_pdf([["A short page of text to read back."]])
    arguments = {
        "file": base64.b64encode(pdf).decode(),
        "mimeType": "application/pdf",
        "output": "fields",
    }
    async with _client(server_url, "legacy", api_key) as client:
        result = await client.call_tool("read_document", arguments)
    assert result.is_error is True
    assert "output" in result.content[0].text


async def test_a_tool_call_without_a_key_is_an_error_result_the_agent_can_read(
    server_url: str,
) -> None:
    async with _client(server_url, "legacy", None) as client:
        result = await client.call_tool("generate_image", {"template": "og-card"})
    assert result.is_error is True
    assert "API key" in result.content[0].text


async def test_bad_arguments_are_an_error_result_naming_the_field(
    server_url: str, api_key: str
) -> None:
    async with _client(server_url, "legacy", api_key) as client:
        result = await client.call_tool("generate_image", {"template": "og-card", "quality": 0})
    assert result.is_error is True
    assert "quality" in result.content[0].text
