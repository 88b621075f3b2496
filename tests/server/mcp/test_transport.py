"""The MCP endpoint's transport and protocol rules, one raw HTTP exchange at a time."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import jsonschema
import pytest
from litestar.testing import AsyncTestClient
from PIL import Image

from renderkit import ImageRequest, PdfRequest
from renderkit.core.schema import json_schema
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.mcp import streaming
from renderkit_server.mcp.tools import TOOLS, portable_schema
from renderkit_server.settings import Settings
from tests.server.conftest import issue_key

pytestmark = pytest.mark.anyio

ACCEPT = {"Accept": "application/json, text/event-stream"}
HOST = "testserver.local"


def _init(version: str = "2025-11-25", id_: Any = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1.0"},
        },
    }


def _rpc(method: str, id_: Any = 2, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def _app(settings: Settings, browser: Any = None) -> Any:
    return create_app(settings, browser=browser or FakeBrowser(), mailer=MemoryMailer())


@pytest.fixture
async def mcp(make_settings: Callable[..., Settings]) -> AsyncIterator[AsyncTestClient]:
    app = _app(make_settings(mcp_allowed_hosts=(HOST,)))
    async with AsyncTestClient(app) as client:
        yield client


async def _post(client: AsyncTestClient, body: Any, headers: dict[str, str] | None = None) -> Any:
    return await client.post("/api/mcp", json=body, headers={**ACCEPT, **(headers or {})})


async def _session(client: AsyncTestClient, version: str) -> dict[str, str]:
    response = await _post(client, _init(version))
    assert response.json()["result"]["protocolVersion"] == version
    return {"Mcp-Session-Id": response.headers["mcp-session-id"]}


# --- initialize and versions ------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
async def test_initialize_echoes_every_supported_revision(
    mcp: AsyncTestClient, version: str
) -> None:
    response = await _post(mcp, _init(version))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["id"] == 1
    result = body["result"]
    assert result["protocolVersion"] == version
    expected: dict[str, Any] = {"tools": {"listChanged": False}}
    if version == "2025-11-25":  # the revision with tasks: tool calls may run as one
        expected["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    assert result["capabilities"] == expected
    assert result["serverInfo"]["name"] == "renderkit"
    session = response.headers["mcp-session-id"]
    assert all(0x21 <= ord(c) <= 0x7E for c in session)


@pytest.mark.parametrize("requested", ["2099-01-01", "1.0", None])
async def test_initialize_with_an_unknown_revision_answers_the_latest(
    mcp: AsyncTestClient, requested: Any
) -> None:
    response = await _post(mcp, _init(requested))
    assert response.json()["result"]["protocolVersion"] == "2025-11-25"


async def test_initialize_ignores_the_version_header(mcp: AsyncTestClient) -> None:
    response = await _post(mcp, _init("2025-06-18"), {"MCP-Protocol-Version": "1999-01-01"})
    assert response.status_code == 200
    assert response.json()["result"]["protocolVersion"] == "2025-06-18"


async def test_an_unsupported_version_header_is_400_with_the_request_id(
    mcp: AsyncTestClient,
) -> None:
    response = await _post(mcp, _rpc("ping", id_="p-1"), {"MCP-Protocol-Version": "1999-01-01"})
    assert response.status_code == 400
    body = response.json()
    assert body["id"] == "p-1"
    assert body["error"]["code"] == -32600
    assert "2025-11-25" in body["error"]["message"]


MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1.0"},
}


def _modern(method: str, id_: Any = 1, headers: dict[str, str] | None = None, **params: Any):
    body = _rpc(method, id_=id_, _meta=ENVELOPE, **params)
    sent = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if method == "tools/call":
        sent["Mcp-Name"] = params["name"]
    return body, {**sent, **(headers or {})}


async def test_the_stateless_probe_is_answered_with_what_the_server_speaks(
    mcp: AsyncTestClient,
) -> None:
    body, headers = _modern("server/discover")
    response = await _post(mcp, body, headers)
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"] == [
        MODERN,
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
    ]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["ttlMs"] > 0
    assert result["cacheScope"] == "public"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "renderkit"
    assert "mcp-session-id" not in response.headers  # stateless: no sessions


async def test_stateless_tools_list_and_call_are_tagged_complete(mcp: AsyncTestClient) -> None:
    body, headers = _modern("tools/list")
    listed = (await _post(mcp, body, headers)).json()["result"]
    assert listed["resultType"] == "complete"
    assert len(listed["tools"]) == 8
    assert listed["cacheScope"] == "public"
    key = await issue_key(mcp)
    body, headers = _modern("tools/call", headers={"X-SVC-Key": key}, **IMAGE_CALL)
    called = (await _post(mcp, body, headers)).json()["result"]
    assert called["resultType"] == "complete"
    assert called["isError"] is False
    assert called["structuredContent"]["template"] == "og-card"


async def test_a_base64_mcp_name_header_is_decoded(mcp: AsyncTestClient) -> None:
    key = await issue_key(mcp)
    encoded = "=?base64?" + base64.b64encode(b"generate_image").decode() + "?="
    body, headers = _modern(
        "tools/call", headers={"X-SVC-Key": key, "Mcp-Name": encoded}, **IMAGE_CALL
    )
    response = await _post(mcp, body, headers)
    assert response.json()["result"]["isError"] is False


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"Mcp-Method": "tools/list"}, -32020),
        ({"MCP-Protocol-Version": "2025-11-25"}, -32020),
        ({"Mcp-Name": "take_screenshot"}, -32020),
    ],
)
async def test_stateless_headers_that_disagree_with_the_body_are_32020(
    mcp: AsyncTestClient, change: dict[str, str], code: int
) -> None:
    body, headers = _modern("tools/call", id_=7, **IMAGE_CALL)
    response = await _post(mcp, body, {**headers, **change})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert response.json()["id"] == 7


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {"io.modelcontextprotocol/protocolVersion": MODERN},
    ],
)
async def test_a_stateless_request_without_its_envelope_is_32602(
    mcp: AsyncTestClient, meta: Any
) -> None:
    body = _rpc("tools/list", id_=3, **({"_meta": meta} if meta is not None else {}))
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}
    response = await _post(mcp, body, headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32602


async def test_an_unserved_stateless_version_is_32022_listing_what_is(
    mcp: AsyncTestClient,
) -> None:
    meta = {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2027-01-01"}
    body = _rpc("server/discover", id_=4, _meta=meta)
    headers = {"MCP-Protocol-Version": "2027-01-01", "Mcp-Method": "server/discover"}
    response = await _post(mcp, body, headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022
    assert error["data"]["requested"] == "2027-01-01"
    assert MODERN in error["data"]["supported"]


@pytest.mark.parametrize("method", ["initialize", "ping", "resources/list", "unknown/method"])
async def test_handshake_and_unknown_methods_are_404_in_the_stateless_revision(
    mcp: AsyncTestClient, method: str
) -> None:
    body, headers = _modern(method, id_=9)
    response = await _post(mcp, body, headers)
    assert response.status_code == 404
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {"code": -32601, "message": f"method not found: {method}"},
    }


async def test_initialize_without_an_envelope_keeps_the_handshake_even_with_a_modern_header(
    mcp: AsyncTestClient,
) -> None:
    response = await _post(mcp, _init("2025-06-18"), {"MCP-Protocol-Version": MODERN})
    assert response.json()["result"]["protocolVersion"] == "2025-06-18"


# --- methods ------------------------------------------------------------------------------------


async def test_ping_answers_an_empty_result_echoing_a_string_id(mcp: AsyncTestClient) -> None:
    response = await _post(mcp, {"jsonrpc": "2.0", "id": "123", "method": "ping"})
    assert response.json() == {"jsonrpc": "2.0", "id": "123", "result": {}}


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}},
        {"jsonrpc": "2.0", "method": "notifications/some-future-thing"},
        {"jsonrpc": "2.0", "id": 9, "result": {}},  # a client's response to a server request
    ],
)
async def test_notifications_and_responses_get_202_with_an_empty_body(
    mcp: AsyncTestClient, message: dict[str, Any]
) -> None:
    response = await _post(mcp, message)
    assert response.status_code == 202
    assert response.content == b""


async def test_tools_list_needs_no_key_and_generates_schemas_from_the_request_models(
    mcp: AsyncTestClient,
) -> None:
    headers = await _session(mcp, "2025-11-25")
    response = await _post(mcp, _rpc("tools/list"), headers)
    tools = {tool["name"]: tool for tool in response.json()["result"]["tools"]}
    assert list(tools) == [
        "generate_image",
        "generate_pdf",
        "generate_audio",
        "take_screenshot",
        "read_url",
        "parse_document",
        "edit_pdf",
        "read_document",
    ]
    # The request model's schema, plus `inline` where the result can be an image.
    image_schema = tools["generate_image"]["inputSchema"]
    inline = image_schema["properties"].pop("inline")
    assert image_schema == portable_schema(json_schema(ImageRequest))
    assert inline["enum"] == ["preview", "full", "none"] and inline["default"] == "preview"
    assert "512 px" in inline["description"]
    assert "inline" in tools["take_screenshot"]["inputSchema"]["properties"]
    assert tools["generate_pdf"]["inputSchema"] == portable_schema(json_schema(PdfRequest))
    for tool in tools.values():
        assert tool["title"]
        assert len(tool["description"]) > 80
        assert tool["inputSchema"]["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])
        assert tool["annotations"]["destructiveHint"] is False
    assert tools["take_screenshot"]["annotations"]["openWorldHint"] is True


SAMPLES = [None, "", "a", "og-card", "#ff0000", "x" * 6000, 0, 5, -1, 10**9, 1.5, True, [], {}]


@pytest.mark.parametrize("name", list(TOOLS))
def test_portable_schemas_accept_exactly_what_the_generated_ones_accept(name: str) -> None:
    generated = json_schema(TOOLS[name].operation.model)
    portable = portable_schema(generated)
    assert '"type": [' not in json.dumps(portable)
    defs = generated.get("$defs", {})
    for field, schema in generated["properties"].items():
        original = jsonschema.Draft202012Validator({**schema, "$defs": defs})
        rewritten = jsonschema.Draft202012Validator(
            {**portable["properties"][field], "$defs": portable.get("$defs", {})}
        )
        for value in SAMPLES:
            assert original.is_valid(value) == rewritten.is_valid(value), (field, value)


async def test_tools_list_for_2024_11_05_leaves_out_later_fields(mcp: AsyncTestClient) -> None:
    headers = await _session(mcp, "2024-11-05")
    response = await _post(mcp, _rpc("tools/list"), headers)
    for tool in response.json()["result"]["tools"]:
        assert set(tool) == {"name", "description", "inputSchema"}


async def test_an_unknown_method_is_32601(mcp: AsyncTestClient) -> None:
    response = await _post(mcp, _rpc("resources/list", id_=5))
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32601
    assert response.json()["id"] == 5


# --- JSON-RPC errors ----------------------------------------------------------------------------


async def test_invalid_json_is_32700_with_a_null_id(mcp: AsyncTestClient) -> None:
    response = await mcp.post(
        "/api/mcp",
        content=b'{"jsonrpc": "2.0", "id": 1,',
        headers={**ACCEPT, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "parse error: the body is not JSON"},
    }


@pytest.mark.parametrize(
    ("message", "id_"),
    [
        ({"id": 1, "method": "ping"}, 1),  # no jsonrpc member
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, 1),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": 1}, 1),  # no method
        ({"jsonrpc": "2.0", "id": 1, "method": 7}, 1),
        ("ping", None),
    ],
)
async def test_messages_that_are_not_json_rpc_are_32600(
    mcp: AsyncTestClient, message: Any, id_: Any
) -> None:
    response = await _post(mcp, message)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600
    assert response.json()["id"] == id_


@pytest.mark.parametrize(
    "params",
    [
        {"arguments": {}},  # no name
        {"name": "generate_video", "arguments": {}},
        {"name": "generate_image", "arguments": ["og-card"]},
    ],
)
async def test_bad_tool_call_params_are_32602(mcp: AsyncTestClient, params: dict[str, Any]) -> None:
    response = await _post(mcp, _rpc("tools/call", **params))
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32602


async def test_params_that_are_not_an_object_are_32602(mcp: AsyncTestClient) -> None:
    response = await _post(mcp, {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": [1]})
    assert response.json()["error"]["code"] == -32602


class _BrokenBrowser(FakeBrowser):
    async def capture_fragment(self, *args: Any, **kwargs: Any) -> Any:
        msg = "a bug, not a render failure"
        raise RuntimeError(msg)


async def test_a_server_fault_is_32603_without_details_and_charges_nothing(
    make_settings: Callable[..., Settings],
) -> None:
    app = _app(make_settings(mcp_allowed_hosts=(HOST,)), browser=_BrokenBrowser())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        call = _rpc("tools/call", name="generate_image", arguments={"template": "og-card"})
        response = await _post(client, call, {"X-SVC-Key": key})
        rest = await client.post("/api/pdf-gen", json={"template": "custom", "html": "<p>x</p>"})
    body = response.json()
    assert body["error"] == {"code": -32603, "message": "internal error"}
    assert "bug" not in response.text
    assert rest.status_code == 401  # sanity: REST still needs a key


# --- transport rules ----------------------------------------------------------------------------


async def test_get_is_405_with_allow(mcp: AsyncTestClient) -> None:
    response = await mcp.get("/api/mcp", headers={"Accept": "text/event-stream"})
    assert response.status_code == 405
    assert response.headers["allow"] == "POST, DELETE"


async def test_a_session_ends_with_delete_and_then_answers_404(mcp: AsyncTestClient) -> None:
    headers = await _session(mcp, "2025-11-25")
    assert (await _post(mcp, _rpc("ping"), headers)).status_code == 200
    ended = await mcp.delete("/api/mcp", headers=headers)
    assert ended.status_code == 204
    after = await _post(mcp, _rpc("tools/list"), headers)
    assert after.status_code == 404
    assert (await mcp.delete("/api/mcp", headers=headers)).status_code == 404
    assert (await mcp.delete("/api/mcp")).status_code == 400


async def test_a_forged_session_id_is_404(mcp: AsyncTestClient) -> None:
    headers = await _session(mcp, "2025-06-18")
    forged = headers["Mcp-Session-Id"][:-3] + "AAA"
    response = await _post(mcp, _rpc("ping"), {"Mcp-Session-Id": forged})
    assert response.status_code == 404


async def test_sessions_survive_a_restart(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(mcp_allowed_hosts=(HOST,))
    async with AsyncTestClient(_app(settings)) as first:
        headers = await _session(first, "2024-11-05")
    async with AsyncTestClient(_app(settings)) as second:
        response = await _post(second, _rpc("tools/list"), headers)
    assert response.status_code == 200
    assert "title" not in response.json()["result"]["tools"][0]  # still 2024-11-05


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Origin": "http://evil.example.com"}, 403),
        ({"Origin": "null"}, 403),
        ({"Host": "evil.example.com"}, 403),
        ({"Host": "evil.example.com", "Origin": "http://evil.example.com"}, 403),
        ({"Origin": "http://localhost:6274"}, 200),  # a local client such as the Inspector UI
        ({"Origin": f"https://{HOST}"}, 200),
        ({"Host": "127.0.0.1:8000", "Origin": "http://localhost:6274"}, 200),
        ({}, 200),
    ],
)
async def test_foreign_hosts_and_origins_are_403(
    mcp: AsyncTestClient, headers: dict[str, str], status: int
) -> None:
    response = await _post(mcp, _rpc("ping"), headers)
    assert response.status_code == status
    if status == 403:
        assert response.json()["error"]["code"] == -32600


async def test_only_loopback_is_served_until_hosts_are_configured(
    make_settings: Callable[..., Settings],
) -> None:
    async with AsyncTestClient(_app(make_settings())) as client:
        foreign = await _post(client, _rpc("ping"))
        local = await _post(client, _rpc("ping"), {"Host": "localhost:8000"})
    async with AsyncTestClient(
        _app(make_settings(public_url="https://testserver.local"))
    ) as client:
        public = await _post(client, _rpc("ping"))
    assert foreign.status_code == 403
    assert "RENDERKIT_MCP_ALLOWED_HOSTS" in foreign.json()["error"]["message"]
    assert local.status_code == 200
    assert public.status_code == 200


async def test_a_body_that_is_not_json_is_415(mcp: AsyncTestClient) -> None:
    response = await mcp.post(
        "/api/mcp", content=b"ping", headers={**ACCEPT, "Content-Type": "text/plain"}
    )
    assert response.status_code == 415


async def test_an_accept_header_without_json_or_sse_is_406(mcp: AsyncTestClient) -> None:
    response = await mcp.post("/api/mcp", json=_rpc("ping"), headers={"Accept": "text/html"})
    assert response.status_code == 406


async def test_a_client_that_accepts_only_sse_gets_an_event_stream(mcp: AsyncTestClient) -> None:
    response = await mcp.post(
        "/api/mcp", json=_rpc("ping", id_=8), headers={"Accept": "text/event-stream"}
    )
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [line for line in response.text.splitlines() if line.startswith("data: ")]
    assert [json.loads(e[6:]) for e in events] == [{"jsonrpc": "2.0", "id": 8, "result": {}}]


async def test_trailing_slash_and_v1_paths_answer_without_redirects(mcp: AsyncTestClient) -> None:
    for path in ("/api/mcp/", "/v1/mcp", "/v1/mcp/"):
        response = await mcp.post(path, json=_rpc("ping"), headers=ACCEPT)
        assert response.status_code == 200, path


# --- batches ------------------------------------------------------------------------------------


async def test_a_batch_is_answered_in_2025_03_26(mcp: AsyncTestClient) -> None:
    batch = [
        _rpc("ping", id_=1),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        _rpc("tools/list", id_=2),
        _init(id_=3),
    ]
    response = await _post(mcp, batch)  # no version header: 2025-03-26
    assert response.status_code == 200
    answers = {item["id"]: item for item in response.json()}
    assert answers[1]["result"] == {}
    assert len(answers[2]["result"]["tools"]) == 8
    assert answers[3]["error"]["code"] == -32600  # initialize may not be batched


async def test_a_batch_of_notifications_is_202(mcp: AsyncTestClient) -> None:
    batch = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    response = await _post(mcp, batch, {"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 202


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
async def test_batches_are_refused_after_2025_03_26(mcp: AsyncTestClient, version: str) -> None:
    response = await _post(mcp, [_rpc("ping")], {"MCP-Protocol-Version": version})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


async def test_an_empty_batch_is_32600(mcp: AsyncTestClient) -> None:
    response = await _post(mcp, [])
    assert response.json()["error"]["code"] == -32600


# --- tool calls ---------------------------------------------------------------------------------

IMAGE_CALL = {
    "name": "generate_image",
    # cache: false: repeated calls render and are metered every time.
    "arguments": {"template": "og-card", "data": {"title": "Hi"}, "cache": False},
}


async def test_tools_call_without_a_key_is_an_error_result(mcp: AsyncTestClient) -> None:
    response = await _post(mcp, _rpc("tools/call", **IMAGE_CALL))
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is True
    assert "API key" in result["content"][0]["text"]
    assert "UNAUTHORIZED" in result["content"][0]["text"]


async def test_tools_call_with_a_forged_key_is_an_error_result(mcp: AsyncTestClient) -> None:
    forged = {"Authorization": "Bearer sk_live_AAAA.BBBB"}
    response = await _post(mcp, _rpc("tools/call", **IMAGE_CALL), forged)
    result = response.json()["result"]
    assert result["isError"] is True
    assert "invalid API key" in result["content"][0]["text"]


async def test_a_tool_call_is_metered_like_the_rest_call(mcp: AsyncTestClient) -> None:
    key = await issue_key(mcp)
    headers = {**await _session(mcp, "2025-11-25"), "Authorization": f"Bearer {key}"}
    response = await _post(mcp, _rpc("tools/call", **IMAGE_CALL), headers)
    assert response.headers["x-ratelimit-limit"] == "5000"  # starter images per month
    assert response.headers["x-ratelimit-remaining"] == "4999"
    rest = await mcp.post("/api/image", json=IMAGE_CALL["arguments"], headers={"X-SVC-Key": key})
    assert rest.headers["x-ratelimit-remaining"] == "4998"


async def test_bad_arguments_are_an_error_result_naming_the_field_and_cost_nothing(
    mcp: AsyncTestClient,
) -> None:
    key = await issue_key(mcp)
    call = {"name": "generate_image", "arguments": {"template": "og-card", "quality": 0}}
    response = await _post(mcp, _rpc("tools/call", **call), {"X-SVC-Key": key})
    result = response.json()["result"]
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert "quality" in text
    envelope = json.loads(text.split("\n", 1)[1])
    assert envelope["fields"][0]["field"] == "quality"
    ok = await _post(mcp, _rpc("tools/call", **IMAGE_CALL), {"X-SVC-Key": key})
    assert ok.headers["x-ratelimit-remaining"] == "4999"


async def test_an_exhausted_quota_is_an_error_result_saying_when_to_retry(
    make_settings: Callable[..., Settings],
) -> None:
    app = _app(make_settings(mcp_allowed_hosts=(HOST,), plans={"starter": {"images": 1}}))
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        first = await _post(client, _rpc("tools/call", **IMAGE_CALL), {"X-SVC-Key": key})
        second = await _post(client, _rpc("tools/call", **IMAGE_CALL), {"X-SVC-Key": key})
    assert first.json()["result"]["isError"] is False
    result = second.json()["result"]
    assert result["isError"] is True
    assert "QUOTA_EXCEEDED" in result["content"][0]["text"]
    assert "retry at" in result["content"][0]["text"]


async def test_results_for_2025_11_25_carry_structured_content_a_preview_and_a_link(
    mcp: AsyncTestClient,
) -> None:
    key = await issue_key(mcp)
    headers = {**await _session(mcp, "2025-11-25"), "X-SVC-Key": key}
    response = await _post(mcp, _rpc("tools/call", **IMAGE_CALL), headers)
    result = response.json()["result"]
    text, image, link = result["content"]
    assert json.loads(text["text"]) == result["structuredContent"]
    assert result["structuredContent"]["template"] == "og-card"
    # A preview: the whole picture at 512 px on its long side, a fraction of the file.
    preview = base64.b64decode(image["data"])
    assert image["mimeType"] == "image/jpeg"
    picture = Image.open(io.BytesIO(preview))
    assert (picture.format, picture.size) == ("JPEG", (512, 269))
    picture.load()
    assert len(preview) < 60_000
    assert len(preview) * 5 < result["structuredContent"]["size_bytes"]
    # The link resolves to the full-size file.
    assert link["type"] == "resource_link"
    assert link["uri"] == result["structuredContent"]["url"]
    assert link["size"] == result["structuredContent"]["size_bytes"]
    downloaded = await mcp.get(link["uri"].removeprefix("http://testserver.local"))
    assert len(downloaded.content) == link["size"]
    assert Image.open(io.BytesIO(downloaded.content)).size == (2400, 1260)


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-11-25"])
async def test_the_full_image_comes_inline_only_when_asked(
    mcp: AsyncTestClient, version: str
) -> None:
    key = await issue_key(mcp)
    headers = {**await _session(mcp, version), "X-SVC-Key": key}
    kinds = {}
    inlined = {}
    for mode in ("full", "none", "preview"):
        call = {**IMAGE_CALL, "arguments": {**IMAGE_CALL["arguments"], "inline": mode}}
        result = (await _post(mcp, _rpc("tools/call", **call), headers)).json()["result"]
        assert result["isError"] is False, result
        kinds[mode] = [block["type"] for block in result["content"]]
        inlined[mode] = [b for b in result["content"] if b["type"] == "image"]
        url = json.loads(result["content"][0]["text"])["url"]
        if mode == "full":
            downloaded = await mcp.get(url.removeprefix("http://testserver.local"))
            assert base64.b64decode(inlined[mode][0]["data"]) == downloaded.content
            assert inlined[mode][0]["mimeType"] == "image/png"
    linked = ["resource_link"] if version >= "2025-06-18" else []  # else the text's url
    assert kinds == {
        "full": ["text", "image", *linked],
        "none": ["text", *linked],
        "preview": ["text", "image", *linked],
    }
    assert inlined["preview"][0]["mimeType"] == "image/jpeg"


async def test_an_unknown_inline_choice_is_an_error_result_and_costs_nothing(
    mcp: AsyncTestClient,
) -> None:
    key = await issue_key(mcp)
    call = {**IMAGE_CALL, "arguments": {**IMAGE_CALL["arguments"], "inline": "huge"}}
    result = (await _post(mcp, _rpc("tools/call", **call), {"X-SVC-Key": key})).json()["result"]
    assert result["isError"] is True
    envelope = json.loads(result["content"][0]["text"].split("\n", 1)[1])
    assert envelope["fields"][0]["field"] == "inline"
    assert "preview, full, none" in envelope["fields"][0]["message"]
    pdf = {
        "name": "generate_pdf",
        "arguments": {"template": "custom", "html": "x", "inline": "full"},
    }
    refused = (await _post(mcp, _rpc("tools/call", **pdf), {"X-SVC-Key": key})).json()["result"]
    assert refused["isError"] is True  # a PDF tool has no such argument
    ok = await _post(mcp, _rpc("tools/call", **IMAGE_CALL), {"X-SVC-Key": key})
    assert ok.headers["x-ratelimit-remaining"] == "4999"


async def test_results_for_2024_11_05_use_only_that_revision_s_content(
    mcp: AsyncTestClient,
) -> None:
    key = await issue_key(mcp)
    headers = {**await _session(mcp, "2024-11-05"), "X-SVC-Key": key}
    pdf_call = {"name": "generate_pdf", "arguments": {"template": "custom", "html": "<h1>Hi</h1>"}}
    response = await _post(mcp, _rpc("tools/call", **pdf_call), headers)
    result = response.json()["result"]
    assert "structuredContent" not in result
    kinds = [block["type"] for block in result["content"]]
    assert kinds == ["text", "resource"]  # no resource_link before 2025-06-18
    resource = result["content"][1]["resource"]
    assert resource["mimeType"] == "application/pdf"
    assert base64.b64decode(resource["blob"]).startswith(b"%PDF-")


async def test_a_progress_token_gets_progress_notifications_over_sse(
    mcp: AsyncTestClient,
) -> None:
    key = await issue_key(mcp)
    headers = {**await _session(mcp, "2025-11-25"), "X-SVC-Key": key}
    call = {**IMAGE_CALL, "_meta": {"progressToken": "tok-1"}}
    response = await _post(mcp, _rpc("tools/call", id_=11, **call), headers)
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    events = [
        json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")
    ]
    progress = [e["params"] for e in events if e.get("method") == "notifications/progress"]
    assert [(p["progressToken"], p["progress"], p["total"]) for p in progress] == [
        ("tok-1", 0, 1),
        ("tok-1", 1, 1),
    ]
    assert events[-1]["id"] == 11
    assert events[-1]["result"]["isError"] is False


async def test_an_sse_only_client_gets_its_session_id_on_initialize(mcp: AsyncTestClient) -> None:
    response = await mcp.post("/api/mcp", json=_init(), headers={"Accept": "text/event-stream"})
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["mcp-session-id"].startswith("2025-11-25.")
    (event,) = [line for line in response.text.splitlines() if line.startswith("data: ")]
    assert json.loads(event[6:])["result"]["protocolVersion"] == "2025-11-25"


class _SlowBrowser(FakeBrowser):
    async def capture_fragment(self, *args: Any, **kwargs: Any) -> Any:
        await anyio.sleep(0.35)
        return await super().capture_fragment(*args, **kwargs)


async def test_a_long_tool_call_streams_keep_alives_until_its_result(
    make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streaming, "KEEPALIVE_SECONDS", 0.1)
    app = _app(make_settings(mcp_allowed_hosts=(HOST,)), browser=_SlowBrowser())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        response = await client.post(
            "/api/mcp",
            json=_rpc("tools/call", id_=12, **IMAGE_CALL),
            headers={"Accept": "text/event-stream", "X-SVC-Key": key},
        )
    lines = response.text.splitlines()
    assert lines.count(": keep-alive") >= 2
    (event,) = [line for line in lines if line.startswith("data: ")]
    assert json.loads(event[6:])["result"]["isError"] is False


async def test_a_busy_preview_pool_leaves_the_image_result_with_its_link_alone(
    make_settings: Callable[..., Settings],
) -> None:
    app = _app(make_settings(mcp_allowed_hosts=(HOST,), workers=1, workers_queue=0))
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        headers = {**await _session(client, "2025-11-25"), "X-SVC-Key": key}
        pool = app.state.services.engines.workers.image
        assert pool.try_acquire()  # the one worker is making another preview
        try:
            response = await _post(client, _rpc("tools/call", **IMAGE_CALL), headers)
        finally:
            pool.release()
    result = response.json()["result"]
    assert result["isError"] is False
    assert [block["type"] for block in result["content"]] == ["text", "resource_link"]


async def test_a_tool_result_spells_out_the_fields_the_template_did_not_display(
    mcp: AsyncTestClient,
) -> None:
    key = await issue_key(mcp)
    headers = {**await _session(mcp, "2025-11-25"), "X-SVC-Key": key}
    arguments = {"template": "og-card", "data": {"title": "Hi", "cta": "Read the post"}}
    call = _rpc("tools/call", name="generate_image", arguments=arguments)
    result = (await _post(mcp, call, headers)).json()["result"]
    warning = "data.cta: og-card does not display cta; it was ignored"
    assert result["isError"] is False
    assert result["structuredContent"]["warnings"] == [warning]
    assert result["content"][1] == {"type": "text", "text": f"Warnings:\n- {warning}"}
    strict = _rpc("tools/call", name="generate_image", arguments={**arguments, "strict": True})
    refused = (await _post(mcp, strict, headers)).json()["result"]
    assert refused["isError"] is True
    assert "data.cta" in refused["content"][0]["text"]
