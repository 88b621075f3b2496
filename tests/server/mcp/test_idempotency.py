"""An agent's retried ``tools/call`` is safe: with an ``Idempotency-Key`` header on the POST,
or the ``io.renderkit/idempotency-key`` entry of the call's ``_meta``, the same call again
gets the first result without new work or charge."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import httpx2
import pytest
from litestar.testing import AsyncTestClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.mcp.transport import META_IDEMPOTENCY_KEY
from renderkit_server.settings import Settings
from tests._uvicorn import served_app
from tests.server.conftest import issue_key

pytestmark = pytest.mark.anyio

ACCEPT = {"Accept": "application/json, text/event-stream"}
ARGUMENTS = {"template": "og-card", "data": {"title": "Agent"}, "scale": 1, "inline": "none"}


def _call(id_: int, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> Any:
    params: dict[str, Any] = {"name": "generate_image", "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}


@pytest.fixture
def browser() -> FakeBrowser:
    return FakeBrowser()


@pytest.fixture
async def mcp(
    make_settings: Callable[..., Settings], browser: FakeBrowser
) -> AsyncIterator[AsyncTestClient]:
    settings = make_settings(cache_ttl_seconds=0, mcp_allowed_hosts=("testserver.local",))
    app = create_app(settings, browser=browser, mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        yield client


async def _tool(client: AsyncTestClient, key: str, body: Any, idem: str | None = None) -> Any:
    headers = {**ACCEPT, "X-SVC-Key": key, "MCP-Protocol-Version": "2025-06-18"}
    if idem is not None:
        headers["Idempotency-Key"] = idem
    return await client.post("/api/mcp", json=body, headers=headers)


async def _used(client: AsyncTestClient, key: str) -> Any:
    usage = await client.get("/api/usage", headers={"X-SVC-Key": key})
    return usage.json()["metrics"]["images"]["used"]


async def test_a_retried_call_with_the_header_gets_the_first_result_under_its_own_id(
    mcp: AsyncTestClient, browser: FakeBrowser
) -> None:
    key = await issue_key(mcp)
    first = await _tool(mcp, key, _call(1, ARGUMENTS), idem="call-1")
    again = await _tool(mcp, key, _call(2, ARGUMENTS), idem="call-1")

    assert first.status_code == 200, first.text
    assert first.json()["result"] == again.json()["result"]
    assert again.json()["id"] == 2
    assert again.headers["idempotent-replayed"] == "true"
    assert not again.json()["result"].get("isError")
    assert len(browser.renders) == 1
    assert await _used(mcp, key) == 1


async def test_a_retried_call_with_the_meta_key_gets_the_first_result(
    mcp: AsyncTestClient, browser: FakeBrowser
) -> None:
    key = await issue_key(mcp)
    meta = {META_IDEMPOTENCY_KEY: "call-2"}
    first = await _tool(mcp, key, _call(1, ARGUMENTS, meta))
    again = await _tool(mcp, key, _call(2, ARGUMENTS, meta))

    assert first.json()["result"] == again.json()["result"]
    assert len(browser.renders) == 1


async def test_the_same_key_on_another_call_is_a_tool_error_naming_it(
    mcp: AsyncTestClient, browser: FakeBrowser
) -> None:
    key = await issue_key(mcp)
    await _tool(mcp, key, _call(1, ARGUMENTS), idem="call-3")
    other = {**ARGUMENTS, "data": {"title": "Another"}}

    conflict = (await _tool(mcp, key, _call(2, other), idem="call-3")).json()["result"]

    assert conflict["isError"] is True
    envelope = json.loads(conflict["content"][0]["text"].splitlines()[-1])
    assert envelope["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert envelope["field"] == "Idempotency-Key"
    assert len(browser.renders) == 1


async def test_calls_without_a_key_run_every_time(
    mcp: AsyncTestClient, browser: FakeBrowser
) -> None:
    key = await issue_key(mcp)
    for id_ in (1, 2):
        await _tool(mcp, key, _call(id_, ARGUMENTS))

    assert len(browser.renders) == 2


async def test_a_missing_api_key_is_not_stored(mcp: AsyncTestClient, browser: FakeBrowser) -> None:
    headers = {**ACCEPT, "MCP-Protocol-Version": "2025-06-18", "Idempotency-Key": "call-4"}
    refused = await mcp.post("/api/mcp", json=_call(1, ARGUMENTS), headers=headers)
    key = await issue_key(mcp)
    accepted = await _tool(mcp, key, _call(2, ARGUMENTS), idem="call-4")

    assert refused.json()["result"]["isError"] is True
    assert not accepted.json()["result"].get("isError")
    assert "idempotent-replayed" not in accepted.headers
    assert len(browser.renders) == 1


@contextlib.asynccontextmanager
async def _sdk(url: str, key: str) -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(headers={"X-SVC-Key": key}, timeout=30.0) as http:
        transport = streamable_http_client(f"{url}/api/mcp", http_client=http)
        async with Client(transport, mode="legacy", read_timeout_seconds=30) as client:
            yield client


async def test_the_sdk_clients_retry_with_meta_is_answered_once(
    make_settings: Callable[..., Settings], browser: FakeBrowser
) -> None:
    app = create_app(make_settings(cache_ttl_seconds=0), browser=browser, mailer=MemoryMailer())
    async with served_app(app) as http:
        key = (await http.post("/api/keys/generate", json={"email": "a@example.com"})).json()
        url = str(http.base_url).rstrip("/")
        async with _sdk(url, key["key"]) as client:
            meta = {META_IDEMPOTENCY_KEY: "sdk-call"}
            first = await client.call_tool("generate_image", ARGUMENTS, meta=meta)
            again = await client.call_tool("generate_image", ARGUMENTS, meta=meta)
        async with httpx.AsyncClient(base_url=url) as plain:
            usage = await plain.get("/api/usage", headers={"X-SVC-Key": key["key"]})

    assert not first.is_error
    assert again.structured_content == first.structured_content
    assert len(browser.renders) == 1
    assert usage.json()["metrics"]["images"]["used"] == 1
