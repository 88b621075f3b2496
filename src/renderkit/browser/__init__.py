"""Browsers that render HTML: the protocol, the Chromium pool, and the shells."""

from __future__ import annotations

from renderkit.browser._fair import Tenant
from renderkit.browser._pool import BrowserConfig, ChromiumPool, TenantBrowser
from renderkit.browser._protocol import Browser, Capture, PageCapture, PageShot, PdfOptions, Shell
from renderkit.browser._stats import BrowserStats, EndpointStats

__all__ = [
    "Browser",
    "BrowserConfig",
    "BrowserStats",
    "Capture",
    "ChromiumPool",
    "EndpointStats",
    "PageCapture",
    "PageShot",
    "PdfOptions",
    "Shell",
    "Tenant",
    "TenantBrowser",
]
