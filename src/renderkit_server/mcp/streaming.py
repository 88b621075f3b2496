"""How an answer travels: one JSON body, or a Server-Sent Events stream.

A request gets ``application/json`` unless the client cannot take it, or asks for progress
on a tool call (``params._meta.progressToken``) and accepts ``text/event-stream``. A stream
carries progress notifications when asked for, keep-alive comments while the tool runs
(proxies drop idle connections), then the response, and closes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol

import msgspec
from litestar.response import Stream

from renderkit_server.mcp.protocol import Message, version_at_least

__all__ = ["JSON", "KEEPALIVE_SECONDS", "SSE", "Dispatcher", "accepts", "stream", "wants_stream"]

JSON = "application/json"
SSE = "text/event-stream"
#: Seconds between SSE keep-alive comments while a tool runs (proxies drop idle streams).
KEEPALIVE_SECONDS = 10.0


class Dispatcher(Protocol):
    """What answers one request: the transport's per-POST call.

    Answering may set the HTTP status of the answer and headers to send with it (a new
    session id, the quota headers of a tool call).
    """

    version: str
    headers: dict[str, str]
    status: int

    async def dispatch(self, message: Message) -> dict[str, Any]:
        """Answer one request with a JSON-RPC response object."""
        ...


def accepts(headers: Mapping[str, str]) -> tuple[bool, bool]:
    """Return (JSON acceptable, SSE acceptable). No Accept header means anything goes."""
    accept = headers.get("accept", "").lower()
    if not accept.strip():
        return True, True
    kinds = {part.split(";", 1)[0].strip() for part in accept.split(",")}
    anything = "*/*" in kinds
    return (
        anything or JSON in kinds or "application/*" in kinds,
        anything or SSE in kinds or "text/*" in kinds,
    )


def wants_stream(message: Message, json_ok: bool, sse_ok: bool) -> bool:
    """Whether to answer ``message`` as an SSE stream, given what the client accepts."""
    if not sse_ok:
        return False
    if not json_ok:
        return True
    meta = message.params.get("_meta")
    return (
        message.method == "tools/call"
        and isinstance(meta, dict)
        and meta.get("progressToken") is not None
    )


def _sse_event(body: Any) -> bytes:
    return b"event: message\ndata: " + msgspec.json.encode(body) + b"\n\n"


def _progress(token: Any, progress: int, version: str, message: str) -> dict[str, Any]:
    params: dict[str, Any] = {"progressToken": token, "progress": progress, "total": 1}
    if version_at_least(version, "2025-03-26"):
        params["message"] = message
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}


async def stream(call: Dispatcher, message: Message) -> Stream:
    """Answer one request as an SSE stream: progress (when asked for), keep-alives while the
    tool runs, then the response; the stream closes after it."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if message.method != "tools/call":
        # Quick methods answer before the stream starts, so their headers (the session id
        # of an initialize) go out with it.
        response = await call.dispatch(message)
        return Stream(
            iter([_sse_event(response)]),
            media_type=SSE,
            headers={**headers, **call.headers},
            status_code=call.status,
        )
    meta = message.params.get("_meta")
    token = meta.get("progressToken") if isinstance(meta, dict) else None

    async def events() -> AsyncIterator[bytes]:
        if token is not None:
            yield _sse_event(_progress(token, 0, call.version, "started"))
        # A plain task, not a task group: this generator yields while the tool runs, and a
        # client that goes away closes it mid-way; the task is then cancelled (and refunded).
        task = asyncio.ensure_future(call.dispatch(message))
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=KEEPALIVE_SECONDS)
                if done:
                    break
                yield b": keep-alive\n\n"
            response = task.result()
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if token is not None:
            yield _sse_event(_progress(token, 1, call.version, "done"))
        yield _sse_event(response)

    return Stream(events(), media_type=SSE, headers=headers)
