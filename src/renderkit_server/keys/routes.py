"""``POST /api/keys/generate`` and ``/api/keys/regenerate`` (also under ``/v1``).

Self-service issuance gives starter keys only; other plans need the operator's admin token.
Every issued key is also e-mailed to its owner. Abuse limits (429 ``RATE_LIMITED``), checked
only once a request is valid so a refused request uses no slot, and before anything is
issued or sent: self-service issuance per client address, regeneration per client address
and per key lineage, and key e-mails per recipient mailbox (so neither route can flood an
inbox). The operator's admin token bypasses the issuance and e-mail limits.

Keys carry no e-mail address: the owner's address is kept on the server
(:meth:`KeyService.owner_email`). A regenerated key whose lineage has no address on record
is returned in the response (``email`` null) and e-mailed to no one.
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Request, Response, post
from litestar.di import NamedDependency
from litestar.types import ControllerRouterHandler

from renderkit import InvalidRequestError
from renderkit.core.times import isoformat_z
from renderkit_server.auth import extract_key, is_admin
from renderkit_server.bodies import json_object
from renderkit_server.clientaddr import TrustedProxies, request_client_address
from renderkit_server.errors import HttpProblem
from renderkit_server.keys.emails import normalize_email
from renderkit_server.keys.service import KeyService, normalize_plan
from renderkit_server.keys.tokens import InvalidKeyError, IssuedKey
from renderkit_server.keys.url_secrets import UrlSecrets
from renderkit_server.mail import MailDeliveryError, key_email
from renderkit_server.mailspool import SpoolingMailer
from renderkit_server.quotas import QuotaService
from renderkit_server.settings import Settings

__all__ = ["ROUTES", "generate_key", "regenerate_key"]

logger = logging.getLogger("renderkit_server")


async def _send_key(
    mailer: SpoolingMailer, issued: IssuedKey, *, sender: str, regenerated: bool
) -> None:
    if issued.email is None:
        logger.warning("no owner e-mail on record for key lineage %s: not e-mailed", issued.key_id)
        return
    try:
        message = key_email(issued, sender=sender, regenerated=regenerated)
        await mailer.send(message)
    except MailDeliveryError as exc:
        # The key is in the response already; an outage was spooled for retry by the
        # mailer, so this is a refusal for good. The message is fixed text, never the key.
        logger.warning("could not e-mail a key to its owner: %s (%s)", exc, exc.reason)


def _key_body(issued: IssuedKey) -> dict[str, Any]:
    created = isoformat_z(issued.created)
    return {
        "success": True,
        "key": issued.key,
        "plan": issued.plan,
        "email": issued.email,
        "created": created,
        "issued_at": created,
    }


@post(["/api/keys/generate", "/v1/keys/generate"], status_code=200, summary="Issue an API key")
async def generate_key(
    request: Request[Any, Any, Any],
    settings: NamedDependency[Settings],
    keys: NamedDependency[KeyService],
    quotas: NamedDependency[QuotaService],
    trusted_proxies: NamedDependency[TrustedProxies],
    url_secrets: NamedDependency[UrlSecrets],
    mailer: NamedDependency[SpoolingMailer],
) -> Response[Any]:
    """Issue a key for an e-mail address. Self-service keys are starter keys; other plans
    need the operator's admin token. Self-service issuance is rate-limited per client."""
    payload = await json_object(request)
    email = payload.get("email")
    plan = payload.get("plan", "starter")
    if email is None:
        raise InvalidRequestError.single("email", "is required", missing=True)
    admin = is_admin(request.headers, settings.admin_token)
    if plan != "starter" and isinstance(plan, str) and not admin:
        raise HttpProblem(
            403,
            "FORBIDDEN",
            f"plan {plan[:20]!r} keys are issued by the operator; "
            "self-service keys are starter keys",
        )
    email, plan = normalize_email(email), normalize_plan(plan)  # 400s use no issuance slot
    if not admin:
        address = request_client_address(request, trusted_proxies)
        await quotas.limit_issuance(address)
        await quotas.limit_key_email(email)
    issued = await keys.issue(email, plan)
    await url_secrets.remember(issued.key, keys.verify(issued.key))
    await _send_key(mailer, issued, sender=settings.smtp_sender, regenerated=False)
    return Response(_key_body(issued))


@post(["/api/keys/regenerate", "/v1/keys/regenerate"], status_code=200, summary="Rotate an API key")
async def regenerate_key(
    request: Request[Any, Any, Any],
    settings: NamedDependency[Settings],
    keys: NamedDependency[KeyService],
    quotas: NamedDependency[QuotaService],
    trusted_proxies: NamedDependency[TrustedProxies],
    url_secrets: NamedDependency[UrlSecrets],
    mailer: NamedDependency[SpoolingMailer],
) -> Response[Any]:
    """Issue a new key for the same plan and owner; the old key stops working at once.

    Limited per client address, per key lineage and per recipient mailbox. The old key
    comes from the body ``key`` (the camelCase dialect) or the key headers (the snake_case
    dialect). The new key is e-mailed to the owner's address on record; with none it is only
    in the response."""
    payload = await json_object(request, required=False)
    body_key = payload.get("key")
    token = body_key if isinstance(body_key, str) else extract_key(request.headers)
    if not token:
        msg = "send the key to rotate in the body or headers"
        raise InvalidKeyError(reason="missing", message=msg)
    old = keys.verify(token)  # 401 before any counting
    address = request_client_address(request, trusted_proxies)
    await quotas.limit_regeneration(old.key_id, address)
    email = await keys.owner_email(old)
    if email is not None:
        await quotas.limit_key_email(email)
    issued = await keys.regenerate(token)
    await url_secrets.remember(issued.key, keys.verify(issued.key))
    await _send_key(mailer, issued, sender=settings.smtp_sender, regenerated=True)
    return Response(_key_body(issued))


#: What the app mounts for keys.
ROUTES: tuple[ControllerRouterHandler, ...] = (generate_key, regenerate_key)
