"""A misspelt option is a 400 INVALID_FIELD naming it, with a suggestion, and costs nothing.

One case per endpoint family (REST endpoints and the MCP tool call), each at a different level
of the request: top level, ``data``, a line item, the viewport.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser, FakeExtractor, FakeSpeechProvider
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .conftest import issue_key

pytestmark = pytest.mark.anyio

PDF = base64.b64encode(b"%PDF-1.7\n").decode()


@pytest.fixture
async def client(make_settings: Callable[..., Settings]) -> AsyncIterator[AsyncTestClient]:
    app = create_app(
        make_settings(mcp_allowed_hosts=("testserver.local",)),
        browser=FakeBrowser(),
        mailer=MemoryMailer(),
        speech=FakeSpeechProvider(),
        extractor=FakeExtractor(),
    )
    async with AsyncTestClient(app) as test_client:
        yield test_client


async def usage(client: AsyncTestClient, key: str) -> dict[str, int]:
    services: Any = client.app.state.services
    return await services.quotas.usage(services.keys.verify(key).key_id)


@pytest.mark.parametrize(
    ("path", "body", "field", "suggestion"),
    [
        ("/api/image", {"template": "og-card", "qualty": 80}, "qualty", "quality"),
        (
            "/api/pdf-gen",
            {"template": "invoice", "data": {"items": [{"unit_price": 2, "quantiy": 3}]}},
            "data.line_items[0].quantiy",
            "quantity",
        ),
        (
            "/v1/screenshot",
            {"url": "https://example.com", "fullpage": True},
            "fullpage",
            "fullPage",
        ),
        (
            "/api/screenshot",
            {"url": "https://example.com", "viewport": {"width": 800, "heigth": 600}},
            "viewport.heigth",
            "height",
        ),
        ("/api/audio", {"script": "Hello", "voice": "en-us"}, "voice", "voice_id"),
        (
            "/api/parse",
            {"file": PDF, "mimeType": "application/pdf", "provenance": True},
            "provenance",
            "include_provenance",
        ),
    ],
)
async def test_a_misspelt_option_is_400_invalid_field_with_a_suggestion_and_costs_nothing(
    client: AsyncTestClient, path: str, body: dict[str, Any], field: str, suggestion: str
) -> None:
    key = await issue_key(client)
    response = await client.post(path, json=body, headers={"X-SVC-Key": key})
    assert response.status_code == 400, response.text
    envelope = response.json()
    assert envelope["code"] == "INVALID_FIELD"
    assert envelope["status"] == 400
    assert field in envelope["error"] and suggestion in envelope["error"]
    assert {"field": field, "suggestion": suggestion}.items() <= envelope["fields"][0].items()
    assert not any((await usage(client, key)).values())


async def test_an_unknown_field_beside_a_missing_one_is_still_invalid_field(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    response = await client.post(
        "/api/screenshot", json={"fullpage": True}, headers={"X-SVC-Key": key}
    )
    envelope = response.json()
    assert envelope["code"] == "INVALID_FIELD"
    assert [f["field"] for f in envelope["fields"]] == ["fullpage", "url"]


async def test_a_misspelt_tool_argument_is_an_error_result_naming_it_and_costs_nothing(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "take_screenshot",
            "arguments": {"url": "https://example.com", "fullpage": True},
        },
    }
    response = await client.post(
        "/api/mcp",
        json=call,
        headers={"X-SVC-Key": key, "Accept": "application/json, text/event-stream"},
    )
    result = response.json()["result"]
    assert result["isError"] is True
    envelope = json.loads(result["content"][0]["text"].split("\n", 1)[1])
    assert envelope["code"] == "INVALID_FIELD"
    assert envelope["fields"][0]["field"] == "fullpage"
    assert envelope["fields"][0]["suggestion"] == "fullPage"
    assert not any((await usage(client, key)).values())


async def test_usage_does_record_a_successful_call(client: AsyncTestClient) -> None:
    """The control for the checks above: the usage they read does count charged calls."""
    key = await issue_key(client)
    response = await client.post(
        "/api/image", json={"template": "og-card", "quality": 80}, headers={"X-SVC-Key": key}
    )
    assert response.status_code == 200
    assert (await usage(client, key))["images"] == 1
