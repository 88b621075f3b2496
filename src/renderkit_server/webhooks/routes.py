"""``GET /api/webhooks/secret`` and ``POST /api/webhooks/secret/rotate`` (also under ``/v1``).

Both need the caller's API key and answer for its lineage only: a key sees and rotates its
own lineage's secret, never another's. The answer is never cached (``Cache-Control:
no-store``), and the secret appears nowhere else: not in logs, not in error bodies.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.di import NamedDependency
from litestar.types import ControllerRouterHandler

from renderkit.core.times import isoformat_z
from renderkit_server import errors
from renderkit_server.auth import authenticate
from renderkit_server.keys import KeyService
from renderkit_server.state.webhook_outbox import WebhookBacklogFullError
from renderkit_server.state.webhook_secrets import WebhookSecretEntry
from renderkit_server.webhooks.dispatcher import WebhookDispatcher, WebhookPayloadTooLargeError
from renderkit_server.webhooks.secrets import WebhookSecrets
from renderkit_server.webhooks.signing import format_secret

__all__ = ["ROUTES", "rotate_webhook_secret", "webhook_secret"]

errors.register(WebhookBacklogFullError, 429, "WEBHOOK_BACKLOG_FULL")
errors.register(WebhookPayloadTooLargeError, 413, "PAYLOAD_TOO_LARGE")

_NO_STORE = {"Cache-Control": "no-store"}


def _secret_body(secrets: WebhookSecrets, entry: WebhookSecretEntry) -> dict[str, Any]:
    until = secrets.previous_valid_until(entry)
    return {
        "success": True,
        "secret": format_secret(entry.current),
        "created": isoformat_z(entry.created),
        "previous_valid_until": None if until is None else isoformat_z(until),
    }


@get(
    ["/api/webhooks/secret", "/v1/webhooks/secret"],
    summary="The webhook signing secret of the calling key",
)
async def webhook_secret(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    webhooks: NamedDependency[WebhookDispatcher],
) -> Response[dict[str, Any]]:
    """The ``whsec_`` secret webhooks of this key's lineage are signed with; created on the
    first call. ``previous_valid_until`` says until when the secret a rotation replaced
    still signs beside it (null without a rotation)."""
    api_key = authenticate(request, keys)
    entry = await webhooks.secrets.fetch(api_key.key_id)
    return Response(_secret_body(webhooks.secrets, entry), headers=_NO_STORE)


@post(
    ["/api/webhooks/secret/rotate", "/v1/webhooks/secret/rotate"],
    status_code=200,
    summary="Rotate the webhook signing secret of the calling key",
)
async def rotate_webhook_secret(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    webhooks: NamedDependency[WebhookDispatcher],
) -> Response[dict[str, Any]]:
    """Make a new secret current at once; the replaced one keeps signing beside it until
    ``previous_valid_until`` (deliveries carry both signatures meanwhile)."""
    api_key = authenticate(request, keys)
    entry = await webhooks.secrets.rotate(api_key.key_id)
    return Response(_secret_body(webhooks.secrets, entry), headers=_NO_STORE)


#: What the app mounts for webhooks.
ROUTES: tuple[ControllerRouterHandler, ...] = (webhook_secret, rotate_webhook_secret)
