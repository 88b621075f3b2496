"""``GET /api/health`` (cheap, for load balancers) and the operator's live diagnostic view."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
from litestar import Request, get
from litestar.di import NamedDependency
from litestar.types import ControllerRouterHandler

import renderkit
from renderkit import RenderkitError
from renderkit.browser import BrowserFleet
from renderkit_server.auth import require_admin
from renderkit_server.services import Services, ocr_tool

__all__ = ["ROUTES", "diagnostic", "diagnostic_report", "health", "health_report"]

_CHECK_TIMEOUT = 10.0


def _browser_state(services: Services) -> str:
    browser = services.browser
    connected = getattr(browser, "connected", True)
    if not connected:
        if isinstance(browser, BrowserFleet):
            return "down"  # no member left: renders fail until the probe brings one back
        # Not connected yet (or crashed): the next render relaunches it, so degraded, not
        # down, unless the launch itself keeps failing.
        return "down" if services.browser_failed else "degraded"
    stats = browser.stats() if hasattr(browser, "stats") else None
    if stats is not None and stats.healthy < len(stats.members):
        return "degraded"  # a fleet serving on fewer browsers than it has
    return "ok"


def _browser_load(browser: object) -> dict[str, Any]:
    """Slots, load and per-endpoint state (endpoints redacted), when the browser tells."""
    stats = getattr(browser, "stats", None)
    if stats is None:
        return {}
    current = stats()
    return {
        "slots": current.slots,
        "busy": current.busy,
        "queued": current.queued,
        "endpoints": [attrs.asdict(member) for member in current.members],
    }


def _worst(*states: str) -> str:
    return max(states, key=("ok", "degraded", "down").index)


async def health_report(services: Services) -> dict[str, Any]:
    """Overall status, one value per capability and the shared components they need.

    The only I/O is the storage probe, cached for seconds and bounded by a timeout
    (:mod:`renderkit_server.probes`), so the check stays fast and cheap under load.
    """
    browser = _browser_state(services)
    storage = "ok" if await services.storage_probe.ok() else "down"
    # Every capability but parse stores a file: without storage it cannot answer.
    capabilities = {
        "image": _worst(browser, storage),
        "pdf": _worst(browser, storage),
        "screenshot": _worst(browser, storage),
        "audio": _worst("ok" if services.tools.get("espeak-ng") else "down", storage),
        "parse": "ok" if services.tools.get(ocr_tool(services)) else "down",
    }
    status = "ok" if all(v == "ok" for v in capabilities.values()) else "degraded"
    return {
        "status": status,
        "version": renderkit.__version__,
        "uptime_seconds": int(time.monotonic() - services.started_at),
        "services": capabilities,
        "components": {"browser": browser, "storage": storage},
    }


async def _timed(check: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        async with asyncio.timeout(_CHECK_TIMEOUT):
            details = await check()
        result: dict[str, Any] = {"ok": True, **details}
    except Exception as exc:  # a diagnostic reports failures instead of raising them
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


async def diagnostic_report(services: Services) -> dict[str, Any]:
    """Run live checks of every backend; secrets are reported as set/unset and length only."""

    async def storage() -> dict[str, Any]:
        key = f"health/probe-{os.getpid()}.txt"
        await services.storage.put(key, b"ok", content_type="text/plain")
        assert await services.storage.get(key) == b"ok"
        await services.storage.delete(key)
        return {"backend": type(services.storage).__name__}

    async def browser() -> dict[str, Any]:
        details: dict[str, Any] = {
            "backend": type(services.browser).__name__,
            # Whether the local browser runs unprivileged and sandboxed (None: remote mode).
            "sandboxed": getattr(services.browser, "sandboxed", None),
            "user": getattr(services.browser, "browser_user", None),
            **_browser_load(services.browser),
        }
        try:
            version = getattr(services.browser, "version", None)
            details["version"] = await version() if version is not None else ""
        except RenderkitError as exc:
            # Still show the endpoints: they say which browser is missing.
            details.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:300])
        return details

    async def usage() -> dict[str, Any]:
        await services.state.usage.ping()
        return {"backend": type(services.state.usage).__name__}

    async def speech() -> dict[str, Any]:
        path = shutil.which("espeak-ng")
        if path is None:
            msg = "espeak-ng is not installed"
            raise RuntimeError(msg)
        engines = getattr(services.speech, "engines", [services.speech])
        return {
            "provider": "local",
            "engine": "espeak-ng",
            "engines": [str(getattr(engine, "name", "?")) for engine in engines],
        }

    async def ocr() -> dict[str, Any]:
        engine = ocr_tool(services)
        if not services.tools.get(engine):
            msg = f"{engine} is not installed"
            raise RuntimeError(msg)
        return {"engine": engine}

    names = ("storage", "browser", "usage", "speech", "ocr")
    results = await asyncio.gather(*(_timed(c) for c in (storage, browser, usage, speech, ocr)))
    checks = dict(zip(names, results, strict=True))
    return {
        "status": "ok" if all(c["ok"] for c in checks.values()) else "degraded",
        "version": renderkit.__version__,
        "env": services.settings.environment_report(os.environ),
        "checks": checks,
    }


@get(["/api/health", "/v1/health"], summary="Service health")
async def health(services: NamedDependency[Services]) -> dict[str, Any]:
    """Overall and per-capability status; cheap enough for load balancers.

    Always 200 (the interface lists no other status): a failing dependency shows as
    ``"status": "degraded"`` with the capabilities it takes down."""
    return await health_report(services)


@get(["/api/health/diagnostic", "/v1/health/diagnostic"], summary="Operator diagnostics")
async def diagnostic(
    request: Request[Any, Any, Any], services: NamedDependency[Services]
) -> dict[str, Any]:
    """Live checks of configuration, storage, browser, usage store and speech provider.

    Needs the admin token. Reports which settings are set and their lengths, never values."""
    require_admin(request.headers, services.settings.admin_token)
    return await diagnostic_report(services)


#: What the app mounts for health.
ROUTES: tuple[ControllerRouterHandler, ...] = (health, diagnostic)
