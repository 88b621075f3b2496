"""POST/GET/DELETE /api/mcp: the MCP Streamable HTTP transport, directly on Litestar.

Why not the official SDK's server: it is a Starlette app with its own session manager, and
this endpoint needs things it does not do together: ``tools/call`` authenticated by our API
keys and metered by the same pipeline as REST while ``initialize``/``tools/list``/``ping``
stay open, JSON-RPC batches only for the revision that has them, session ids that survive
restarts and replicas, and content chosen by the negotiated revision. The SDK's *client* is
what the tests drive this endpoint with.

Rules (see docs/mcp.md): requests get ``application/json``, or ``text/event-stream`` when the
client cannot take JSON or asks for progress on a tool call (:mod:`.streaming`);
notifications and client responses get 202 with an empty body; GET is 405; DELETE ends a
session; a foreign Host or Origin is 403 (:mod:`.hosts`); ``MCP-Protocol-Version`` is
ignored on ``initialize`` and otherwise must be a served revision (400). The body is always
read before any answer, so an early rejection never leaves bytes on a keep-alive connection.

This module routes each message to its method for the revision it speaks: the handshake
revisions (:mod:`.protocol`) or the stateless one (:mod:`.modern`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import attrs
import msgspec
from litestar import Request, Response, delete, get, post
from litestar.di import NamedDependency

import renderkit
from renderkit import RenderkitError, StorageUnavailableError, WorkersBusyError
from renderkit.core.workers import WorkerPool
from renderkit_server import errors
from renderkit_server.auth import authenticate
from renderkit_server.bodies import JsonBodyError, decode_json_off_loop
from renderkit_server.idempotency import (
    HEADER,
    REPLAYED_HEADER,
    Idempotency,
    canonical_fingerprint,
    parse_key,
)
from renderkit_server.idempotency.http import KEPT_HEADERS
from renderkit_server.jobs.service import JobService
from renderkit_server.keys import ApiKey, KeyService
from renderkit_server.mcp import tasks
from renderkit_server.mcp.hosts import check_origin
from renderkit_server.mcp.modern import MODERN_VERSIONS, check_envelope, is_modern
from renderkit_server.mcp.previews import Preview, preview_image
from renderkit_server.mcp.protocol import (
    BATCH_VERSIONS,
    DEFAULT_VERSION,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LATEST_VERSION,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    SUPPORTED_VERSIONS,
    Message,
    RpcError,
    negotiate,
    parse_message,
    result_body,
    version_at_least,
)
from renderkit_server.mcp.reading import (
    TextFile,
    file_link,
    job_tool,
    text_field,
    text_first_result,
)
from renderkit_server.mcp.sessions import McpSessions
from renderkit_server.mcp.streaming import JSON, accepts, stream, wants_stream
from renderkit_server.mcp.texts import store_text
from renderkit_server.mcp.tools import (
    TOOLS,
    McpTool,
    error_result,
    inline_mode,
    success_result,
    tool_definitions,
    wants_preview,
)
from renderkit_server.operations import Production, execute
from renderkit_server.settings import Settings
from renderkit_server.state.idempotency import StoredAnswer
from renderkit_server.state.jobs import Job

__all__ = ["mcp_delete", "mcp_get", "mcp_post"]

logger = logging.getLogger("renderkit_server")

PATHS = ["/api/mcp", "/v1/mcp"]
#: The ``_meta`` entry of a ``tools/call`` carrying its idempotency key.
META_IDEMPOTENCY_KEY = "io.renderkit/idempotency-key"
#: Every revision served, newest first (what server/discover and a -32022 list).
ALL_VERSIONS = (*MODERN_VERSIONS, *SUPPORTED_VERSIONS)
# Tools change only with a new release: clients may cache the lists for five minutes.
_CACHEABLE = {"ttlMs": 300_000, "cacheScope": "public"}

INSTRUCTIONS = (
    "renderkit turns JSON into files and data: generate_image (social cards, banners), "
    "generate_pdf (invoices, certificates, reports, letters), generate_audio (speech), "
    "take_screenshot (web pages), parse_document (fields from PDFs and scans) and "
    "read_document (a whole PDF or scan as Markdown, each block with its page and box). "
    "initialize, tools/list and ping are open; tools/call needs a renderkit API key in "
    "Authorization: Bearer <key> or X-SVC-Key and is billed like the REST API. Produced files "
    "come back as links that expire after a day."
)


# --- HTTP helpers -----------------------------------------------------------------------------


def _json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response[bytes]:
    return Response(
        content=msgspec.json.encode(body),
        status_code=status,
        media_type=JSON,
        headers=headers or {},
    )


def _rpc_error_response(exc: RpcError, headers: dict[str, str] | None = None) -> Response[bytes]:
    return _json_response(exc.body(), exc.http_status, headers)


@attrs.frozen(kw_only=True)
class _Backends:
    """What the messages of one POST use: the session ids, the keys, the metered pipeline."""

    sessions: McpSessions
    keys: KeyService
    production: Production
    idempotency: Idempotency
    jobs: JobService


# --- method handlers --------------------------------------------------------------------------


class _Call:
    """One POST: the request, the backends it uses and the revision it speaks."""

    def __init__(
        self,
        request: Request[Any, Any, Any],
        version: str,
        backends: _Backends,
        *,
        modern: bool = False,
    ) -> None:
        self.request = request
        self.backends = backends
        self.version = version
        #: The stateless revision: no handshake methods, results tagged with resultType.
        self.modern = modern
        self.headers: dict[str, str] = {}
        #: The HTTP status of a single answer (a modern unknown method is a 404).
        self.status = 200

    async def dispatch(self, message: Message) -> dict[str, Any]:
        """Answer one request (a JSON-RPC response object)."""
        try:
            result = await self._method(message)
        except RpcError as exc:
            exc.id = message.id
            self.status = exc.http_status
            return exc.body()
        except Exception:  # a server fault outside tool logic: -32603, no details leak
            logger.exception("MCP %s failed", message.method)
            return RpcError(INTERNAL_ERROR, "internal error", id=message.id).body()
        return result_body(message.id, result)

    async def _method(self, message: Message) -> dict[str, Any]:
        if self.modern:
            return await self._modern_method(message)
        method = message.method
        if method == "initialize":
            return self.initialize(message.params)
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": tool_definitions(self.version)}
        if method == "tools/call":
            return await self.call_tool(message.params)
        if method.startswith("tasks/") and tasks.has_tasks(self.version):
            return await self.task_method(method, message.params)
        raise RpcError(METHOD_NOT_FOUND, f"method not found: {method[:100]}")

    async def _modern_method(self, message: Message) -> dict[str, Any]:
        method = message.method
        if method == "server/discover":
            result = self.discover()
        elif method == "tools/list":
            result = {"tools": tool_definitions(self.version), **_CACHEABLE}
        elif method == "tools/call":
            result = await self.call_tool(message.params)
        else:  # initialize and ping are gone in this revision; so is anything unknown
            msg = f"method not found: {method[:100]}"
            raise RpcError(METHOD_NOT_FOUND, msg, http_status=404)
        return {"resultType": "complete", **result}

    def discover(self) -> dict[str, Any]:
        info = {"name": "renderkit", "title": "renderkit", "version": renderkit.__version__}
        return {
            "supportedVersions": list(ALL_VERSIONS),
            "capabilities": {"tools": {"listChanged": False}},
            "instructions": INSTRUCTIONS,
            **_CACHEABLE,
            "_meta": {"io.modelcontextprotocol/serverInfo": info},
        }

    def initialize(self, params: Any) -> dict[str, Any]:
        version = negotiate(params.get("protocolVersion"))
        self.version = version
        self.headers["Mcp-Session-Id"] = self.backends.sessions.mint(version)
        info: dict[str, Any] = {"name": "renderkit", "version": renderkit.__version__}
        if version_at_least(version, "2025-06-18"):
            info["title"] = "renderkit"
        capabilities: dict[str, Any] = {"tools": {"listChanged": False}}
        if tasks.has_tasks(version):
            capabilities["tasks"] = tasks.server_capability()
        return {
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": info,
            "instructions": INSTRUCTIONS,
        }

    async def call_tool(self, params: Any) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "params.name must be the tool name (a string)")
        tool = TOOLS.get(name)
        if tool is None:
            raise RpcError(
                INVALID_PARAMS, f"Unknown tool: {name[:100]} (see tools/list)", data={"tool": name}
            )
        arguments = params.get("arguments", {})
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "params.arguments must be an object")
        try:
            as_task = tasks.wants_task(params, self.version)
            key = _idempotency_key(self.request, params)
            api_key = self._authenticate()
            if key is None:
                if as_task:
                    return await self._submit_task(tool, arguments, api_key)
                return (await self._run_tool(tool, arguments, api_key))[1]
            # Keyed (see docs/mcp.md): the same call again gets the first result (or the
            # same task), unrun. A task call is another request than the direct one.
            fingerprint: dict[str, Any] = {"name": name, "arguments": arguments}
            if as_task:
                fingerprint["task"] = True
            answered = await self.backends.idempotency.run(
                lineage=api_key.key_id,
                method="POST",
                path=f"{self.request.url.path}#tools/call",
                key=key,
                fingerprint=canonical_fingerprint(fingerprint),
                work=lambda: (
                    self._stored_task(tool, arguments, api_key)
                    if as_task
                    else self._stored_tool(tool, arguments, api_key)
                ),
            )
        except (RenderkitError, errors.HttpProblem) as exc:
            return self._tool_error(name, exc)
        answer = answered.answer
        self.headers.update({k: v for k, v in answer.headers.items() if k != "content-type"})
        if answered.replayed:
            self.headers[REPLAYED_HEADER] = "true"
        result: dict[str, Any] = msgspec.json.decode(answer.body)
        return result

    async def _submit_task(
        self, tool: McpTool, arguments: dict[str, Any], api_key: ApiKey
    ) -> dict[str, Any]:
        """A task-augmented call: the operation queued as a job, its task answered at once.

        The ``inline`` choice does not apply: a task's result links its file.
        """
        _, arguments = inline_mode(tool, arguments)
        base = str(self.request.base_url).rstrip("/")
        return await tasks.submit(self.backends.jobs, api_key, tool, arguments, base)

    async def _stored_task(
        self, tool: McpTool, arguments: dict[str, Any], api_key: ApiKey
    ) -> StoredAnswer:
        """The created task as an answer to keep (202, as ``POST /api/jobs`` answers)."""
        result = await self._submit_task(tool, arguments, api_key)
        return StoredAnswer(status=202, headers={}, body=msgspec.json.encode(result))

    async def task_method(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """``tasks/get``, ``tasks/result``, ``tasks/cancel`` and ``tasks/list``, with the
        caller's key: a task of another key is "not found", like an id that never existed."""
        try:
            api_key = self._authenticate()
        except (RenderkitError, errors.HttpProblem) as exc:
            raise _rpc_of(exc) from None
        jobs = self.backends.jobs
        if method == "tasks/list":
            cursor = params.get("cursor")
            page = await jobs.list(
                api_key, limit=_TASK_PAGE, before=cursor if isinstance(cursor, str) else None
            )
            listed: dict[str, Any] = {"tasks": [tasks.task_view(job) for job in page]}
            if len(page) == _TASK_PAGE:
                listed["nextCursor"] = page[-1].id
            return listed
        task_id = params.get("taskId")
        if not isinstance(task_id, str):
            raise RpcError(INVALID_PARAMS, "params.taskId must be the task id (a string)")
        if method not in ("tasks/get", "tasks/result", "tasks/cancel"):
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method[:100]}")
        try:
            job = await jobs.get(api_key, task_id)
            if method == "tasks/get":
                return tasks.task_view(job)
            if method == "tasks/result":
                return await self._task_result(await tasks.finished(jobs, api_key, job))
            if job.finished:
                msg = f"task {task_id} is already {tasks.task_view(job)['status']}"
                raise RpcError(INVALID_PARAMS, msg)
            return tasks.task_view(await jobs.cancel(api_key, task_id))
        except errors.HttpProblem as exc:
            raise _rpc_of(exc) from None

    async def _task_result(self, job: Job) -> dict[str, Any]:
        """A finished task's result, text first when a reading tool submitted it."""
        tool = job_tool(job.kind, job.request)
        field = None
        if tool is not None and job.status == "succeeded":
            field = text_field(tool, job.kind, job.request)
        link = None
        if tool is not None and field is not None:
            link = await self._text_file(tool, job.result or {}, field, job_id=job.id)
        return tasks.task_result(job, self.version, text_field=field, link=link)

    async def _text_file(
        self, tool: McpTool, body: Mapping[str, Any], field: str, *, job_id: str | None = None
    ) -> TextFile | None:
        """Where a reading tool's text is as a file: the operation's own (a read page), or,
        for a tool whose operation stores none (a read document), the text stored now (once
        per task, for a task's result)."""
        if tool.reads_as is None:
            return file_link(body, field)
        return await store_text(
            self.backends.production,
            str(body.get(field, "")),
            kind=tool.operation.kind,
            base_url=str(self.request.base_url).rstrip("/"),
            job_id=job_id,
        )

    async def _stored_tool(
        self, tool: McpTool, arguments: dict[str, Any], api_key: ApiKey
    ) -> StoredAnswer:
        """The tool's result as an answer to keep: the status its envelope would have."""
        before = dict(self.headers)
        status, result = await self._run_tool(tool, arguments, api_key)
        headers = {
            k.lower(): v
            for k, v in self.headers.items()
            if k.lower() in KEPT_HEADERS and before.get(k) != v
        }
        return StoredAnswer(status=status, headers=headers, body=msgspec.json.encode(result))

    async def _run_tool(
        self, tool: McpTool, arguments: dict[str, Any], api_key: ApiKey
    ) -> tuple[int, dict[str, Any]]:
        """Run the tool's operation: its result, and the HTTP status REST would answer."""
        try:
            inline, arguments = inline_mode(tool, arguments)
            execution = await execute(
                tool.operation,
                arguments,
                production=self.backends.production,
                key_id=api_key.key_id,
                plan=api_key.plan,
                base_url=str(self.request.base_url).rstrip("/"),
            )
        except (RenderkitError, errors.HttpProblem) as exc:
            described = errors.envelope(exc)
            if described is None:
                raise
            return described[0], self._tool_error(tool.name, exc)
        self.headers.update(execution.headers)
        field = tool.reads_as or execution.text_field
        if field is not None:
            body = execution.body
            link = await self._text_file(tool, body, field)
            return 200, text_first_result(body, field=field, version=self.version, link=link)
        preview = None
        if wants_preview(execution, inline):
            workers = self.backends.production.engines.workers.image
            preview = await _preview(execution.content or b"", tool.name, workers)
        return 200, success_result(execution, self.version, inline=inline, preview=preview)

    def _tool_error(self, name: str, exc: RenderkitError | errors.HttpProblem) -> dict[str, Any]:
        described = errors.envelope(exc)
        if described is None:
            raise exc
        status, body, headers = described
        if status >= 500:
            logger.warning("MCP %s: %s %s", name, body["code"], exc)
        self.headers.update(headers)
        return error_result(body)

    def _authenticate(self) -> ApiKey:
        # A missing or invalid key becomes a tool result, not HTTP 401: a 401 makes MCP
        # clients start an OAuth flow this server does not offer, where an error result tells
        # the agent what to do.
        return authenticate(self.request, self.backends.keys)


