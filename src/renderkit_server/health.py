"""``GET /api/health`` (cheap, for load balancers) and the operator's live diagnostic view."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
from litestar import Request, get
from litestar.di import NamedDependency
from litestar.types import ControllerRouterHandler

import renderkit
from renderkit import RenderkitError
from renderkit.browser import Browser, BrowserFleet
from renderkit.parsing.readers.rapidocr import rapidocr_available
from renderkit.storage import Storage
from renderkit_server.auth import require_admin
from renderkit_server.engines import Engines
from renderkit_server.probes import CachedProbe
from renderkit_server.settings import Settings
from renderkit_server.state.usage import UsageStore

__all__ = [
    "ROUTES",
    "HostFacts",
    "diagnostic",
    "diagnostic_report",
    "find_tools",
    "health",
    "health_report",
]

_CHECK_TIMEOUT = 10.0


def find_tools() -> dict[str, bool]:
    """Which system tools the capabilities need are installed (looked up once, at start)."""
    return {
        **{tool: shutil.which(tool) is not None for tool in ("espeak-ng", "tesseract")},
        "rapidocr": rapidocr_available(),
    }


@attrs.frozen(kw_only=True)
class HostFacts:
    """What health reports about this process, fixed once the app has started.

    Attributes:
        tools: system tools found at start-up (:func:`find_tools`); health checks read this
            instead of the filesystem.
        started_at: ``time.monotonic()`` at start-up.
        browser_failed: the browser could not be started (renders retry the launch).
    """

    tools: Mapping[str, bool] = attrs.field(factory=find_tools)
    started_at: float = attrs.field(factory=time.monotonic)
    browser_failed: bool = False


def _browser_state(browser: Browser, host: HostFacts) -> str:
    connected = getattr(browser, "connected", True)
    if not connected:
        if isinstance(browser, BrowserFleet):
            return "down"  # no member left: renders fail until the probe brings one back
        # Not connected yet (or crashed): the next render relaunches it, so degraded, not
        # down, unless the launch itself keeps failing.
        return "down" if host.browser_failed else "degraded"
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


async def health_report(
    engines: Engines, storage_probe: CachedProbe, host: HostFacts
) -> dict[str, Any]:
    """Overall status, one value per capability and the shared components they need.

    The only I/O is the storage probe, cached for seconds and bounded by a timeout
    (:mod:`renderkit_server.probes`), so the check stays fast and cheap under load.
    """
    browser = _browser_state(engines.browser, host)
    storage = "ok" if await storage_probe.ok() else "down"
    # Every capability but parse stores a file: without storage it cannot answer.
    capabilities = {
        "image": _worst(browser, storage),
        "pdf": _worst(browser, storage),
        "screenshot": _worst(browser, storage),
        "audio": _worst("ok" if host.tools.get("espeak-ng") else "down", storage),
        "parse": "ok" if host.tools.get(engines.ocr_tool) else "down",
    }
    status = "ok" if all(v == "ok" for v in capabilities.values()) else "degraded"
    return {
        "status": status,
        "version": renderkit.__version__,
        "uptime_seconds": int(time.monotonic() - host.started_at),
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


async def diagnostic_report(
    engines: Engines,
    *,
    storage: Storage,
    usage: UsageStore,
    host: HostFacts,
    settings: Settings,
) -> dict[str, Any]:
    """Run live checks of every backend; secrets are reported as set/unset and length only."""

    async def check_storage() -> dict[str, Any]:
        key = f"health/probe-{os.getpid()}.txt"
        await storage.put(key, b"ok", content_type="text/plain")
        assert await storage.get(key) == b"ok"
        await storage.delete(key)
        return {"backend": type(storage).__name__}

    async def browser() -> dict[str, Any]:
        details: dict[str, Any] = {
            "backend": type(engines.browser).__name__,
            # Whether the local browser runs unprivileged and sandboxed (None: remote mode).
            "sandboxed": getattr(engines.browser, "sandboxed", None),
            "user": getattr(engines.browser, "browser_user", None),
            **_browser_load(engines.browser),
        }
        try:
            version = getattr(engines.browser, "version", None)
            details["version"] = await version() if version is not None else ""
        except RenderkitError as exc:
            # Still show the endpoints: they say which browser is missing.
            details.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:300])
        return details

    async def check_usage() -> dict[str, Any]:
        await usage.ping()
        return {"backend": type(usage).__name__}

    async def speech() -> dict[str, Any]:
        path = shutil.which("espeak-ng")
        if path is None:
            msg = "espeak-ng is not installed"
            raise RuntimeError(msg)
        voices = getattr(engines.speech, "engines", [engines.speech])
        return {
            "provider": "local",
            "engine": "espeak-ng",
            "engines": [str(getattr(engine, "name", "?")) for engine in voices],
        }

    async def ocr() -> dict[str, Any]:
        engine = engines.ocr_tool
        if not host.tools.get(engine):
            msg = f"{engine} is not installed"
            raise RuntimeError(msg)
        return {"engine": engine}

    names = ("storage", "browser", "usage", "speech", "ocr")
    checks_run = (check_storage, browser, check_usage, speech, ocr)
    results = await asyncio.gather(*(_timed(c) for c in checks_run))
    checks = dict(zip(names, results, strict=True))
    return {
        "status": "ok" if all(c["ok"] for c in checks.values()) else "degraded",
        "version": renderkit.__version__,
        "env": settings.environment_report(os.environ),
        "checks": checks,
    }


@get(["/api/health", "/v1/health"], summary="Service health")
async def health(
    engines: NamedDependency[Engines],
    storage_probe: NamedDependency[CachedProbe],
    host: NamedDependency[HostFacts],
) -> dict[str, Any]:
    """Overall and per-capability status; cheap enough for load balancers.

    Always 200 (the interface lists no other status): a failing dependency shows as
    ``"status": "degraded"`` with the capabilities it takes down."""
    return await health_report(engines, storage_probe, host)


@get(["/api/health/diagnostic", "/v1/health/diagnostic"], summary="Operator diagnostics")
async def diagnostic(
    request: Request[Any, Any, Any],
    engines: NamedDependency[Engines],
    storage: NamedDependency[Storage],
    usage: NamedDependency[UsageStore],
    host: NamedDependency[HostFacts],
    settings: NamedDependency[Settings],
) -> dict[str, Any]:
    """Live checks of configuration, storage, browser, usage store and speech provider.

    Needs the admin token. Reports which settings are set and their lengths, never values."""
    require_admin(request.headers, settings.admin_token)
    return await diagnostic_report(
        engines, storage=storage, usage=usage, host=host, settings=settings
    )


#: What the app mounts for health.
ROUTES: tuple[ControllerRouterHandler, ...] = (health, diagnostic)
