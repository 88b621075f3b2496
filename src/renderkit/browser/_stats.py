"""What a browser pool reports about its capacity: per endpoint, slots, busy and queued."""

from __future__ import annotations

import attrs

__all__ = ["BrowserStats", "EndpointStats"]


@attrs.frozen(kw_only=True)
class EndpointStats:
    """One browser the pool renders on.

    Attributes:
        endpoint: ``local`` for a browser the pool launched, else the remote endpoint's
            ``scheme://host:port`` (never its path or query, which may carry a token).
        healthy: whether it holds a live connection (or can be launched on demand).
        slots: renders it may run at once.
        busy: renders running on it now.
        queued: renders waiting for one of its slots now.
    """

    endpoint: str
    healthy: bool
    slots: int
    busy: int
    queued: int


@attrs.frozen(kw_only=True)
class BrowserStats:
    """A pool's browsers (one for a single local or remote browser)."""

    members: tuple[EndpointStats, ...]