#: Tasks per ``tasks/list`` page.
_TASK_PAGE = 50


def _rpc_of(exc: RenderkitError | errors.HttpProblem) -> RpcError:
    """A refused ``tasks/*`` request (no key, an unknown task) as a JSON-RPC error."""
    described = errors.envelope(exc)
    if described is None:
        raise exc
    status, body, _ = described
    code = INVALID_PARAMS if status == 404 else INVALID_REQUEST
    return RpcError(code, str(body.get("error", "refused")), data={"code": body.get("code")})


def _idempotency_key(request: Request[Any, Any, Any], params: Mapping[str, Any]) -> str | None:
    """The call's idempotency key: the ``Idempotency-Key`` header of the POST, else the
    ``_meta`` entry :data:`META_IDEMPOTENCY_KEY` of the call (a client that cannot set
    headers per call can set it there).

    Raises:
        HttpProblem: 400 ``INVALID_HEADER``, a malformed key.
    """
    value = request.headers.get(HEADER)
    if value is None:
        meta = params.get("_meta")
        found = meta.get(META_IDEMPOTENCY_KEY) if isinstance(meta, dict) else None
        value = found if isinstance(found, str) else None
    return None if value is None else parse_key(value)


async def _preview(content: bytes, tool: str, workers: WorkerPool) -> Preview | None:
    # Decoding and scaling a full-page screenshot takes a while (and its pixels in memory):
    # off the event loop, in a bounded pool. The file is made and paid for by now, so a
    # preview that cannot be made leaves the link alone rather than failing the call.
    try:
        return await workers.run(preview_image, content)
    except ValueError:
        logger.warning("MCP %s: the image could not be previewed; sending the link only", tool)
    except WorkersBusyError:
        logger.info("MCP %s: preview workers busy; sending the link only", tool)
    return None


