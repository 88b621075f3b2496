"""Reading a request's JSON body, with the error envelope's codes for each way it can be wrong."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request

from renderkit_server.errors import ApiError

__all__ = ["json_object"]


async def json_object(request: Request[Any, Any, Any], *, required: bool = True) -> dict[str, Any]:
    """The body as a JSON object.

    Args:
        request: the request; any ``Content-Type`` naming JSON is accepted, and none at all.
        required: whether an empty body is an error; when not, it reads as ``{}``.

    Returns:
        The decoded object.

    Raises:
        ApiError: 415 ``UNSUPPORTED_MEDIA_TYPE``, 400 ``MISSING_FIELD`` (empty body),
            ``INVALID_JSON`` or ``INVALID_FIELD`` (not an object).
    """
    content_type = request.headers.get("content-type", "")
    if content_type and "json" not in content_type.lower():
        raise ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "send the body as application/json")
    raw = await request.body()
    if not raw.strip():
        if not required:
            return {}
        raise ApiError(400, "MISSING_FIELD", "the request body is empty; send a JSON object")
    try:
        payload = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        raise ApiError(400, "INVALID_JSON", "the request body is not valid JSON") from None
    if not isinstance(payload, dict):
        raise ApiError(400, "INVALID_FIELD", "the request body must be a JSON object")
    return payload
