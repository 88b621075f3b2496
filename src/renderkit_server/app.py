"""``create_app(settings)``: the Litestar application around the renderkit library.

This module only composes: each concern owns its routes (``keys.routes``, ``files``,
``health``, ``production``, the MCP transport) and the app mounts them, builds the services
in its lifespan and injects into each handler the backends it names
(:mod:`renderkit_server.dependencies`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator

from litestar import Litestar
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.middleware import DefineMiddleware
from litestar.types import ControllerRouterHandler

from renderkit.browser import Browser
from renderkit.core.waits import cancel_and_wait
from renderkit.parsing import Extractor
from renderkit.speech import SpeechProvider
from renderkit.storage import Storage
from renderkit_server import docs, errors, files, health, production, signed_images
from renderkit_server.dependencies import DEPENDENCIES
from renderkit_server.engines import warm_speech
from renderkit_server.jobs import routes as jobs_routes
from renderkit_server.jobs.notify import JobNotifier
from renderkit_server.jobs.worker import JobWorkers, maintain_forever
from renderkit_server.keys import routes as keys_routes
from renderkit_server.mail import Mailer
from renderkit_server.mcp import mcp_delete, mcp_get, mcp_post
from renderkit_server.metrics import Metrics, MetricsMiddleware, metrics_endpoint
from renderkit_server.observability import RequestIdMiddleware
from renderkit_server.quotas import (
    FailedWorkExhaustedError,
    QuotaExceededError,
    RateLimitedError,
    UsageStore,
    UsageStoreUnavailableError,
)
from renderkit_server.services import build_services
from renderkit_server.settings import Settings
from renderkit_server.state.render_cache import RenderCache
from renderkit_server.usage import routes as usage_routes
from renderkit_server.webhooks import routes as webhooks_routes

__all__ = ["ROUTES", "create_app"]

errors.register(QuotaExceededError, 429, "QUOTA_EXCEEDED")
errors.register(RateLimitedError, 429, "RATE_LIMITED")
errors.register(FailedWorkExhaustedError, 429, "FAILED_WORK_EXHAUSTED")
errors.register(UsageStoreUnavailableError, 503, "QUOTA_UNAVAILABLE")

#: Every route the app serves, by concern.
ROUTES: tuple[ControllerRouterHandler, ...] = (
    *production.ROUTES,
    *jobs_routes.ROUTES,
    signed_images.signed_image,
    *keys_routes.ROUTES,
    *usage_routes.ROUTES,
    *webhooks_routes.ROUTES,
    *health.ROUTES,
    *files.ROUTES,
    *docs.ROUTES,
    mcp_post,
    mcp_get,
    mcp_delete,
    metrics_endpoint,
)

#: Seconds between full reloads of key revocations made by other processes: the longest an
#: old key keeps working elsewhere when no notification reaches this process (SQLite, or a
#: Redis notification lost with a silently dead subscriber connection).
logger = logging.getLogger("renderkit_server")

_REVOCATION_REFRESH_SECONDS = 1.0
#: Seconds the background loops get to stop at shutdown before it goes on without them.
_STOP_SECONDS = 10.0
#: Seconds a shutdown waits for the speech warm-up still creating Kokoro's sessions (6-20 s on
#: a busy two-core machine): a process that exits under it aborts.
_WARM_STOP_SECONDS = 60.0

# Browser MCP clients must read the session id and the quota headers.
_EXPOSED_HEADERS = [
    "Mcp-Session-Id",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "RateLimit-Policy",
    "RateLimit",
    "Retry-After",
    "X-Request-Id",
]


def create_app(
    settings: Settings | None = None,
    *,
    browser: Browser | None = None,
    storage: Storage | None = None,
    usage_store: UsageStore | None = None,
    render_cache: RenderCache | None = None,
    mailer: Mailer | None = None,
    speech: SpeechProvider | None = None,
    extractor: Extractor | None = None,
    notifier: JobNotifier | None = None,
) -> Litestar:
    """Build the application.

    Args:
        settings: configuration; read from the environment when omitted.
        browser: the browser to render with instead of the configured pool.
        storage: where produced files go instead of the configured storage.
        usage_store: the quota counters instead of the configured store.
        render_cache: the render cache's index instead of the configured one.
        mailer: how keys are e-mailed instead of the configured mailer.
        speech: the speech provider instead of the configured one.
        extractor: the document extractor instead of the configured one.
        notifier: announces finished jobs instead of the webhook outbox (tests).

    Returns:
        The app; its backends are built and started by its lifespan.
    """
    settings = settings or Settings.from_env()
    # prometheus_client reads its multiprocess directory from the environment at import.
    metrics = Metrics.from_environ(os.environ)

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        services = await build_services(
            settings,
            browser=browser,
            storage=storage,
            usage_store=usage_store,
            render_cache=render_cache,
            mailer=mailer,
            speech=speech,
            extractor=extractor,
            metrics=metrics,
            notifier=notifier,
        )
        app.state.services = services
        workers = JobWorkers(
            services.jobs,
            services.production,
            metrics=metrics,
            count=settings.jobs_workers,
            browser_share=settings.browser_slots * settings.jobs_browser_share // 100,
            lease_seconds=settings.jobs_lease_seconds,
        )
        app.state.job_workers = workers
        workers.start()
        loop = asyncio.get_running_loop()
        background = (
            loop.create_task(services.keys.refresh_forever(every=_REVOCATION_REFRESH_SECONDS)),
            loop.create_task(services.mailer.run()),  # retries key e-mails SMTP refused
            loop.create_task(services.webhooks.run()),  # delivers and retries webhooks
            loop.create_task(
                metrics.sample_forever(services.engines.browser, services.engines.workers)
            ),
            loop.create_task(maintain_forever(services.jobs, metrics)),
        )
        warming = loop.create_task(warm_speech(services.engines.speech))
        try:
            yield
        finally:
            # First: running jobs go back to the queue while the stores are still open.
            await workers.aclose()
            # The speech warm-up is waited for, not cancelled: its thread (creating the model's
            # sessions) cannot be stopped, and one still running at exit aborts the process.
            await asyncio.wait({warming}, timeout=_WARM_STOP_SECONDS)
            stuck = await cancel_and_wait(*background, warming, within=_STOP_SECONDS)
            for task in stuck:  # a shutdown goes on; the task is named for whoever debugs it
                logger.warning("a background task did not stop at shutdown: %r", task)
            await services.aclose()
            metrics.close()

    cors = (
        CORSConfig(allow_origins=list(settings.cors_origins), expose_headers=_EXPOSED_HEADERS)
        if settings.cors_origins
        else None
    )
    return Litestar(
        route_handlers=list(ROUTES),
        dependencies=DEPENDENCIES,
        lifespan=[lifespan],
        exception_handlers={Exception: errors.exception_handler},
        middleware=[RequestIdMiddleware, DefineMiddleware(MetricsMiddleware, metrics=metrics)],
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors,
        openapi_config=None,
        logging_config=None,  # the host process configures logging (JSON lines in `serve`)
        state=State({"settings": settings, "metrics": metrics}),
    )