# --- the endpoint -----------------------------------------------------------------------------


def _request_version(
    request: Request[Any, Any, Any], session_version: str | None, message_id: Any
) -> str:
    header = request.headers.get("mcp-protocol-version")
    if header is None:
        return session_version or DEFAULT_VERSION
    if header not in SUPPORTED_VERSIONS:
        raise RpcError(
            INVALID_REQUEST,
            f"unsupported MCP-Protocol-Version {header[:40]!r}; this server speaks "
            f"{', '.join(SUPPORTED_VERSIONS)} (send initialize to negotiate)",
            id=message_id,
            http_status=400,
            data={"supported": list(SUPPORTED_VERSIONS), "requested": header[:40]},
        )
    return header


def _first_id(payload: Any) -> Any:
    if isinstance(payload, dict):
        value = payload.get("id")
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
    return None


_SESSIONS_DOWN = "the session store is unavailable; retry shortly"


async def _session_version(request: Request[Any, Any, Any], sessions: McpSessions) -> str | None:
    """The live session's revision; 404 for an unknown or ended session id."""
    session_id = request.headers.get("mcp-session-id")
    if session_id is None:
        return None
    try:
        version: str | None = await sessions.version(session_id)
    except StorageUnavailableError:
        # Fail closed: an ended session must not come back while the store is away.
        raise RpcError(INTERNAL_ERROR, _SESSIONS_DOWN, http_status=503) from None
    if version is None:
        raise RpcError(
            INVALID_REQUEST,
            "unknown or ended session: send initialize to start a new one",
            http_status=404,
        )
    return version


