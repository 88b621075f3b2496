"""MCP tasks (2025-11-25) over the real Streamable HTTP transport (uvicorn on 127.0.0.1),
driven with raw JSON-RPC: the installed ``mcp`` SDK client has no task support to drive
them with. A task is a job: same id, same key lineage, same charge."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import mcp_types
import pytest

from renderkit import NavigationError
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._uvicorn import served_app
from tests.parsing._documents import text_pdf
from tests.server.jobs.conftest import GatedBrowser

pytestmark = pytest.mark.anyio

TASKS = "2025-11-25"
ARGUMENTS = {"template": "og-card", "data": {"title": "Agent"}, "scale": 1, "inline": "full"}
MINUTES = text_pdf(
    [
        ["Quarterly minutes", "The board met on Monday and approved the budget."],
        ["Second page of the minutes, kept for the record."],
    ]
)
DOCUMENT = {"file": base64.b64encode(MINUTES).decode(), "mimeType": "application/pdf"}


class Agent:
    """One key's JSON-RPC calls to /api/mcp at a given revision."""

    def __init__(self, http: httpx.AsyncClient, key: str | None, version: str = TASKS) -> None:
        self.http = http
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": version,
        }
        if key is not None:
            self.headers["X-SVC-Key"] = key
        self.ids = 0

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.ids += 1
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {}}
        response = await self.http.post("/api/mcp", json=body, headers=self.headers)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    async def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = await self.send(method, params)
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    async def call_as_task(
        self, arguments: dict[str, Any] = ARGUMENTS, tool: str = "generate_image"
    ) -> dict[str, Any]:
        created = await self.result(
            "tools/call", {"name": tool, "arguments": arguments, "task": {"ttl": 60_000}}
        )
        mcp_types.CreateTaskResult.model_validate(created)  # the SDK's shapes, as a client reads
        task: dict[str, Any] = created["task"]
        return task


def _app(tmp_path: Path, browser: FakeBrowser) -> Any:
    settings = Settings(
        data_dir=tmp_path / "data",
        secret="mcp-tasks-tests-secret-0123456789",
        cache_ttl_seconds=0,
    )
    return create_app(settings, browser=browser, mailer=MemoryMailer())


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    def fail_broken(render: Any) -> None:
        if "Broken" in render.html:
            raise NavigationError("the page could not be loaded", url="https://example.com")

    async with served_app(_app(tmp_path, FakeBrowser(fail_broken))) as client:
        yield client


async def _key(http: httpx.AsyncClient, email: str = "agent@example.com") -> str:
    key: str = (await http.post("/api/keys/generate", json={"email": email})).json()["key"]
    return key


async def test_the_tasks_revision_announces_tasks_and_every_tool_may_run_as_one(
    http: httpx.AsyncClient,
) -> None:
    agent, older = Agent(http, None), Agent(http, None, "2025-06-18")
    init = await agent.result("initialize", {"protocolVersion": TASKS, "capabilities": {}})
    old_init = await older.result(
        "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}
    )
    tools = (await agent.result("tools/list"))["tools"]
    old_tools = (await older.result("tools/list"))["tools"]

    capabilities = mcp_types.InitializeResult.model_validate(init).capabilities
    assert capabilities.tasks is not None
    assert capabilities.tasks.requests is not None
    assert capabilities.tasks.requests.tools is not None
    assert all(mcp_types.Tool.model_validate(tool).execution for tool in tools)
    assert init["capabilities"]["tasks"] == {
        "list": {},
        "cancel": {},
        "requests": {"tools": {"call": {}}},
    }
    assert "tasks" not in old_init["capabilities"]
    assert {tool["execution"]["taskSupport"] for tool in tools} == {"optional"}
    assert all("execution" not in tool for tool in old_tools)
    assert (await older.send("tasks/list"))["error"]["code"] == -32601


