"""Screenshots of web pages (PNG, JPEG, WebP or PDF) through the egress-checked browser.

:func:`screenshot` takes a :class:`ScreenshotRequest` (or a dict in the HTTP API's shape) and
a :class:`~renderkit.browser.Browser`. :data:`DEVICES` lists the emulated devices.

``renderkit.screenshot`` at the top level is the function; import this package's names with
``from renderkit.screenshot import ScreenshotRequest``.
"""

from __future__ import annotations

from renderkit.screenshot._capture import screenshot
from renderkit.screenshot._models import (
    DEVICES,
    MAX_DELAY_MS,
    Device,
    ScreenshotRequest,
    ScreenshotResult,
    Viewport,
)

__all__ = [
    "DEVICES",
    "MAX_DELAY_MS",
    "Device",
    "ScreenshotRequest",
    "ScreenshotResult",
    "Viewport",
    "screenshot",
]
