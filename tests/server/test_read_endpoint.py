"""POST /api/read (and /api/screenshot asked for text), and the MCP tool read_url, through a
real Chromium against the fixture pages served on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from litestar.testing import AsyncTestClient

from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._server import LocalServer, serve
from tests.reading._pages import PAGE_NAMES, expected_text, page_html, score
from tests.server.conftest import ADMIN, issue_key

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

HOST = "testserver.local"
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def site() -> Iterator[LocalServer]:
    with serve() as server:
        for name in PAGE_NAMES:
            server.routes[f"/{name}"] = (200, "text/html; charset=utf-8", page_html(name))
        yield server


@pytest.fixture(scope="module")
async def client(
    anyio_backend: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[AsyncTestClient]:
    # One app and one browser for the module: the app closes its browser when it stops.
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("read-data"),
        admin_token=ADMIN,
        allow_private_urls=True,
        secret="test-secret-that-is-long-enough",
        mcp_allowed_hosts=(HOST,),
    )
    pool = ChromiumPool(BrowserConfig(slots=2, allow_private_network=True, render_timeout=20))
    app = create_app(settings, browser=pool, mailer=MemoryMailer())
    async with AsyncTestClient(app, timeout=60) as test_client:
        yield test_client


@pytest.fixture(scope="module")
async def keys(client: AsyncTestClient) -> tuple[str, str]:
    # Two key lineages for the module (issuing keys is rate limited per client), on a plan
    # whose burst limit the module's calls stay under.
    return (
        await issue_key(client, plan="business", email="reader@example.com"),
        await issue_key(client, plan="business", email="other@example.com"),
    )


async def _post(client: AsyncTestClient, path: str, key: str, body: dict[str, Any]) -> Any:
    response = await client.post(path, json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("path", ["/api/read", "/v1/read"])
async def test_a_read_answers_the_markdown_metadata_urls_and_a_stored_copy(
    client: AsyncTestClient, site: LocalServer, keys: tuple[str, str], path: str
) -> None:
    key = keys[0]
    body = await _post(client, path, key, {"url": site.url("/news")})
    found = score(expected_text("news"), body["markdown"])
    assert found.precision >= 0.9 and found.recall >= 0.9
    assert body["format"] == "markdown"
    assert body["metadata"]["title"] == "Harbour bridge reopens after two-year repair"
    assert body["metadata"]["language"] == "en-GB"
    assert body["metadata"]["canonical_url"] == site.url("/news/2026/harbour-bridge-reopens")
    assert body["metadata"]["og"]["type"] == "article"
    assert body["requested_url"] == body["final_url"] == site.url("/news")
    assert body["http_status"] == 200
    assert (body["credits_used"], body["cached"]) == (1, False)
    stored = urlsplit(body["url"])
    copy = await client.get(f"{stored.path}?{stored.query}")
    assert copy.status_code == 200
    assert copy.headers["content-type"].startswith("text/markdown")
    assert copy.text == body["markdown"]
    assert body["size_bytes"] == len(body["markdown"].encode())


@pytest.mark.parametrize("fmt", ["markdown", "html", "text"])
async def test_a_screenshot_asked_as_text_is_answered_as_a_read(
    client: AsyncTestClient, site: LocalServer, keys: tuple[str, str], fmt: str
) -> None:
    key = keys[0]
    body = await _post(client, "/api/screenshot", key, {"url": site.url("/docs"), "format": fmt})
    assert body["format"] == fmt
    assert "Calls that are never retried" in body[fmt]
    assert not ({"markdown", "html", "text"} - {fmt}) & set(body)  # only the asked format
    assert "width" not in body  # a read, not an image


async def test_reads_are_cached_per_key_and_per_format(
    client: AsyncTestClient, site: LocalServer, keys: tuple[str, str]
) -> None:
    first_key, other_key = keys
    request = {"url": site.url("/essay"), "cacheTtl": 3600}
    first = await _post(client, "/api/read", first_key, request)
    again = await _post(client, "/api/read", first_key, request)
    assert (again["cached"], again["credits_used"]) == (True, 0)
    assert again["markdown"] == first["markdown"]
    assert again["metadata"] == first["metadata"]
    as_text = await _post(client, "/api/read", first_key, {**request, "format": "text"})
    assert as_text["cached"] is False and "text" in as_text
    other = await _post(client, "/api/read", other_key, request)
    assert other["cached"] is False  # another key's read is never its answer


async def test_a_read_refused_by_a_status_is_400_and_charges_nothing(
    client: AsyncTestClient, site: LocalServer, keys: tuple[str, str]
) -> None:
    key = keys[0]
    response = await client.post(
        "/api/read",
        json={"url": site.url("/missing"), "failOnStatus": ["400-499"]},
        headers={"X-SVC-Key": key},
    )
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_FIELD"


def _init(version: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "read-test", "version": "1.0"},
        },
    }


async def _call_tool(
    client: AsyncTestClient, key: str, arguments: dict[str, Any], version: str = "2025-11-25"
) -> dict[str, Any]:
    headers = {**ACCEPT, "X-SVC-Key": key}
    init = await client.post("/api/mcp", json=_init(version), headers=headers)
    headers["Mcp-Session-Id"] = init.headers["mcp-session-id"]
    headers["MCP-Protocol-Version"] = version
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "read_url", "arguments": arguments},
    }
    response = await client.post("/api/mcp", json=call, headers=headers)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


async def test_the_read_url_tool_answers_markdown_text_then_metadata_and_a_resource_link(
    client: AsyncTestClient, site: LocalServer, keys: tuple[str, str]
) -> None:
    key = keys[0]
    result = await _call_tool(client, key, {"url": site.url("/recipe")})
    assert result["isError"] is False
    markdown, facts, link = result["content"]
    assert markdown["type"] == "text"
    assert markdown["text"].startswith("# Lentil soup with lemon and cumin")
    assert "- 250 g red lentils, rinsed" in markdown["text"]
    described = json.loads(facts["text"])
    assert "markdown" not in described  # the text is the block above, not repeated
    assert described["metadata"]["canonical_url"] == (
        "https://weeknight.example.com/recipes/lentil-soup"
    )
    assert link["type"] == "resource_link" and link["mimeType"] == "text/markdown"
    assert link["uri"] == result["structuredContent"]["url"]
    assert result["structuredContent"]["markdown"] == markdown["text"]


async def test_the_read_url_tool_sends_no_embedded_copy_to_older_clients(
    client: AsyncTestClient, site: LocalServer, keys: tuple[str, str]
) -> None:
    key = keys[0]
    result = await _call_tool(client, key, {"url": site.url("/blog")}, version="2025-03-26")
    assert [block["type"] for block in result["content"]] == ["text", "text"]
    assert "Why I stopped using tabs" in result["content"][0]["text"]


async def test_the_read_url_tool_lists_a_schema_an_agent_can_fill(
    client: AsyncTestClient,
) -> None:
    headers = {**ACCEPT}
    init = await client.post("/api/mcp", json=_init("2025-11-25"), headers=headers)
    headers["Mcp-Session-Id"] = init.headers["mcp-session-id"]
    headers["MCP-Protocol-Version"] = "2025-11-25"
    listed = await client.post(
        "/api/mcp",
        json={"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        headers=headers,
    )
    tools = {tool["name"]: tool for tool in listed.json()["result"]["tools"]}
    read = tools["read_url"]
    assert read["inputSchema"]["required"] == ["url"]
    assert read["inputSchema"]["properties"]["format"]["enum"] == ["markdown", "html", "text"]
    assert "inline" not in read["inputSchema"]["properties"]
    assert read["annotations"]["readOnlyHint"] is True
    assert read["annotations"]["openWorldHint"] is True
    assert "markdown" in read["outputSchema"]["properties"]


async def _tasks_session(client: AsyncTestClient, key: str) -> dict[str, str]:
    headers = {**ACCEPT, "X-SVC-Key": key}
    init = await client.post("/api/mcp", json=_init("2025-11-25"), headers=headers)
    return {
        **headers,
        "Mcp-Session-Id": init.headers["mcp-session-id"],
        "MCP-Protocol-Version": "2025-11-25",
    }


async def _rpc(
    client: AsyncTestClient, headers: dict[str, str], method: str, params: dict[str, Any]
) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 3, "method": method, "params": params}
    response = await client.post("/api/mcp", json=message, headers=headers)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


@pytest.mark.parametrize(
    ("tool", "path", "extra"),
    [("read_url", "/recipe", {}), ("take_screenshot", "/docs", {"format": "markdown"})],
)
async def test_a_reading_task_answers_the_markdown_first_as_the_direct_call_does(
    client: AsyncTestClient,
    site: LocalServer,
    keys: tuple[str, str],
    tool: str,
    path: str,
    extra: dict[str, Any],
) -> None:
    headers = await _tasks_session(client, keys[0])
    call = {"name": tool, "arguments": {"url": site.url(path), **extra}}
    direct = await _rpc(client, headers, "tools/call", call)
    created = await _rpc(client, headers, "tools/call", {**call, "task": {}})
    task = await _rpc(client, headers, "tasks/result", {"taskId": created["task"]["taskId"]})

    related = task["_meta"]["io.modelcontextprotocol/related-task"]
    assert related == {"taskId": created["task"]["taskId"]}
    for result in (direct, task):
        markdown, facts, link = result["content"]
        described = json.loads(facts["text"])
        assert markdown["text"] == result["structuredContent"]["markdown"]
        assert "markdown" not in described
        assert described["format"] == "markdown"
        assert link["type"] == "resource_link" and link["mimeType"] == "text/markdown"
        assert link["uri"] == described["url"] == result["structuredContent"]["url"]
        assert link["size"] == len(markdown["text"].encode())
        stored = urlsplit(link["uri"])
        assert (await client.get(f"{stored.path}?{stored.query}")).text == markdown["text"]
    assert task["content"][0] == direct["content"][0]


@pytest.fixture
async def strict_client(make_settings: Callable[..., Settings]) -> AsyncIterator[AsyncTestClient]:
    # The operator's default: private addresses refused, by the browser's egress proxy.
    pool = ChromiumPool(BrowserConfig(slots=1))
    settings = make_settings(mcp_allowed_hosts=(HOST,), allow_private_urls=False)
    app = create_app(settings, browser=pool, mailer=MemoryMailer())
    async with AsyncTestClient(app, timeout=60) as test_client:
        yield test_client


async def test_read_url_refuses_a_private_address_and_never_reaches_it(
    strict_client: AsyncTestClient,
) -> None:
    with serve() as private:
        private.routes["/"] = (200, "text/html", page_html("news"))
        key = await issue_key(strict_client)
        result = await _call_tool(strict_client, key, {"url": private.url("/")})
        assert result["isError"] is True
        assert "BLOCKED_URL" in result["content"][0]["text"]
        response = await strict_client.post(
            "/api/read", json={"url": private.url("/")}, headers={"X-SVC-Key": key}
        )
        assert response.status_code == 400
        assert response.json()["code"] == "BLOCKED_URL"
        assert private.hits == []
