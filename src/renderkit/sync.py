"""Blocking wrappers around renderkit's async API, for scripts.

Keep one :class:`Renderkit` open to reuse a warm browser across calls::

    from renderkit.sync import Renderkit

    with Renderkit() as rk:
        rk.render_image({"template": "og-card", "data": {"title": "Hello"}}).save("card.png")

In Jupyter, prefer the async API directly (``await renderkit.render_image(...)``): notebooks
already run an event loop. This facade runs one in a helper thread through anyio's blocking
portal, so it also works there.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

import anyio.from_thread
from anyio.from_thread import BlockingPortal

from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.image._models import ImageRequest, ImageResult
from renderkit.image._render import render_image as _render_image
from renderkit.pdf._models import PdfRequest, PdfResult
from renderkit.storage import Storage

__all__ = ["Renderkit", "render_image", "render_pdf"]


class Renderkit:
    """A warm browser (and optional storage) behind blocking methods."""

    def __init__(
        self, *, browser: BrowserConfig | None = None, storage: Storage | None = None
    ) -> None:
        """Configure the browser pool; nothing starts until the ``with`` block."""
        self._config = browser or BrowserConfig()
        self._storage = storage
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._pool: ChromiumPool | None = None

    def __enter__(self) -> Renderkit:
        self._portal_cm = anyio.from_thread.start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._pool = ChromiumPool(self._config)
        try:
            self._portal.call(self._pool.start)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the browser and stop the helper thread. Idempotent."""
        if self._portal is not None and self._pool is not None:
            self._portal.call(self._pool.aclose)
        if self._portal_cm is not None:
            self._portal_cm.__exit__(None, None, None)
        self._portal_cm = self._portal = self._pool = None

    def render_image(self, request: ImageRequest | Mapping[str, Any]) -> ImageResult:
        """Blocking :func:`renderkit.render_image`."""
        if self._portal is None or self._pool is None:
            msg = "use Renderkit inside a with block"
            raise RuntimeError(msg)
        call = functools.partial(_render_image, request, browser=self._pool, storage=self._storage)
        return self._portal.call(call)


def render_image(
    request: ImageRequest | Mapping[str, Any], *, browser: BrowserConfig | None = None
) -> ImageResult:
    """Render one image, launching and closing a browser for this call only.

    Works even where an event loop is already running (a notebook): the browser runs on the
    facade's own loop thread.
    """
    with Renderkit(browser=browser) as rk:
        return rk.render_image(request)


def render_pdf(
    request: PdfRequest | Mapping[str, Any], *, browser: BrowserConfig | None = None
) -> PdfResult:
    """Render one PDF, launching and closing a browser for this call only."""
    with Renderkit(browser=browser) as rk:
        return rk.render_pdf(request)
