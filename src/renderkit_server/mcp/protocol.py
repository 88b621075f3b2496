"""JSON-RPC 2.0 messages and MCP protocol revisions, independent of HTTP.

The transport (:mod:`.transport`) decides statuses and framing; this module only knows what
a valid message is, which revisions exist and how an ``initialize`` request is negotiated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

__all__ = [
    "BATCH_VERSIONS",
    "DEFAULT_VERSION",
    "LATEST_VERSION",
    "SUPPORTED_VERSIONS",
    "Message",
    "RpcError",
    "error_body",
    "negotiate",
    "parse_message",
    "result_body",
    "version_at_least",
]

#: Handshake revisions served, newest first (the stateless ones are in :mod:`.modern`).
SUPPORTED_VERSIONS: tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_VERSION = SUPPORTED_VERSIONS[0]
#: What a request without ``MCP-Protocol-Version`` (and without a session) is taken to speak,
#: as the 2025-06-18 and 2025-11-25 transports say.
DEFAULT_VERSION = "2025-03-26"
#: JSON-RPC batches exist only in this revision (added 2025-03-26, removed 2025-06-18).
BATCH_VERSIONS = frozenset({"2025-03-26"})

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class RpcError(Exception):
    """A JSON-RPC error answer, with the HTTP status the transport sends it with."""

    def __init__(
        self,
        code: int,
        message: str,
        *,
        id: Any = None,
        http_status: int = 200,
        data: Any = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id
        self.http_status = http_status
        self.data = data

    def body(self) -> dict[str, Any]:
        """The JSON-RPC error response object."""
        return error_body(self.id, self.code, self.message, self.data)


@attrs.frozen(kw_only=True)
class Message:
    """One parsed client message.

    Attributes:
        kind: ``request`` (has an id), ``notification`` (no id) or ``response`` (a client's
            answer to a server request; nothing to reply).
        id: the request id, a string or an integer, echoed exactly.
        method: the method name (requests and notifications).
        params: the params object (empty when absent).
    """

    kind: str
    id: str | int | None = None
    method: str = ""
    params: Mapping[str, Any] = attrs.field(factory=dict)


def _valid_id(value: Any) -> bool:
    # JSON-RPC ids are strings or numbers; MCP forbids null, and a float or a bool is never
    # a useful id (True == 1 would also make responses ambiguous).
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def parse_message(obj: Any) -> Message:
    """Check one decoded JSON value is a JSON-RPC 2.0 message.

    Raises:
        RpcError: -32600 (HTTP 400) naming what is wrong; it carries the request id when one
            could be read.
    """
    if not isinstance(obj, dict):
        raise RpcError(INVALID_REQUEST, "a JSON-RPC message must be an object", http_status=400)
    raw_id = obj.get("id")
    id_ = raw_id if _valid_id(raw_id) else None
    if obj.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'jsonrpc must be "2.0"', id=id_, http_status=400)
    if "id" in obj and id_ is None:
        raise RpcError(
            INVALID_REQUEST, "id must be a string or an integer (not null)", http_status=400
        )
    if "method" not in obj:
        if id_ is not None and ("result" in obj or "error" in obj):
            return Message(kind="response", id=id_)
        raise RpcError(INVALID_REQUEST, "method is required", id=id_, http_status=400)
    method = obj["method"]
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, "method must be a string", id=id_, http_status=400)
    params = obj.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object", id=id_)
    kind = "notification" if "id" not in obj else "request"
    return Message(kind=kind, id=id_, method=method, params=params)


def negotiate(requested: Any) -> str:
    """The revision to answer ``initialize`` with: the requested one when served, otherwise
    the latest (never an error, as every handshake revision specifies)."""
    return requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION


def version_at_least(version: str, minimum: str) -> bool:
    """Whether ``version`` is ``minimum`` or newer (revisions are ISO dates)."""
    return version >= minimum


def result_body(id_: str | int | None, result: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-RPC success response object."""
    return {"jsonrpc": "2.0", "id": id_, "result": dict(result)}


def error_body(id_: str | int | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC error response object (``id`` null when it could not be read)."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": error}
