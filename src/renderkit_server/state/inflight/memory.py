"""The limiter of a single process: every lease granted at once."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

__all__ = ["LocalInflightLimiter"]


class LocalInflightLimiter:
    """One process: grants every lease, the pool's own scheduler does the capping."""

    @contextlib.asynccontextmanager
    async def hold(self, key_id: str, cap: int | None) -> AsyncIterator[None]:
        """See :meth:`InflightLimiter.hold`: always granted at once."""
        yield

    async def aclose(self) -> None:
        """Nothing to release."""
