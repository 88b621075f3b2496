"""Reading a request's JSON body, with the error envelope's codes for each way it can be wrong.

Every JSON route (REST, keys, MCP) decodes through :func:`decode_json`, so malformed bodies of
any depth or encoding are a client's 400, never a decoder's ``RecursionError`` or
``UnicodeDecodeError`` turned 500.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

import msgspec
from litestar import Request

from renderkit_server.errors import HttpProblem

__all__ = ["MAX_JSON_DEPTH", "JsonBodyError", "decode_json", "json_depth", "json_object"]

#: Deepest nesting of arrays and objects accepted in a body. Real requests nest a few levels;
#: the cap keeps every later walk over the payload (validators, converters) far from
#: Python's recursion limit.
MAX_JSON_DEPTH = 64

# A JSON string, escapes included (unrolled so it runs in linear time on long strings).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# Every byte but the four brackets, deleted by bytes.translate before counting.
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
# Depth change per bracket byte, indexed by the byte's value.
_STEP = [0] * 256
for _opening in b"[{":
    _STEP[_opening] = 1
for _closing in b"]}":
    _STEP[_closing] = -1


class JsonBodyError(ValueError):
    """The body is not JSON this server accepts.

    Attributes:
        reason: what is wrong, as a predicate of "the body" (``is not JSON``), so each route
            words the subject its own way.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"the request body {reason}")
        self.reason = reason


def json_depth(raw: bytes) -> int:
    """The deepest bracket nesting of a JSON text, found without recursion.

    Brackets inside strings do not count. On malformed text (an unterminated string) the
    figure may be too high, which only matters for a body the decoder refuses anyway.

    Args:
        raw: the JSON text.

    Returns:
        0 for a scalar, 1 for ``[]`` or ``{}``, and so on.
    """
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    # accumulate/map run in C: linear in the body and fast even at the body size limit.
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def decode_json(raw: bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Decode a JSON body, refusing over-deep nesting and text that is not UTF-8.

    Args:
        raw: the body.
        max_depth: the deepest nesting of arrays and objects accepted.

    Returns:
        The decoded value.

    Raises:
        JsonBodyError: the body is not valid UTF-8 JSON or nests deeper than ``max_depth``.
    """
    if json_depth(raw) > max_depth:
        reason = f"nests arrays and objects deeper than {max_depth} levels"
        raise JsonBodyError(reason)
    try:
        return msgspec.json.decode(raw)
    except UnicodeDecodeError:  # invalid UTF-8 inside a string; outside one it is a DecodeError
        raise JsonBodyError("is not JSON: it holds bytes that are not UTF-8") from None
    except msgspec.DecodeError:
        raise JsonBodyError("is not JSON") from None


async def json_object(request: Request[Any, Any, Any], *, required: bool = True) -> dict[str, Any]:
    """The body as a JSON object.

    Args:
        request: the request; any ``Content-Type`` naming JSON is accepted, and none at all.
        required: whether an empty body is an error; when not, it reads as ``{}``.

    Returns:
        The decoded object.

    Raises:
        HttpProblem: 415 ``UNSUPPORTED_MEDIA_TYPE``, 400 ``MISSING_FIELD`` (empty body),
            ``INVALID_JSON`` (malformed, not UTF-8 or nested too deep) or ``INVALID_FIELD``
            (not an object).
    """
    content_type = request.headers.get("content-type", "")
    if content_type and "json" not in content_type.lower():
        raise HttpProblem(415, "UNSUPPORTED_MEDIA_TYPE", "send the body as application/json")
    raw = await request.body()
    if not raw.strip():
        if not required:
            return {}
        raise HttpProblem(400, "MISSING_FIELD", "the request body is empty; send a JSON object")
    try:
        payload = decode_json(raw)
    except JsonBodyError as exc:
        raise HttpProblem(400, "INVALID_JSON", str(exc)) from None
    if not isinstance(payload, dict):
        raise HttpProblem(400, "INVALID_FIELD", "the request body must be a JSON object")
    return payload