@post(PATHS, status_code=200, include_in_schema=False)
async def mcp_post(
    request: Request[Any, Any, Any],
    settings: NamedDependency[Settings],
    keys: NamedDependency[KeyService],
    mcp_sessions: NamedDependency[McpSessions],
    production: NamedDependency[Production],
    idempotency: NamedDependency[Idempotency],
    jobs: NamedDependency[JobService],
) -> Response[Any]:
    """One JSON-RPC message (or a 2025-03-26 batch) from an MCP client."""
    raw = await request.body()  # read first: early answers must not strand the body
    backends = _Backends(
        sessions=mcp_sessions,
        keys=keys,
        production=production,
        idempotency=idempotency,
        jobs=jobs,
    )
    try:
        check_origin(request.headers, settings)
        content_type = request.headers.get("content-type", "").lower()
        if "json" not in content_type:
            return _json_response(
                RpcError(INVALID_REQUEST, "send the message as application/json").body(), 415
            )
        json_ok, sse_ok = accepts(request.headers)
        if not (json_ok or sse_ok):
            return _json_response(
                RpcError(
                    INVALID_REQUEST, "Accept must allow application/json or text/event-stream"
                ).body(),
                406,
            )
        try:
            payload = await decode_json_off_loop(raw)
        except JsonBodyError as exc:
            msg = f"parse error: the body {exc.reason}"
            raise RpcError(PARSE_ERROR, msg, http_status=400) from None
        if is_modern(payload, request.headers):
            message = parse_message(payload)
            if message.kind != "request":
                return Response(content=b"", status_code=202)
            version = check_envelope(message, request.headers, ALL_VERSIONS)
            call = _Call(request, version, backends, modern=True)
            return await _answer(call, message, json_ok, sse_ok)
        initialize = isinstance(payload, dict) and payload.get("method") == "initialize"
        session_version = None if initialize else await _session_version(request, mcp_sessions)
        version = (
            LATEST_VERSION
            if initialize
            else _request_version(request, session_version, _first_id(payload))
        )
        if isinstance(payload, list):
            return await _batch(request, payload, version, backends)
        message = parse_message(payload)
    except RpcError as exc:
        return _rpc_error_response(exc)
    if message.kind != "request":
        return Response(content=b"", status_code=202)
    return await _answer(_Call(request, version, backends), message, json_ok, sse_ok)


