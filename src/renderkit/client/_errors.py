"""The server's error envelopes turned back into the library's exceptions.

``renderkit_server.errors`` maps each exception to a status and an envelope ``code``; the
table here is its inverse, keyed by that code (more precise than the status: 503 alone could
be a full browser pool or a storage outage). Codes the library has no exception for become
:class:`~renderkit.core.errors.ApiError` with the status and code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from renderkit.core.errors import (
    ApiError,
    AuthenticationError,
    BlockedUrlError,
    BrowserBusyError,
    BrowserUnavailableError,
    FieldError,
    InvalidRequestError,
    MissingDependencyError,
    NavigationError,
    ProviderError,
    ProviderUnavailableError,
    RateLimitError,
    RenderError,
    RenderkitError,
    RenderTimeoutError,
    StorageError,
    StorageFullError,
    TenantBusyError,
)
from renderkit.core.retry import parse_retry_after

__all__ = ["error_from_envelope", "error_from_response"]

# What a provider error names as its provider when only the server knows which one failed.
_REMOTE = "renderkit-server"

_Build = Callable[[str, dict[str, Any], float | None], RenderkitError]

#: envelope code -> how to rebuild the exception from (message, body, Retry-After seconds).
_BY_CODE: dict[str, _Build] = {
    "BLOCKED_URL": lambda m, b, r: BlockedUrlError(m, url="", field=b.get("field")),
    "NAVIGATION_FAILED": lambda m, b, r: NavigationError(m, url=""),
    "RENDER_TIMEOUT": lambda m, b, r: RenderTimeoutError(m, timeout=0.0),
    "RENDER_FAILED": lambda m, b, r: RenderError(m),
    "TOO_MANY_IN_FLIGHT": lambda m, b, r: TenantBusyError(m, retry_after=r or 1.0),
    "OVERLOADED": lambda m, b, r: BrowserBusyError(m, retry_after=r or 1.0),
    "RENDERER_UNAVAILABLE": lambda m, b, r: BrowserUnavailableError(m, retry_after=r or 1.0),
    "UPSTREAM_UNAVAILABLE": lambda m, b, r: ProviderUnavailableError(m, provider=_REMOTE),
    "UPSTREAM_ERROR": lambda m, b, r: ProviderError(m, provider=_REMOTE),
    "STORAGE_FULL": lambda m, b, r: StorageFullError(m),
    "STORAGE_ERROR": lambda m, b, r: StorageError(m),
    "DEPENDENCY_MISSING": lambda m, b, r: MissingDependencyError(m),
    "QUOTA_EXCEEDED": lambda m, b, r: RateLimitError(
        m, status=429, code="QUOTA_EXCEEDED", retry_after=r
    ),
    "RATE_LIMITED": lambda m, b, r: RateLimitError(
        m, status=429, code="RATE_LIMITED", retry_after=r
    ),
}


def _field_error(described: dict[str, Any], *, missing: bool) -> FieldError:
    return FieldError(
        field=str(described.get("field", "")),
        message=str(described.get("message", "")),
        missing=missing,
        suggestion=described.get("suggestion"),
    )


def error_from_response(response: httpx.Response) -> RenderkitError:
    """The library exception an error response stands for.

    Args:
        response: a 4xx or 5xx answer of a renderkit server.
    """
    try:
        body = response.json()
    except ValueError:
        body = None
    return error_from_envelope(
        body if isinstance(body, dict) else {},
        response.status_code,
        parse_retry_after(response.headers.get("retry-after")),
    )


def error_from_envelope(
    body: dict[str, Any], status: int, retry_after: float | None = None
) -> RenderkitError:
    """The library exception an error envelope stands for: an error answer's body, or the
    ``error`` of a failed job (whose ``status`` is what the synchronous call would have had).

    Args:
        body: the envelope (``error``, ``code``, ``fields``...).
        status: the HTTP status it came with.
        retry_after: the seconds a ``Retry-After`` asked for, if any.
    """
    message = str(body.get("error") or f"HTTP {status}")
    code = str(body.get("code") or "")
    if code in ("INVALID_FIELD", "MISSING_FIELD"):
        fields = [f for f in body.get("fields") or [] if isinstance(f, dict)]
        missing = code == "MISSING_FIELD"
        if not fields:
            return InvalidRequestError.single("body", message, missing=missing)
        return InvalidRequestError(_field_error(f, missing=missing) for f in fields)
    build = _BY_CODE.get(code)
    if build is not None:
        return build(message, body, retry_after)
    if status == 401:
        return AuthenticationError(message, status=401, code=code or "UNAUTHORIZED")
    if status == 429:
        return RateLimitError(
            message, status=429, code=code or "RATE_LIMITED", retry_after=retry_after
        )
    return ApiError(message, status=status, code=code or "HTTP_ERROR")