async def test_a_task_is_the_job_and_its_result_is_the_tool_result_charged_once(
    http: httpx.AsyncClient,
) -> None:
    key = await _key(http)
    agent = Agent(http, key)

    task = await agent.call_as_task()
    payload = await agent.result("tasks/result", {"taskId": task["taskId"]})
    done = await agent.result("tasks/get", {"taskId": task["taskId"]})
    job = (await http.get(f"/api/jobs/{task['taskId']}", headers={"X-SVC-Key": key})).json()
    usage = (await http.get("/api/usage", headers={"X-SVC-Key": key})).json()

    mcp_types.CallToolResult.model_validate(payload)
    assert mcp_types.GetTaskResult.model_validate(done).status == "completed"
    assert task["status"] == "working"
    assert task["taskId"].startswith("job_")
    assert task["pollInterval"] > 0
    assert task["ttl"] > 0
    assert done["status"] == "completed"
    assert job["status"] == "succeeded"
    assert payload["isError"] is False
    assert payload["structuredContent"] == job["result"]
    assert payload["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task["taskId"]}
    assert any(block["type"] == "resource_link" for block in payload["content"])
    assert usage["metrics"]["images"]["used"] == 1


async def test_another_keys_task_is_not_found_and_not_listed(http: httpx.AsyncClient) -> None:
    owner, stranger = Agent(http, await _key(http)), Agent(http, await _key(http, "x@example.com"))
    task = await owner.call_as_task()

    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        refused = await stranger.send(method, {"taskId": task["taskId"]})
        assert refused["error"]["code"] == -32602, method
    assert (await stranger.result("tasks/list"))["tasks"] == []
    listed = await owner.result("tasks/list")
    mcp_types.ListTasksResult.model_validate(listed)
    assert [t["taskId"] for t in listed["tasks"]] == [task["taskId"]]
    anonymous = await Agent(http, None).send("tasks/list")
    assert anonymous["error"]["code"] == -32600


async def test_a_failed_task_answers_the_error_result_the_synchronous_call_would_have(
    http: httpx.AsyncClient,
) -> None:
    agent = Agent(http, await _key(http))
    broken = {**ARGUMENTS, "data": {"title": "Broken"}}

    task = await agent.call_as_task(broken)
    payload = await agent.result("tasks/result", {"taskId": task["taskId"]})
    direct = await agent.result("tools/call", {"name": "generate_image", "arguments": broken})

    assert (await agent.result("tasks/get", {"taskId": task["taskId"]}))["status"] == "failed"
    assert payload["isError"] is True
    assert "NAVIGATION_FAILED" in payload["content"][0]["text"]
    assert direct["isError"] is True
    assert "NAVIGATION_FAILED" in direct["content"][0]["text"]


async def test_a_call_without_a_task_runs_at_once_as_before(http: httpx.AsyncClient) -> None:
    agent = Agent(http, await _key(http))

    result = await agent.result("tools/call", {"name": "generate_image", "arguments": ARGUMENTS})

    assert "task" not in result
    assert result["isError"] is False
    assert result["structuredContent"]["format"] == "png"
    assert (await agent.result("tasks/list"))["tasks"] == []


async def test_a_cancelled_task_stops_its_job_and_has_no_result(tmp_path: Path) -> None:
    browser = GatedBrowser()
    async with served_app(_app(tmp_path, browser)) as http:
        key = await _key(http)
        agent = Agent(http, key)
        task = await agent.call_as_task()

        cancelled = await agent.result("tasks/cancel", {"taskId": task["taskId"]})
        again = await agent.send("tasks/cancel", {"taskId": task["taskId"]})
        payload = await agent.send("tasks/result", {"taskId": task["taskId"]})
        browser.gate.set()
        job = (await http.get(f"/api/jobs/{task['taskId']}", headers={"X-SVC-Key": key})).json()
        usage = (await http.get("/api/usage", headers={"X-SVC-Key": key})).json()

    assert mcp_types.CancelTaskResult.model_validate(cancelled).status == "cancelled"
    assert again["error"]["code"] == -32602
    assert payload["error"]["code"] == -32602
    assert job["status"] == "cancelled"
    assert usage["metrics"]["images"]["used"] == 0


async def test_a_retried_task_call_with_its_idempotency_key_gets_the_same_task(
    http: httpx.AsyncClient,
) -> None:
    key = await _key(http)
    agent = Agent(http, key)
    meta = {"io.renderkit/idempotency-key": "task-call-1"}
    params = {"name": "generate_image", "arguments": ARGUMENTS, "task": {}, "_meta": meta}

    first = await agent.result("tools/call", params)
    again = await agent.result("tools/call", params)
    direct = await agent.result(
        "tools/call", {"name": "generate_image", "arguments": ARGUMENTS, "_meta": meta}
    )
    await agent.result("tasks/result", {"taskId": first["task"]["taskId"]})

    assert again["task"]["taskId"] == first["task"]["taskId"]
    assert len((await agent.result("tasks/list"))["tasks"]) == 1
    assert direct["isError"] is True  # the same key for another request: a conflict
    assert "IDEMPOTENCY_KEY_REUSED" in direct["content"][0]["text"]


async def test_a_read_document_task_answers_the_markdown_first_as_the_direct_call_does(
    http: httpx.AsyncClient,
) -> None:
    agent = Agent(http, await _key(http))

    direct = await agent.result("tools/call", {"name": "read_document", "arguments": DOCUMENT})
    task = await agent.call_as_task(DOCUMENT, tool="read_document")
    payload = await agent.result("tasks/result", {"taskId": task["taskId"]})

    mcp_types.CallToolResult.model_validate(payload)
    assert payload["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task["taskId"]}
    for result in (direct, payload):
        markdown, rest, link = result["content"]
        structured = result["structuredContent"]
        assert markdown["text"] == structured["markdown"]
        assert "approved the budget" in markdown["text"]
        described = json.loads(rest["text"])
        # The text is the first block and the blocks are in structuredContent: neither is
        # repeated in the JSON, which counts the blocks it leaves out.
        assert "markdown" not in described and "blocks" not in described
        assert described["omitted"] == {"blocks": len(structured["blocks"])}
        assert {block["page"] for block in structured["blocks"]} == {1, 2}
        assert link["type"] == "resource_link" and link["mimeType"] == "text/markdown"
        assert described["url"] == link["uri"]
        assert (await http.get(link["uri"])).text == markdown["text"]
    assert payload["content"][0] == direct["content"][0]


async def test_a_read_document_task_stores_its_markdown_once_however_often_it_is_fetched(
    http: httpx.AsyncClient,
) -> None:
    agent = Agent(http, await _key(http))
    task = await agent.call_as_task(DOCUMENT, tool="read_document")

    links = []
    for _ in range(3):
        payload = await agent.result("tasks/result", {"taskId": task["taskId"]})
        links.append(payload["content"][2]["uri"])

    # One stored file, named by its task; each answer signs a fresh link to it.
    assert len({urlsplit(link).path for link in links}) == 1
    assert task["taskId"] in urlsplit(links[0]).path
    assert (await http.get(links[-1])).text == payload["content"][0]["text"]


async def test_an_older_client_reads_a_document_markdown_first_with_its_blocks_in_the_json(
    http: httpx.AsyncClient,
) -> None:
    agent = Agent(http, await _key(http), "2025-03-26")

    result = await agent.result("tools/call", {"name": "read_document", "arguments": DOCUMENT})

    markdown, rest = result["content"]
    described = json.loads(rest["text"])
    assert "structuredContent" not in result  # so the JSON is its only copy of the blocks
    assert "approved the budget" in markdown["text"]
    assert "markdown" not in described and "omitted" not in described
    assert all(block["text"] in markdown["text"] for block in described["blocks"])
    assert (await http.get(described["url"])).text == markdown["text"]


async def test_a_parse_document_task_still_answers_its_fields_as_json(
    http: httpx.AsyncClient,
) -> None:
    agent = Agent(http, await _key(http))

    task = await agent.call_as_task(DOCUMENT, tool="parse_document")
    payload = await agent.result("tasks/result", {"taskId": task["taskId"]})

    assert json.loads(payload["content"][0]["text"]) == payload["structuredContent"]
    assert "data" in payload["structuredContent"]
    assert "markdown" not in payload["structuredContent"]
