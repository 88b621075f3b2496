"""MCP tasks (revision 2025-11-25): a long tool call as a job, polled and fetched later.

A client that declares the ``tasks`` capability may send ``tools/call`` with a ``task``
parameter; the call is then submitted to the jobs service (:mod:`renderkit_server.jobs`),
exactly as ``POST /api/jobs`` would, and answered at once with a ``CreateTaskResult``. The
task id *is* the job id, so a task belongs to its key's lineage like any job: ``tasks/get``,
``tasks/result``, ``tasks/cancel`` and ``tasks/list`` read the jobs service with the caller's
key, and any other key gets the "not found" of an id that never existed. A call without
``task`` (every older client) runs synchronously, as before.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio

from renderkit_server.jobs.service import JobService
from renderkit_server.jobs.views import timestamp
from renderkit_server.keys import ApiKey
from renderkit_server.mcp.protocol import INVALID_PARAMS, RpcError, version_at_least
from renderkit_server.mcp.reading import TextFile, text_first_result
from renderkit_server.mcp.tools import TASK_REVISIONS, McpTool, error_result, file_name
from renderkit_server.state.jobs import Job

__all__ = [
    "RELATED_TASK",
    "TASK_VERSIONS",
    "finished",
    "has_tasks",
    "server_capability",
    "task_result",
    "task_view",
    "wants_task",
]

#: The revisions whose core has tasks (2026-07-28 moved them to an extension).
TASK_VERSIONS = TASK_REVISIONS
#: The ``_meta`` key tying a result to its task.
RELATED_TASK = "io.modelcontextprotocol/related-task"
#: How often a client is told to poll ``tasks/get`` (milliseconds).
POLL_INTERVAL_MS = 1_000
#: Job status -> task status.
_STATUS = {
    "queued": "working",
    "running": "working",
    "succeeded": "completed",
    "failed": "failed",
    "cancelled": "cancelled",
}
_MESSAGES = {"queued": "queued", "running": "running"}
# How ``tasks/result`` waits for a job still working: a short first poll, growing.
_FIRST_WAIT, _LONGEST_WAIT = 0.05, 1.0


def server_capability() -> dict[str, Any]:
    """The ``tasks`` entry of the server's capabilities: tool calls, listing, cancelling."""
    return {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


def has_tasks(version: str) -> bool:
    """Whether revision ``version`` has tasks."""
    return version in TASK_VERSIONS


def wants_task(params: Mapping[str, Any], version: str) -> bool:
    """Whether a ``tools/call`` asks to run as a task (a revision that has them only).

    Raises:
        RpcError: -32602, ``task`` is not an object.
    """
    if "task" not in params or not has_tasks(version):
        return False
    if not isinstance(params["task"], dict):
        raise RpcError(INVALID_PARAMS, "params.task must be an object (ttl optional)")
    return True


def task_view(job: Job) -> dict[str, Any]:
    """The job as an MCP ``Task``."""
    updated = job.finished_at or job.started_at or job.created_at
    task: dict[str, Any] = {
        "taskId": job.id,
        "status": _STATUS[job.status],
        "createdAt": timestamp(job.created_at),
        "lastUpdatedAt": timestamp(updated),
        "ttl": round((job.expires_at - job.created_at) * 1000),
        "pollInterval": POLL_INTERVAL_MS,
    }
    if job.status in _MESSAGES:
        task["statusMessage"] = _MESSAGES[job.status]
    elif job.status == "failed":
        task["statusMessage"] = str((job.error or {}).get("error", "the call failed"))
    return task


async def submit(
    jobs: JobService, key: ApiKey, tool: McpTool, arguments: Mapping[str, Any], base_url: str
) -> dict[str, Any]:
    """Queue the tool's operation as a job; the ``CreateTaskResult``.

    Raises:
        RenderkitError, HttpProblem: what ``POST /api/jobs`` refuses (an invalid request,
            too many jobs), for the caller to turn into a tool error.
    """
    payload = {"kind": tool.operation.name, "request": dict(arguments)}
    job = await jobs.submit(key, payload, base_url)
    return {"task": task_view(job)}


async def finished(jobs: JobService, key: ApiKey, job: Job) -> Job:
    """``tasks/result`` waits: the job once it finished.

    Raises:
        RpcError: -32602, the task was cancelled and has no result.
    """
    wait = _FIRST_WAIT
    while not job.finished:
        await anyio.sleep(wait)
        wait = min(_LONGEST_WAIT, wait * 2)
        job = await jobs.get(key, job.id)
    if job.status == "cancelled":
        raise RpcError(INVALID_PARAMS, f"task {job.id} was cancelled; it has no result")
    return job


def task_result(
    job: Job, version: str, *, text_field: str | None = None, link: TextFile | None = None
) -> dict[str, Any]:
    """What ``tools/call`` would have answered for the finished ``job``, tied to the task in
    ``_meta``: for a reading tool (``text_field`` given) the same text-first result, its text
    as a file at ``link``; otherwise the body as JSON with a link to its file (``url``)."""
    related = {RELATED_TASK: {"taskId": job.id}}
    if job.status == "failed":
        return {**error_result(job.error or {}), "_meta": related}
    body = dict(job.result or {})
    if text_field is not None:
        return {
            **text_first_result(body, field=text_field, version=version, link=link),
            "_meta": related,
        }
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": json.dumps(body, ensure_ascii=False)}],
        "isError": False,
        "_meta": related,
    }
    url = body.get("url")
    if url:
        result["content"].append({"type": "resource_link", "uri": url, "name": file_name(url)})
    if version_at_least(version, "2025-06-18"):
        result["structuredContent"] = body
    return result
