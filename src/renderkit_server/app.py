"""``create_app(settings)``: the Litestar application around the renderkit library."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from litestar import Litestar, Request, Response, get, post
from litestar.config.cors import CORSConfig
from litestar.datastructures import State

import renderkit
from renderkit import InvalidRequestError, RenderkitError
from renderkit.browser import Browser
from renderkit.core.times import isoformat_z
from renderkit.storage import Storage
from renderkit_server import errors
from renderkit_server.auth import authenticate, extract_key, is_admin, require_admin
from renderkit_server.errors import ApiError
from renderkit_server.files import serve_file
from renderkit_server.health import diagnostic_report, health_report
from renderkit_server.keys import InvalidKeyError
from renderkit_server.mail import MailDeliveryError, Mailer, key_email
from renderkit_server.mcp.transport import mcp_delete, mcp_get, mcp_post
from renderkit_server.observability import RequestIdMiddleware
from renderkit_server.openapi import openapi_document
from renderkit_server.operations import OPERATIONS, Operation, execute
from renderkit_server.quotas import QuotaExceededError, RateLimitedError
from renderkit_server.services import Services, build_services
from renderkit_server.settings import Settings

__all__ = ["create_app"]

logger = logging.getLogger("renderkit_server")

errors.register(QuotaExceededError, 429, "QUOTA_EXCEEDED")
errors.register(RateLimitedError, 429, "RATE_LIMITED")


def _services(request: Request[Any, Any, Any]) -> Services:
    return request.app.state.services


def _base_url(request: Request[Any, Any, Any]) -> str:
    return str(request.base_url).rstrip("/")


async def _json_body(request: Request[Any, Any, Any], *, required: bool = True) -> Any:
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


def _production_handler(operation: Operation) -> Any:
    paths = [f"/api/{operation.name}", f"/v1/{operation.name}"]

    @post(paths, summary=operation.title, description=operation.description, status_code=200)
    async def handler(request: Request[Any, Any, Any]) -> Response[Any]:
        services = _services(request)
        api_key = authenticate(request, services.keys)
        payload = await _json_body(request)
        result = await execute(
            operation,
            payload,
            services=services,
            key_id=api_key.key_id,
            plan=api_key.plan,
            base_url=_base_url(request),
        )
        return Response(result.body, headers=result.headers)

    handler.fn.__name__ = f"{operation.name.replace('-', '_')}_handler"
    return handler


def _client_address(request: Request[Any, Any, Any], services: Services) -> str:
    if services.settings.trust_forwarded_for:
        forwarded = request.headers.get("x-forwarded-for", "")
        if forwarded:
            return forwarded.split(",")[0].strip()
    client = request.client
    return client.host if client else "unknown"


async def _send_key(services: Services, issued: Any, *, regenerated: bool) -> None:
    message = key_email(issued, sender=services.settings.smtp_sender, regenerated=regenerated)
    try:
        await services.mailer.send(message)
    except MailDeliveryError:
        # The key is in the response already; a mail outage must not lose the customer's key.
        logger.warning("could not e-mail a key to its owner", exc_info=True)


def _key_body(issued: Any) -> dict[str, Any]:
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
async def generate_key(request: Request[Any, Any, Any]) -> Response[Any]:
    """Issue a key for an e-mail address. Self-service keys are starter keys; other plans
    need the operator's admin token. Self-service issuance is rate-limited per client."""
    services = _services(request)
    payload = await _json_body(request)
    email = payload.get("email")
    plan = payload.get("plan", "starter")
    if email is None:
        raise InvalidRequestError.single("email", "is required", missing=True)
    admin = is_admin(request.headers, services.settings.admin_token)
    if plan != "starter" and isinstance(plan, str) and not admin:
        raise ApiError(
            403,
            "FORBIDDEN",
            f"plan {plan[:20]!r} keys are issued by the operator; "
            "self-service keys are starter keys",
        )
    if not admin:
        await services.quotas.limit_issuance(_client_address(request, services))
    issued = await services.keys.issue(email, plan)
    await _send_key(services, issued, regenerated=False)
    return Response(_key_body(issued))