async def _answer(call: _Call, message: Message, json_ok: bool, sse_ok: bool) -> Response[Any]:
    if wants_stream(message, json_ok, sse_ok):
        return await stream(call, message)
    response = await call.dispatch(message)
    return _json_response(response, call.status, call.headers)


async def _batch(
    request: Request[Any, Any, Any], payload: list[Any], version: str, backends: _Backends
) -> Response[Any]:
    if version not in BATCH_VERSIONS:
        raise RpcError(
            INVALID_REQUEST,
            f"batches are not allowed in protocol revision {version} (only in 2025-03-26)",
            http_status=400,
        )
    if not payload:
        raise RpcError(INVALID_REQUEST, "an empty batch is not a request", http_status=400)
    if len(payload) > 50:
        raise RpcError(INVALID_REQUEST, "a batch may hold at most 50 messages", http_status=400)
    call = _Call(request, version, backends)
    responses: list[dict[str, Any]] = []
    for item in payload:
        try:
            message = parse_message(item)
            if message.method == "initialize":
                raise RpcError(
                    INVALID_REQUEST, "initialize must not be part of a batch", id=message.id
                )
        except RpcError as exc:
            responses.append(exc.body())
            continue
        if message.kind == "request":
            responses.append(await call.dispatch(message))
    if not responses:
        return Response(content=b"", status_code=202)
    return _json_response(responses, 200, call.headers)


