"""Who is calling: the API key in the request headers, verified; and the operator's token.

One path for every caller: the REST handlers and the MCP ``tools/call`` both use
:func:`authenticate`, which returns the verified :class:`~renderkit_server.keys.ApiKey` or
raises :class:`~renderkit_server.keys.InvalidKeyError` (registered here as 401
``UNAUTHORIZED``; the MCP transport reports it as a tool error instead of an HTTP status).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any

from litestar.connection import ASGIConnection

from renderkit_server import errors
from renderkit_server.errors import HttpProblem
from renderkit_server.keys import ApiKey, InvalidKeyError, KeyService

__all__ = ["authenticate", "extract_key", "is_admin", "require_admin"]

errors.register(InvalidKeyError, 401, "UNAUTHORIZED")

_MISSING_KEY = (
    "missing API key: send Authorization: Bearer <key> or X-SVC-Key: <key> "
    "(keys come from POST /api/keys/generate)"
)


def extract_key(headers: Mapping[str, str]) -> str | None:
    """Find the API key in request headers.

    ``Authorization: Bearer <key>`` and ``X-SVC-Key: <key>`` are accepted; header names
    and the ``Bearer`` scheme are case-insensitive. An ``Authorization`` header of any other
    form (empty included) is a credential we cannot accept, so it is refused rather than ignored:
    silently falling back to ``X-SVC-Key`` would hide a client sending the wrong credential.

    Args:
        headers: request headers (a plain mapping or a case-insensitive one).

    Returns:
        The key, or None when no key header is present or the key is empty.

    Raises:
        InvalidKeyError: an ``Authorization`` header that is not a bearer key (reason
            ``malformed``), or two key headers carrying different keys (reason
            ``conflicting_headers``).
    """
    found: set[str] = set()
    for name, value in headers.items():
        lowered = name.lower()
        if lowered == "authorization":
            scheme, _, token = value.strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                found.add(token.strip())
            else:
                raise InvalidKeyError(reason="malformed")
        elif lowered == "x-svc-key" and value.strip():
            found.add(value.strip())
    if len(found) > 1:
        raise InvalidKeyError(reason="conflicting_headers")
    return found.pop() if found else None


def authenticate(connection: ASGIConnection[Any, Any, Any, Any], keys: KeyService) -> ApiKey:
    """The caller's verified key (in memory, no database read).

    The key's fingerprint goes into the scope state as ``key_fingerprint`` for the access
    log.

    Args:
        connection: the request.
        keys: the key service that issued the key.

    Returns:
        The key's claims; ``key_id`` is the caller's identity for quotas.

    Raises:
        InvalidKeyError: no key (reason ``missing``), or a key that does not verify.
    """
    token = extract_key(connection.headers)
    if token is None:
        raise InvalidKeyError(reason="missing", message=_MISSING_KEY)
    api_key = keys.verify(token)
    connection.scope["state"]["key_fingerprint"] = keys.fingerprint(token)
    return api_key


def is_admin(headers: Mapping[str, str], admin_token: str | None) -> bool:
    """Whether the request carries the operator's admin token as a bearer token.

    Args:
        headers: request headers.
        admin_token: the configured token; None or empty means no one is admin.

    Returns:
        True only for an exact match (compared in constant time).
    """
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return bool(
        admin_token
        and scheme.lower() == "bearer"
        and hmac.compare_digest(value.strip().encode(), admin_token.encode())
    )


def require_admin(headers: Mapping[str, str], admin_token: str | None) -> None:
    """Refuse a request without the operator's admin token.

    Args:
        headers: request headers.
        admin_token: the configured token.

    Raises:
        HttpProblem: 401 ``UNAUTHORIZED``.
    """
    if not is_admin(headers, admin_token):
        raise HttpProblem(401, "UNAUTHORIZED", "this call needs the operator's admin token")
