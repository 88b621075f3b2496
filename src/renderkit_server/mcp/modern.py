"""The stateless 2026-07-28 revision: per-request envelopes instead of a handshake.

A modern request carries its protocol version and client capabilities in
``params._meta`` (and mirrors version, method and tool name in the ``MCP-Protocol-Version``,
``Mcp-Method`` and ``Mcp-Name`` headers). There is no ``initialize``, session or ``ping``:
``server/discover`` says what the server supports, and every result is tagged
``resultType``. The checks below are the order the revision specifies: envelope, then the
headers agreeing with it, then the version.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from renderkit_server.mcp.protocol import INVALID_PARAMS, Message, RpcError

__all__ = [
    "MODERN_VERSIONS",
    "check_envelope",
    "is_modern",
]

#: Stateless revisions served.
MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)

HEADER_MISMATCH = -32020
UNSUPPORTED_PROTOCOL_VERSION = -32022

_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
# Methods whose subject is mirrored in the Mcp-Name header, and the param that holds it.
_NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_B64 = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$")


def is_modern(payload: Any, headers: Mapping[str, str]) -> bool:
    """Whether a request speaks the stateless revision.

    The per-request envelope decides; without one, a modern version header does, except on
    ``initialize``, which always selects the handshake.
    """
    if not isinstance(payload, dict):
        return False
    params = payload.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if isinstance(meta, dict) and _VERSION_KEY in meta:
        return True
    return (
        headers.get("mcp-protocol-version") in MODERN_VERSIONS
        and payload.get("method") != "initialize"
    )


def _decode_header(value: str | None) -> str | None:
    # `=?base64?...?=` carries names a header cannot hold; a malformed one matches nothing.
    if value is None:
        return None
    match = _B64.fullmatch(value)
    if match is None:
        return value
    payload = match.group("payload")
    try:
        decoded = base64.b64decode(payload, validate=True)
        if base64.b64encode(decoded).decode("ascii") != payload:
            return None
        return decoded.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def check_envelope(message: Message, headers: Mapping[str, str], supported: tuple[str, ...]) -> str:
    """The revision a modern request speaks, after checking its envelope and headers.

    Raises:
        RpcError: HTTP 400 with -32602 (no envelope, or a missing key), -32020 (a header
            disagrees with the body) or -32022 (a version not served, listing ``supported``).
    """
    meta = message.params.get("_meta")
    if not isinstance(meta, dict):
        msg = f"params._meta must be an object carrying {_VERSION_KEY!r} and {_CAPABILITIES_KEY!r}"
        raise RpcError(INVALID_PARAMS, msg, id=message.id, http_status=400)
    missing = [key for key in (_VERSION_KEY, _CAPABILITIES_KEY) if key not in meta]
    if missing:
        msg = f"params._meta is missing {', '.join(missing)}"
        raise RpcError(INVALID_PARAMS, msg, id=message.id, http_status=400)
    version = meta[_VERSION_KEY]
    header = headers.get("mcp-protocol-version")
    if header is None or header != version:
        msg = "the MCP-Protocol-Version header does not match params._meta's protocol version"
        raise RpcError(HEADER_MISMATCH, msg, id=message.id, http_status=400)
    if headers.get("mcp-method") != message.method:
        msg = "the Mcp-Method header does not match the request's method"
        raise RpcError(HEADER_MISMATCH, msg, id=message.id, http_status=400)
    named = _NAMED.get(message.method)
    if named is not None:
        subject = message.params.get(named)
        if subject is not None and _decode_header(headers.get("mcp-name")) != subject:
            msg = f"the Mcp-Name header does not match params.{named}"
            raise RpcError(HEADER_MISMATCH, msg, id=message.id, http_status=400)
    if not isinstance(version, str):
        msg = f"{_VERSION_KEY} must be a string"
        raise RpcError(INVALID_PARAMS, msg, id=message.id, http_status=400)
    if version not in MODERN_VERSIONS:
        raise RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            id=message.id,
            http_status=400,
            data={"supported": list(supported), "requested": version},
        )
    return version
