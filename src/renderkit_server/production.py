"""The REST face of the operations table: ``POST /api/<name>`` (and ``/v1/<name>``) for each
production operation, and the OpenAPI document describing them.

Each handler authenticates, reads the JSON body and hands both to the metered pipeline
(:func:`renderkit_server.operations.execute`), which the MCP tools share; a client that
disconnects cancels its call (:mod:`renderkit_server.disconnect`). A call sent with an
``Idempotency-Key`` runs once per key (:mod:`renderkit_server.idempotency`). ``/api/audio``
with ``"stream": true`` answers the audio itself as it is spoken
(:mod:`renderkit_server.audiostream`).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.types import ControllerRouterHandler

import renderkit
from renderkit import InvalidRequestError
from renderkit_server.audiostream import STREAM_FIELD, stream_requested, streamed_audio
from renderkit_server.auth import authenticate, extract_key
from renderkit_server.bodies import json_object
from renderkit_server.disconnect import until_disconnected
from renderkit_server.idempotency import Idempotency, idempotent
from renderkit_server.idempotency.keys import HEADER as IDEMPOTENCY_HEADER
from renderkit_server.keys import KeyService
from renderkit_server.keys.url_secrets import UrlSecrets
from renderkit_server.openapi import openapi_document
from renderkit_server.operations import AUDIO, OPERATIONS, Operation, Production, execute

__all__ = ["ROUTES", "openapi", "operation_handler"]


def operation_handler(operation: Operation) -> HTTPRouteHandler:
    """The route handler serving one operation at ``/api/<name>`` and ``/v1/<name>``.

    Args:
        operation: an entry of the operations table.

    Returns:
        A POST handler answering the operation's response body and quota headers.
    """
    paths = [f"/api/{operation.name}", f"/v1/{operation.name}"]

    async def handler(
        request: Request[Any, Any, Any],
        keys: NamedDependency[KeyService],
        url_secrets: NamedDependency[UrlSecrets],
        production: NamedDependency[Production],
        idempotency: NamedDependency[Idempotency],
    ) -> Response[Any]:
        api_key = authenticate(request, keys)
        # Authenticated above, so the header holds the key: signed image URLs can name it.
        await url_secrets.remember(extract_key(request.headers) or "", api_key)

        async def work() -> Response[Any]:
            payload = await json_object(request)
            if operation is AUDIO and stream_requested(payload):
                if request.headers.get(IDEMPOTENCY_HEADER) is not None:
                    msg = "a streamed answer cannot be replayed: leave out Idempotency-Key"
                    raise InvalidRequestError.single(STREAM_FIELD, msg)
                # The answer is the audio itself, sent as it is spoken; the sender watches
                # for the client going away.
                return await streamed_audio(
                    payload, production=production, key_id=api_key.key_id, plan=api_key.plan
                )
            # The work stops (and charges nothing) when the client goes away.
            result = await until_disconnected(
                request.receive,
                execute(
                    operation,
                    payload,
                    production=production,
                    key_id=api_key.key_id,
                    plan=api_key.plan,
                    base_url=str(request.base_url).rstrip("/"),
                ),
            )
            return Response(result.body, headers=result.headers)

        # A retry with the same Idempotency-Key gets the first answer: no new work or charge.
        return await idempotent(request, idempotency, api_key.key_id, work)

    # Litestar reports handlers by function name (errors, logs): one name per operation.
    handler.__name__ = f"{operation.name.replace('-', '_')}_handler"
    return post(paths, summary=operation.title, description=operation.description, status_code=200)(
        handler
    )


@get(
    ["/openapi.json", "/api/openapi.json", "/v1/openapi.json", "/docs/openapi.json"],
    include_in_schema=False,
)
async def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document, generated from the same models the handlers use."""
    return openapi_document(OPERATIONS.values(), version=renderkit.__version__)


#: What the app mounts for the production operations.
ROUTES: tuple[ControllerRouterHandler, ...] = (
    *(operation_handler(operation) for operation in OPERATIONS.values()),
    openapi,
)
