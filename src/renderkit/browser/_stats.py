"""What a browser reports about its capacity, for health views and metrics.

One shape for every browser: a :class:`~renderkit.browser.ChromiumPool` is a fleet of one
member, a :class:`~renderkit.browser.BrowserFleet` has one member per endpoint.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import attrs

__all__ = ["BrowserStats", "MemberStats", "redact_endpoint"]


@attrs.frozen(kw_only=True)
class MemberStats:
    """One browser (one endpoint) at the moment :meth:`stats` was called.

    Attributes:
        endpoint: where the browser is, with credentials and query values masked
            (``ws://host:3000/?token=***``); ``local`` for a browser the pool launched.
        healthy: renders are sent to it.
        slots: renders it runs at once.
        busy: slots in use (a slot stays busy until its page is closed).
        queued: renders waiting for one of its slots.
    """

    endpoint: str
    healthy: bool
    slots: int
    busy: int
    queued: int


@attrs.frozen(kw_only=True)
class BrowserStats:
    """Capacity and load of a browser (a pool or a fleet), member by member.

    Attributes:
        members: one entry per browser endpoint.
        waiting: renders waiting before any member was chosen for them (a fleet's own
            fair queue; always 0 for a pool, whose queue is its member's).
    """

    members: tuple[MemberStats, ...]
    waiting: int = 0

    @property
    def slots(self) -> int:
        """Slots of the healthy members: the capacity renders can use now."""
        return sum(member.slots for member in self.members if member.healthy)

    @property
    def busy(self) -> int:
        """Slots in use over every member."""
        return sum(member.busy for member in self.members)

    @property
    def queued(self) -> int:
        """Renders waiting for a slot, wherever they wait."""
        return self.waiting + sum(member.queued for member in self.members)

    @property
    def healthy(self) -> int:
        """Members renders are sent to."""
        return sum(1 for member in self.members if member.healthy)


def redact_endpoint(url: str) -> str:
    """``url`` safe to log and show: no user info, every query value masked.

    Browser services take their token in the query (``?token=...``) or as user info.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "<unparseable endpoint>"
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    if parts.username is not None or parts.password is not None:
        netloc = f"***@{netloc}"
    # Names are kept (``token``), values masked; a part without ``=`` may be a bare token.
    query = "&".join(
        f"{item.partition('=')[0]}=***" if "=" in item else "***"
        for item in parts.query.split("&")
        if item
    )
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")
