"""``GET /metrics``: Prometheus text format, with the maintained ``prometheus_client``.

What is measured:

- ``renderkit_http_requests_total{method,route,status}`` and
  ``renderkit_http_request_duration_seconds{method,route}``: every HTTP request, labelled by
  its route *template* (``/api/image``, ``/files/{path:path}``; ``unmatched`` for 404s), never
  by raw path or API key, so the series stay few.
- ``renderkit_renders_total{kind,backend,outcome}`` and
  ``renderkit_render_duration_seconds{kind,backend}``: production calls (REST and MCP) by
  kind (image, pdf, screenshot, audio, parse), backend (``local``/remote endpoint for the
  browser, the speech provider, the parse extractor) and outcome (``ok`` or the error code).
- ``renderkit_limit_rejections_total{limit,metric}``: 429s from monthly quotas
  (``limit="quota"``), burst/abuse windows (``limit="rate"``) and failed-work budgets
  (``limit="failed_work"``), by the metric refused.
- ``renderkit_cache_requests_total{kind,result}``: render cache lookups of cached operations
  (``result`` ``hit``, ``miss``, or ``bypass`` for ``cache: false``).
- ``renderkit_jobs_queued{kind}``: asynchronous jobs waiting in the shared queue (sampled);
  ``renderkit_job_queue_wait_seconds{kind}`` (submit to claim) and
  ``renderkit_job_run_seconds{kind}`` (claim to outcome) histograms; and
  ``renderkit_jobs_finished_total{kind,status}`` (succeeded, failed, cancelled, requeued).
- ``renderkit_webhook_deliveries_total{outcome}`` and
  ``renderkit_webhook_attempt_duration_seconds{outcome}``: webhook attempts that
  succeeded (``success``) or failed (``failed_attempt``, retried or not), and deliveries
  that gave up (``gave_up``, counted once per delivery, beside its last failed attempt).
- ``renderkit_browser_{slots,busy,queued,healthy}{endpoint}`` and
  ``renderkit_workers_{max,busy,queued}{pool}``: capacity gauges, sampled every second.

With several uvicorn workers, set ``PROMETHEUS_MULTIPROC_DIR`` to an empty directory
before the server starts (prometheus_client reads it at import): every process then writes
its values there, any worker's ``/metrics`` reports all of them (counters and histograms
summed; gauges summed over live processes, ``livesum``), and a stopping worker removes its
gauges. Without it, each process reports its own.

``RENDERKIT_METRICS_TOKEN`` set: the endpoint needs ``Authorization: Bearer <token>``.
Unset it is open, like most exporters; it shows no keys, paths or secrets.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from renderkit.browser import Browser
from renderkit_server.engines import Engines, Workers
from renderkit_server.errors import HttpProblem, envelope

__all__ = ["MULTIPROC_ENV", "Metrics", "MetricsMiddleware", "metrics_endpoint"]

logger = logging.getLogger("renderkit_server")
T = TypeVar("T")

#: prometheus_client's own variable: the directory every worker process writes to.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Renders take 50 ms (an image) to a minute (a long parse); HTTP adds the cheap routes.
_RENDER_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0)
_HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, *_RENDER_BUCKETS[1:])
# A job waits from milliseconds (idle queue) to hours (a month-end backlog).
_JOB_WAIT_BUCKETS = (0.01, 0.05, 0.25, 1.0, 5.0, 30.0, 120.0, 600.0, 1800.0, 3600.0, 14400.0)
# A webhook attempt is bounded by its timeout (10 s by default).
_WEBHOOK_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# The text format generate_latest writes (Litestar adds the charset).
_TEXT_FORMAT = "text/plain; version=0.0.4"

#: Operation names as render kinds.
_KINDS = {"pdf-gen": "pdf"}


class Metrics:
    """The metrics of one app; see the module docstring for what each one counts.

    Args:
        multiprocess_dir: prometheus_client's multiprocess directory (``None``: this
            process only). It must match what prometheus_client read at import.
    """

    def __init__(self, *, multiprocess_dir: str | None = None) -> None:
        self.multiprocess_dir = multiprocess_dir
        # Each app owns its registry: nothing goes to prometheus_client's global one.
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "renderkit_http_requests",
            "HTTP requests by route template and status",
            ["method", "route", "status"],
            registry=r,
        )
        self.request_seconds = Histogram(
            "renderkit_http_request_duration_seconds",
            "HTTP request latency by route template",
            ["method", "route"],
            buckets=_HTTP_BUCKETS,
            registry=r,
        )
        self.renders = Counter(
            "renderkit_renders",
            "Production calls by kind, backend and outcome (ok or the error code)",
            ["kind", "backend", "outcome"],
            registry=r,
        )
        self.render_seconds = Histogram(
            "renderkit_render_duration_seconds",
            "Production call time (rendering, not storing) by kind and backend",
            ["kind", "backend"],
            buckets=_RENDER_BUCKETS,
            registry=r,
        )
        self.rejections = Counter(
            "renderkit_limit_rejections",
            "Calls refused with 429 by a quota (limit=quota) or a window (limit=rate)",
            ["limit", "metric"],
            registry=r,
        )
        self.cache_requests = Counter(
            "renderkit_cache_requests",
            "Render cache lookups by kind and result (hit, miss or bypass)",
            ["kind", "result"],
            registry=r,
        )
        self.webhook_deliveries = Counter(
            "renderkit_webhook_deliveries",
            "Webhook attempts (success, failed_attempt), deliveries that gave up (gave_up) "
            "and events that could not be queued (not_queued)",
            ["outcome"],
            registry=r,
        )
        self.webhook_seconds = Histogram(
            "renderkit_webhook_attempt_duration_seconds",
            "Webhook attempt latency, to the receiver's answer or the failure, by outcome",
            ["outcome"],
            buckets=_WEBHOOK_BUCKETS,
            registry=r,
        )

        self.jobs_queued = Gauge(
            "renderkit_jobs_queued",
            "Asynchronous jobs waiting in the queue, by kind (the shared queue's depth)",
            ["kind"],
            # Every process reads the same shared queue: the latest sample, not a sum.
            multiprocess_mode="mostrecent",
            registry=r,
        )
        self.job_wait_seconds = Histogram(
            "renderkit_job_queue_wait_seconds",
            "Time from a job's submission to its (latest) claim, by kind",
            ["kind"],
            buckets=_JOB_WAIT_BUCKETS,
            registry=r,
        )
        self.job_run_seconds = Histogram(
            "renderkit_job_run_seconds",
            "Time from a job's claim to its outcome, by kind",
            ["kind"],
            buckets=_RENDER_BUCKETS,
            registry=r,
        )
        self.jobs_finished = Counter(
            "renderkit_jobs_finished",
            "Job runs by kind and outcome (succeeded, failed, cancelled, requeued)",
            ["kind", "status"],
            registry=r,
        )

        def gauge(name: str, doc: str, label: str) -> Gauge:
            return Gauge(name, doc, [label], multiprocess_mode="livesum", registry=r)

        self.browser_slots = gauge("renderkit_browser_slots", "Browser render slots", "endpoint")
        self.browser_busy = gauge("renderkit_browser_busy", "Renders running", "endpoint")
        self.browser_queued = gauge("renderkit_browser_queued", "Renders waiting", "endpoint")
        self.browser_healthy = gauge(
            "renderkit_browser_healthy", "Browser endpoints up (1) or down (0)", "endpoint"
        )
        self.workers_max = gauge("renderkit_workers_max", "Workers per CPU pool", "pool")
        self.workers_busy = gauge("renderkit_workers_busy", "CPU jobs running", "pool")
        self.workers_queued = gauge("renderkit_workers_queued", "CPU jobs waiting", "pool")

    @classmethod
    def from_environ(cls, environ: dict[str, str] | os._Environ[str]) -> Metrics:
        """Metrics in multiprocess mode when ``PROMETHEUS_MULTIPROC_DIR`` is set."""
        return cls(multiprocess_dir=environ.get(MULTIPROC_ENV) or None)

    def exposition(self) -> bytes:
        """Every metric in Prometheus text format (all processes' in multiprocess mode)."""
        if self.multiprocess_dir is None:
            return generate_latest(self.registry)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=self.multiprocess_dir)  # type: ignore[no-untyped-call]
        return generate_latest(registry)

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one HTTP request."""
        self.requests.labels(method, route, str(status)).inc()
        self.request_seconds.labels(method, route).observe(seconds)

    def observe_rejection(self, exc: BaseException) -> None:
        """Count a 429 from a quota or a window (other errors are ignored)."""
        from renderkit_server.quotas import (
            FailedWorkExhaustedError,
            QuotaExceededError,
            RateLimitedError,
        )

        if isinstance(exc, QuotaExceededError):
            self.rejections.labels("quota", exc.metric).inc()
        elif isinstance(exc, RateLimitedError):
            self.rejections.labels("rate", exc.metric).inc()
        elif isinstance(exc, FailedWorkExhaustedError):
            self.rejections.labels("failed_work", exc.metric).inc()

    def observe_webhook(self, outcome: str, seconds: float | None) -> None:
        """Count a webhook attempt (``success``, ``failed_attempt``, with its ``seconds``),
        a delivery that gave up (``gave_up``) or an event that could not be queued
        (``not_queued``), ``seconds`` None for both."""
        self.webhook_deliveries.labels(outcome).inc()
        if seconds is not None:
            self.webhook_seconds.labels(outcome).observe(seconds)

    async def timed_render(self, operation: str, engines: Engines, run: Awaitable[T]) -> T:
        """Await ``run`` (one production call's work), counting its kind, backend and outcome.

        ``engines`` name the backend label (the browser endpoint, speech or extractor).
        """
        kind = _KINDS.get(operation, operation)
        backend = _backend(kind, engines)
        started = time.perf_counter()
        outcome = "ok"
        try:
            return await run
        except BaseException as exc:
            described = envelope(exc)
            outcome = described[1]["code"] if described is not None else "INTERNAL_ERROR"
            if isinstance(exc, asyncio.CancelledError):
                outcome = "CANCELLED"
            raise
        finally:
            self.renders.labels(kind, backend, outcome).inc()
            self.render_seconds.labels(kind, backend).observe(time.perf_counter() - started)

    def sample_jobs(self, depth: dict[str, int], kinds: tuple[str, ...]) -> None:
        """Set the queue depth gauge of every kind (0 for kinds with nothing queued)."""
        for kind in kinds:
            self.jobs_queued.labels(_KINDS.get(kind, kind)).set(depth.get(kind, 0))

    def observe_job(self, kind: str, status: str, *, waited: float, ran: float) -> None:
        """Count one job run: its wait for a worker, its run time and its outcome."""
        label = _KINDS.get(kind, kind)
        self.job_wait_seconds.labels(label).observe(max(waited, 0.0))
        self.job_run_seconds.labels(label).observe(max(ran, 0.0))
        self.jobs_finished.labels(label, status).inc()

    def sample(self, browser: Browser, workers: Workers) -> None:
        """Set the capacity gauges from the live browser pool and worker pools."""
        stats = getattr(browser, "stats", None)
        if stats is not None:
            for member in stats().members:
                self.browser_slots.labels(member.endpoint).set(member.slots)
                self.browser_busy.labels(member.endpoint).set(member.busy)
                self.browser_queued.labels(member.endpoint).set(member.queued)
                self.browser_healthy.labels(member.endpoint).set(1 if member.healthy else 0)
        for pool in workers.all():
            self.workers_max.labels(pool.name).set(pool.max_workers)
            self.workers_busy.labels(pool.name).set(pool.busy)
            self.workers_queued.labels(pool.name).set(pool.queued)

    async def sample_forever(
        self, browser: Browser, workers: Workers, *, every: float = 1.0
    ) -> None:
        """Sample the gauges every ``every`` seconds (other processes' scrapes read them)."""
        while True:
            try:
                self.sample(browser, workers)
            except Exception:  # a failing probe must not end the sampling
                logger.warning("sampling the capacity gauges failed", exc_info=True)
            await asyncio.sleep(every)

    def close(self) -> None:
        """In multiprocess mode, drop this process's live gauges (it is stopping)."""
        if self.multiprocess_dir is not None:
            multiprocess.mark_process_dead(os.getpid(), self.multiprocess_dir)  # type: ignore[no-untyped-call]


def _backend(kind: str, engines: Engines) -> str:
    if kind == "audio":
        return str(getattr(engines.speech, "name", type(engines.speech).__name__))
    if kind == "parse":
        return str(getattr(engines.extractor, "name", type(engines.extractor).__name__))
    stats = getattr(engines.browser, "stats", None)
    if stats is None:
        return type(engines.browser).__name__  # a test double or a custom Browser
    members = stats().members
    return members[0].endpoint if len(members) == 1 else "fleet"


class MetricsMiddleware:
    """Counts every HTTP request by method, route template and status, with its latency.

    Args:
        app: the next ASGI application.
        metrics: where to count.
    """

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI connection; only HTTP requests are counted."""
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            # Set by the router; absent when no route matched (a 404): never the raw path.
            route = scope.get("path_template") or "unmatched"
            self.metrics.observe_request(
                scope["method"], route, status, time.perf_counter() - started
            )


@get("/metrics", summary="Prometheus metrics", include_in_schema=False)
async def metrics_endpoint(
    request: Request[Any, Any, Any], engines: NamedDependency[Engines]
) -> Response[bytes]:
    """Every metric in Prometheus text format (see :mod:`renderkit_server.metrics`)."""
    state = request.app.state
    token: str | None = state.settings.metrics_token
    if token:
        sent = request.headers.get("authorization", "")
        scheme, _, value = sent.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            value.strip().encode(), token.encode()
        ):
            msg = "metrics need Authorization: Bearer <RENDERKIT_METRICS_TOKEN>"
            raise HttpProblem(401, "UNAUTHORIZED", msg, headers={"WWW-Authenticate": "Bearer"})
    metrics: Metrics = state.metrics
    metrics.sample(engines.browser, engines.workers)
    return Response(metrics.exposition(), media_type=_TEXT_FORMAT)
