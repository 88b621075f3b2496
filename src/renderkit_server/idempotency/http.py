"""What a POST handler wraps around its work to honour ``Idempotency-Key``::

    api_key = authenticate(request, keys)
    return await idempotent(request, idempotency, api_key.key_id, lambda: work(...))

Without the header the work runs as before. With it, the body's fingerprint and the
authenticated key lineage decide (:meth:`~.service.Idempotency.run`): the first request
runs; a retry gets the stored first answer with ``Idempotent-Replayed: true``.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException

from renderkit_server import errors
from renderkit_server.errors import HttpProblem
from renderkit_server.idempotency.keys import HEADER, fingerprint_body, parse_key
from renderkit_server.idempotency.service import Idempotency, stored
from renderkit_server.state.idempotency import StoredAnswer

__all__ = ["KEPT_HEADERS", "REPLAYED_HEADER", "idempotent"]

#: Set on a replayed answer (Stripe's name).
REPLAYED_HEADER = "Idempotent-Replayed"

#: The response headers kept with an answer: what describes the answer itself. Rate-limit
#: headers describe the moment of the first call (a replay uses no quota), and nothing
#: carrying a credential (cookies) is ever kept.
KEPT_HEADERS = frozenset(
    {"content-type", "x-cache", "location", "content-disposition", "cache-control"}
)


def _status_of(exc: Exception) -> int:
    if isinstance(exc, HttpProblem):
        return exc.status
    if isinstance(exc, HTTPException):
        return exc.status_code
    described = errors.envelope(exc)
    return 500 if described is None else described[0]


def _answer_of(request: Request[Any, Any, Any], response: Response[Any]) -> StoredAnswer:
    content = response.content
    default = MediaType.TEXT if isinstance(content, bytes | str) else MediaType.JSON
    chosen = response.media_type or default
    media_type = chosen.value if isinstance(chosen, enum.Enum) else str(chosen)
    if isinstance(content, bytes | str):
        body = content.encode() if isinstance(content, str) else content
    else:
        body = response.render(content, media_type)
    headers = {k.lower(): v for k, v in response.headers.items() if k.lower() in KEPT_HEADERS}
    headers.setdefault("content-type", media_type)
    status = response.status_code or request.route_handler.status_code or 200
    return StoredAnswer(status=status, headers=headers, body=body)


def _replayed(answer: StoredAnswer) -> Response[bytes]:
    headers = {k: v for k, v in answer.headers.items() if k != "content-type"}
    headers[REPLAYED_HEADER] = "true"
    return Response(
        content=answer.body,
        status_code=answer.status,
        headers=headers,
        media_type=answer.headers.get("content-type", MediaType.JSON),
    )


async def idempotent(
    request: Request[Any, Any, Any],
    idempotency: Idempotency,
    lineage: str,
    work: Callable[[], Awaitable[Response[Any]]],
) -> Response[Any]:
    """Run a POST's ``work`` once per ``Idempotency-Key``, replaying its answer to retries.

    Call it once the caller is authenticated. The first answer is kept when it is a success
    or a client error a retry would repeat (400, 413, 415, 422); any other outcome (429,
    5xx, a timeout, a disconnect, an exception) frees the key so a retry runs again.

    Args:
        request: the request (its ``Idempotency-Key`` header and body).
        idempotency: the app's idempotency service.
        lineage: the authenticated key's lineage (``ApiKey.key_id``): keys never see other
            lineages' entries.
        work: the handler's work, returning its response or raising.

    Returns:
        The work's response, or the stored first answer with ``Idempotent-Replayed: true``.

    Raises:
        HttpProblem: 400 ``INVALID_HEADER`` (a malformed key), 409
            ``IDEMPOTENCY_KEY_REUSED`` or ``IDEMPOTENCY_KEY_IN_PROGRESS``.
    """
    value = request.headers.get(HEADER)
    if value is None:
        return await work()
    key = parse_key(value)
    fingerprint = await fingerprint_body(await request.body())
    first: list[Response[Any]] = []

    async def answer() -> StoredAnswer:
        try:
            response = await work()
        except Exception as exc:
            if not stored(_status_of(exc)):
                raise
            # The envelope the app's exception handler sends, built by that same handler.
            response = errors.exception_handler(request, exc)
        first.append(response)
        return _answer_of(request, response)

    answered = await idempotency.run(
        lineage=lineage,
        method=request.method,
        path=request.url.path,
        key=key,
        fingerprint=fingerprint,
        work=answer,
    )
    if answered.replayed:
        return _replayed(answered.answer)
    return first[0]
