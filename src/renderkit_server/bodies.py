"""Reading a request's JSON body, with the error envelope's codes for each way it can be wrong.

Every JSON route (REST, keys, MCP) decodes through :func:`decode_json`, so malformed bodies of
any depth or encoding are a client's 400, never a decoder's ``RecursionError`` or
``UnicodeDecodeError`` turned 500.

Some of these routes answer anyone (key issuance, MCP ``initialize``), so a body costs time
linear in its size whatever its shape: its shape is measured first, in linear time
(:mod:`renderkit_server.jsonshape`), and a body nesting too deep or holding too many values
is refused before the decoder runs. A large body is read in a worker thread
(:func:`decode_json_off_loop`) in steps that let the event loop run between them, so one
client's 10 MB body never stalls another client's request.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import anyio.to_thread
import msgspec
from litestar import Request

from renderkit_server.errors import HttpProblem
from renderkit_server.jsonshape import measure_json

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_JSON_ITEMS",
    "OFF_LOOP_BYTES",
    "JsonBodyError",
    "decode_json",
    "decode_json_off_loop",
    "json_depth",
    "json_object",
]

#: Deepest nesting of arrays and objects accepted in a body. Real requests nest a few levels;
#: the cap keeps every later walk over the payload (validators, converters) far from
#: Python's recursion limit.
MAX_JSON_DEPTH = 64

#: Most values and object keys accepted in a body (counted as opening brackets, commas and
#: colons outside strings). The decoder holds the GIL for its whole run, about 0.3 µs per
#: value: this cap keeps one decode under about 50 ms, the longest it can hold up other
#: requests. Large bodies are large strings (a document's base64), which cost almost nothing.
MAX_JSON_ITEMS = 100_000

#: Bodies larger than this are decoded in a worker thread. Smaller ones decode in well under a
#: millisecond, less than the hop to a thread costs.
OFF_LOOP_BYTES = 64 * 1024


class JsonBodyError(ValueError):
    """The body is not JSON this server accepts.

    Attributes:
        reason: what is wrong, as a predicate of "the body" (``is not JSON``), so each route
            words the subject its own way.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"the request body {reason}")
        self.reason = reason


# Between chunks of a body measured in a worker thread: let the event loop's thread run now.
_YIELD_GIL = functools.partial(time.sleep, 0)


def json_depth(raw: bytes) -> int:
    """The deepest bracket nesting of a JSON text, found without recursion.

    Brackets inside strings do not count; an unterminated string runs to the end of the
    text. Linear in the length of ``raw`` for any bytes.

    Args:
        raw: the JSON text.

    Returns:
        0 for a scalar, 1 for ``[]`` or ``{}``, and so on.
    """
    return measure_json(raw).depth


def decode_json(
    raw: bytes,
    *,
    max_depth: int = MAX_JSON_DEPTH,
    max_items: int = MAX_JSON_ITEMS,
    in_thread: bool = False,
) -> Any:
    """Decode a JSON body, refusing over-deep nesting, too many values and text not UTF-8.

    Args:
        raw: the body.
        max_depth: the deepest nesting of arrays and objects accepted.
        max_items: the most values and keys accepted.
        in_thread: running in a worker thread: hand the GIL back between chunks.

    Returns:
        The decoded value.

    Raises:
        JsonBodyError: the body is not valid UTF-8 JSON, nests deeper than ``max_depth`` or
            holds more than ``max_items`` values.
    """
    shape = measure_json(
        raw,
        max_depth=max_depth,
        max_items=max_items,
        between_chunks=_YIELD_GIL if in_thread else lambda: None,
    )
    if shape.depth > max_depth:
        reason = f"nests arrays and objects deeper than {max_depth} levels"
        raise JsonBodyError(reason)
    if shape.items > max_items:
        reason = f"holds more than {max_items} values"
        raise JsonBodyError(reason)
    try:
        return msgspec.json.decode(raw)
    except UnicodeDecodeError:  # invalid UTF-8 inside a string; outside one it is a DecodeError
        raise JsonBodyError("is not JSON: it holds bytes that are not UTF-8") from None
    except msgspec.DecodeError:
        raise JsonBodyError("is not JSON") from None


async def decode_json_off_loop(
    raw: bytes, *, max_depth: int = MAX_JSON_DEPTH, max_items: int = MAX_JSON_ITEMS
) -> Any:
    """:func:`decode_json`, in a worker thread when the body is over :data:`OFF_LOOP_BYTES`.

    The event loop keeps serving other requests meanwhile: a 10 MB body takes up to about
    half a second to measure.

    Args:
        raw: the body.
        max_depth: the deepest nesting of arrays and objects accepted.
        max_items: the most values and keys accepted.

    Returns:
        The decoded value.

    Raises:
        JsonBodyError: as :func:`decode_json`.
    """
    if len(raw) <= OFF_LOOP_BYTES:
        return decode_json(raw, max_depth=max_depth, max_items=max_items)
    return await anyio.to_thread.run_sync(
        lambda: decode_json(raw, max_depth=max_depth, max_items=max_items, in_thread=True)
    )


async def json_object(request: Request[Any, Any, Any], *, required: bool = True) -> dict[str, Any]:
    """The body as a JSON object.

    Args:
        request: the request; any ``Content-Type`` naming JSON is accepted, and none at all.
        required: whether an empty body is an error; when not, it reads as ``{}``.

    Returns:
        The decoded object.

    Raises:
        HttpProblem: 415 ``UNSUPPORTED_MEDIA_TYPE``, 400 ``MISSING_FIELD`` (empty body),
            ``INVALID_JSON`` (malformed, not UTF-8, nested too deep or too many values) or
            ``INVALID_FIELD`` (not an object).
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
        payload = await decode_json_off_loop(raw)
    except JsonBodyError as exc:
        raise HttpProblem(400, "INVALID_JSON", str(exc)) from None
    if not isinstance(payload, dict):
        raise HttpProblem(400, "INVALID_FIELD", "the request body must be a JSON object")
    return payload