@post(["/api/keys/regenerate", "/v1/keys/regenerate"], status_code=200, summary="Rotate an API key")
async def regenerate_key(request: Request[Any, Any, Any]) -> Response[Any]:
    """Issue a new key for the same plan and e-mail; the old key stops working at once.

    The old key comes from the body ``key`` (variant A) or the key headers (variant B)."""
    services = _services(request)
    payload = await _json_body(request, required=False)
    token = payload.get("key") if isinstance(payload.get("key"), str) else None
    if token is None:
        token = extract_key(request.headers)
    if not token:
        msg = "send the key to rotate in the body or headers"
        raise InvalidKeyError(reason="missing", message=msg)
    issued = await services.keys.regenerate(token)
    await _send_key(services, issued, regenerated=True)
    return Response(_key_body(issued))


@get(["/api/health", "/v1/health"], summary="Service health")
async def health(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """Overall and per-capability status; cheap enough for load balancers."""
    return health_report(_services(request))


@get(["/api/health/diagnostic", "/v1/health/diagnostic"], summary="Operator diagnostics")
async def diagnostic(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """Live checks of configuration, storage, browser, usage store and speech provider.

    Needs the admin token. Reports which settings are set and their lengths, never values."""
    services = _services(request)
    require_admin(request.headers, services.settings.admin_token)
    return await diagnostic_report(services)


@get(["/openapi.json", "/api/openapi.json", "/v1/openapi.json"], include_in_schema=False)
async def openapi(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """The OpenAPI 3.1 document, generated from the same models the handlers use."""
    return openapi_document(OPERATIONS.values(), version=renderkit.__version__)


async def _refresh_revocations(services: Services, every: float = 2.0) -> None:
    # Each process caches key revocations; replicas sharing the store pick up another
    # replica's regenerations within `every` seconds (their own take effect at once).
    while True:
        await asyncio.sleep(every)
        try:
            await services.keys.refresh()
        except RenderkitError:
            logger.warning("could not refresh key revocations", exc_info=True)


def create_app(
    settings: Settings | None = None,
    *,
    browser: Browser | None = None,
    storage: Storage | None = None,
    usage_store: Any | None = None,
    mailer: Mailer | None = None,
    speech: Any | None = None,
    extractor: Any | None = None,
) -> Litestar:
    """Build the application.

    Args:
        settings: configuration; read from the environment when omitted.
        browser, storage, usage_store, mailer, speech, extractor: backends to use instead of
            the ones the settings describe (tests pass in-memory ones).
    """
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        services = await build_services(
            settings,
            browser=browser,
            storage=storage,
            usage_store=usage_store,
            mailer=mailer,
            speech=speech,
            extractor=extractor,
        )
        app.state.services = services
        refresher = asyncio.get_running_loop().create_task(_refresh_revocations(services))
        try:
            yield
        finally:
            refresher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await refresher
            await services.aclose()

    cors = (
        CORSConfig(
            allow_origins=list(settings.cors_origins),
            # Browser MCP clients must read the session id and the quota headers.
            expose_headers=[
                "Mcp-Session-Id",
                "X-RateLimit-Limit",
                "X-RateLimit-Remaining",
                "X-RateLimit-Reset",
                "Retry-After",
                "X-Request-Id",
            ],
        )
        if settings.cors_origins
        else None
    )
    return Litestar(
        route_handlers=[
            *(_production_handler(op) for op in OPERATIONS.values()),
            generate_key,
            regenerate_key,
            health,
            diagnostic,
            openapi,
            serve_file,
            mcp_post,
            mcp_get,
            mcp_delete,
        ],
        lifespan=[lifespan],
        exception_handlers={Exception: errors.exception_handler},
        middleware=[RequestIdMiddleware],
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors,
        openapi_config=None,
        logging_config=None,  # the host process configures logging (JSON lines in `serve`)
        state=State({"settings": settings}),
    )