@get(PATHS, include_in_schema=False)
async def mcp_get(
    request: Request[Any, Any, Any], settings: NamedDependency[Settings]
) -> Response[Any]:
    """No server-initiated stream: 405, which every client takes as "none offered"."""
    try:
        check_origin(request.headers, settings)
    except RpcError as exc:
        return _rpc_error_response(exc)
    return Response(
        content=b"",
        status_code=405,
        headers={"Allow": "POST, DELETE"},
    )


@delete(PATHS, status_code=200, include_in_schema=False)
async def mcp_delete(
    request: Request[Any, Any, Any],
    settings: NamedDependency[Settings],
    mcp_sessions: NamedDependency[McpSessions],
) -> Response[Any]:
    """End a session: 204, or 404 for an unknown or already ended one."""
    try:
        check_origin(request.headers, settings)
    except RpcError as exc:
        return _rpc_error_response(exc)
    session_id = request.headers.get("mcp-session-id")
    if session_id is None:
        return _json_response(
            RpcError(
                INVALID_REQUEST, "send the Mcp-Session-Id header of the session to end"
            ).body(),
            400,
        )
    try:
        ended = await mcp_sessions.end(session_id)
    except StorageUnavailableError:
        return _json_response(RpcError(INTERNAL_ERROR, _SESSIONS_DOWN).body(), 503)
    if not ended:
        return _json_response(RpcError(INVALID_REQUEST, "unknown or ended session").body(), 404)
    return Response(content=b"", status_code=204)
