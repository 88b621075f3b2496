"""Browsers that render HTML: the protocol, the Chromium pool, the fleet, and the shells."""

from __future__ import annotations

from renderkit.browser._config import DEFAULT_CHROMIUM, BrowserConfig
from renderkit.browser._fair import Tenant, TenantClass
from renderkit.browser._fleet import BrowserFleet
from renderkit.browser._pool import ChromiumPool
from renderkit.browser._protocol import (
    Browser,
    Capture,
    PageCapture,
    PageShot,
    PdfOptions,
    Shell,
    TenantAware,
)
from renderkit.browser._stats import BrowserStats, MemberStats, redact_endpoint
from renderkit.browser._tenant import TenantBrowser

__all__ = [
    "DEFAULT_CHROMIUM",
    "Browser",
    "BrowserConfig",
    "BrowserFleet",
    "BrowserStats",
    "Capture",
    "ChromiumPool",
    "MemberStats",
    "PageCapture",
    "PageShot",
    "PdfOptions",
    "Shell",
    "Tenant",
    "TenantAware",
    "TenantBrowser",
    "TenantClass",
    "redact_endpoint",
]
