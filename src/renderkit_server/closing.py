"""Closing many backends at shutdown, each whatever the others do."""

from __future__ import annotations

import logging
from typing import Protocol

__all__ = ["AsyncCloseable", "close_each"]

logger = logging.getLogger("renderkit_server")


class AsyncCloseable(Protocol):
    """Anything closed with ``await x.aclose()``."""

    async def aclose(self) -> None:
        """Release it."""
        ...


async def close_each(*closers: AsyncCloseable | None) -> None:
    """Close each of ``closers`` in order (``None`` skipped); one failing is logged and does
    not stop the rest, since shutdown must go on whatever one backend does."""
    for closer in closers:
        if closer is None:
            continue
        try:
            await closer.aclose()
        except Exception:  # shutdown must go on whatever one backend does
            logger.warning("error closing %s", type(closer).__name__, exc_info=True)
