"""One error envelope for every failure: ``{"error": ..., "code": ..., "status": ...}``.

Library exceptions carry no HTTP knowledge; this module is the only place that maps them to
statuses, resolved along the exception's MRO so the most specific entry wins.
"""

from __future__ import annotations

import difflib
import logging
import math
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException

from renderkit import (
    BlockedUrlError,
    BrowserBusyError,
    BrowserUnavailableError,
    FieldError,
    InvalidRequestError,
    MissingDependencyError,
    NavigationError,
    ProviderError,
    ProviderUnavailableError,
    RenderError,
    RenderkitError,
    RenderTimeoutError,
    StorageError,
    StorageFullError,
    TenantBusyError,
    WorkersBusyError,
)
from renderkit.core.times import isoformat_z
from renderkit_server.quotas.errors import LimitExceededError

__all__ = ["HttpProblem", "error_response", "exception_handler"]

logger = logging.getLogger("renderkit_server")


class HttpProblem(Exception):
    """An error raised by the server layer itself, with its status and code.

    Not :class:`renderkit.ApiError`, the library's error for a hosted API refusing a call:
    this one is the server's own refusal (a bad signature, a forbidden plan...), answered
    with the error envelope at ``status``. ``field`` names what the client sent wrong
    (a header such as ``Idempotency-Key``), answered as the envelope's ``field``.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}
        self.field = field


# exception class -> (status, code). Resolved along the MRO: the most specific wins.
_TABLE: dict[type[BaseException], tuple[int, str]] = {
    InvalidRequestError: (400, "INVALID_FIELD"),
    BlockedUrlError: (400, "BLOCKED_URL"),
    NavigationError: (502, "NAVIGATION_FAILED"),
    RenderTimeoutError: (504, "RENDER_TIMEOUT"),
    RenderError: (500, "RENDER_FAILED"),
    # A key over its own in-flight + queue allowance: the pool is not full, its share is.
    TenantBusyError: (429, "TOO_MANY_IN_FLIGHT"),
    BrowserBusyError: (503, "OVERLOADED"),
    # A CPU worker pool (OCR, audio, PDF) is full: the machine is, like a full browser pool.
    WorkersBusyError: (503, "OVERLOADED"),
    BrowserUnavailableError: (503, "RENDERER_UNAVAILABLE"),
    ProviderUnavailableError: (503, "UPSTREAM_UNAVAILABLE"),
    ProviderError: (502, "UPSTREAM_ERROR"),
    StorageFullError: (507, "STORAGE_FULL"),
    StorageError: (503, "STORAGE_ERROR"),
    MissingDependencyError: (503, "DEPENDENCY_MISSING"),
    RenderkitError: (500, "INTERNAL_ERROR"),
}

_HTTP_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    429: "RATE_LIMITED",
}


def register(exc_type: type[BaseException], status: int, code: str) -> None:
    """Map another exception type (e.g. the quota errors) to a status and code."""
    _TABLE[exc_type] = (status, code)


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Response[dict[str, Any]]:
    """Build the envelope response."""
    body: dict[str, Any] = {"error": message, "code": code, "status": status, **(extra or {})}
    return Response(body, status_code=status, headers=headers or {}, media_type=MediaType.JSON)


def _lookup(exc: BaseException) -> tuple[int, str] | None:
    for cls in type(exc).__mro__:
        if cls in _TABLE:
            return _TABLE[cls]
    return None


def _retry_headers(exc: BaseException) -> tuple[dict[str, str], dict[str, Any]]:
    # A reached limit chooses its own headers, so each keeps one meaning (quotas.errors);
    # anything else that asks for a retry (busy, unavailable) only says when.
    if isinstance(exc, LimitExceededError):
        return exc.headers(), {"retry_at": isoformat_z(exc.reset_at)}
    headers: dict[str, str] = {}
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        headers["Retry-After"] = str(max(1, math.ceil(retry_after)))
    return headers, {}


def _field(error: FieldError) -> dict[str, str]:
    described = {"field": error.field, "message": error.message}
    if error.suggestion is not None:
        described["suggestion"] = error.suggestion
    return described


def envelope(exc: BaseException) -> tuple[int, dict[str, Any], dict[str, str]] | None:
    """The status, envelope body and headers of a known error; None for an unexpected one.

    Shared by the REST exception handler and the MCP tools, which report the same envelope
    inside a tool result.
    """
    if isinstance(exc, HttpProblem):
        body: dict[str, Any] = {"error": exc.message, "code": exc.code, "status": exc.status}
        if exc.field is not None:
            body["field"] = exc.field
        return exc.status, body, dict(exc.headers)
    if isinstance(exc, InvalidRequestError):
        # MISSING_FIELD only when nothing but required fields are absent: an unknown field (a
        # misspelt option, never silently ignored) is INVALID_FIELD, like a wrong value.
        code = "MISSING_FIELD" if exc.missing else "INVALID_FIELD"
        fields = [_field(e) for e in exc.errors]
        return 400, {"error": str(exc), "code": code, "status": 400, "fields": fields}, {}
    mapped = _lookup(exc)
    if mapped is None:
        return None
    status, code = mapped
    headers, extra = _retry_headers(exc)
    field = getattr(exc, "field", None)
    if field:
        extra["field"] = field
    message = str(exc)
    if isinstance(exc, BlockedUrlError) and exc.private:
        # The library's message names its own switch, which an API client cannot set.
        message = "private addresses are not allowed"
    return status, {"error": message, "code": code, "status": status, **extra}, headers


# Only the API's own prefixes get a suggestion: elsewhere a 404 is a stray browser request.
_SUGGESTED_PREFIXES = ("/api/", "/v1/")


def _closest_path(request: Request[Any, Any, Any]) -> str | None:
    """The app's literal path under the same API prefix closest to the one requested, if any
    is close (``/api/pdf`` -> ``/api/pdf-gen``)."""
    path = request.url.path
    prefix = next((p for p in _SUGGESTED_PREFIXES if path.startswith(p)), None)
    if prefix is None:
        return None
    # Paths with parameters ({key:str}) name no URL a client could call as written.
    known = [
        route.path
        for route in request.app.routes
        if route.path.startswith(prefix) and "{" not in route.path
    ]
    # The closest by difflib's ratio; of equally close paths the app's first (the operations
    # table's order: /api/pdf suggests pdf-gen, not pdf-ops), where get_close_matches would
    # take the alphabetically last.
    best, best_score = None, 0.6
    for candidate in known:
        score = difflib.SequenceMatcher(None, candidate, path).ratio()
        if score > best_score or (best is None and score == best_score):
            best, best_score = candidate, score
    return best


def exception_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """Turn any exception into the envelope; unknown errors become a bare 500."""
    if isinstance(exc, HTTPException):  # HttpProblem is no HTTPException: handled below
        status = exc.status_code
        code = _HTTP_CODES.get(status, "HTTP_ERROR" if status < 500 else "INTERNAL_ERROR")
        message = exc.detail if status < 500 else "internal error"
        if status == 405:
            message = f"method {request.method} not allowed on {request.url.path}"
        extra: dict[str, Any] = {}
        if status == 404:
            message = f"no such endpoint: {request.url.path}"
            suggestion = _closest_path(request)
            if suggestion is not None:
                message = f"{message}; did you mean {suggestion}?"
                extra["suggestion"] = suggestion
        headers = {k: v for k, v in (exc.headers or {}).items() if k.lower() == "allow"}
        return error_response(status, code, message, headers=headers, extra=extra)
    described = envelope(exc)
    if described is None:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, "INTERNAL_ERROR", "internal error")
    status, body, headers = described
    if status == 429 and "metrics" in request.app.state:
        request.app.state.metrics.observe_rejection(exc)
    if status >= 500:
        logger.warning("%s on %s: %s", body["code"], request.url.path, exc)
    return Response(body, status_code=status, headers=headers, media_type=MediaType.JSON)
