"""UTC timestamps as the wire writes them: ISO 8601 with a ``Z``, to the second."""

from __future__ import annotations

import datetime

__all__ = ["isoformat_z"]


def isoformat_z(moment: datetime.datetime) -> str:
    """``2026-11-24T09:30:00Z``: ``moment`` in UTC, whole seconds (naive means UTC already).

    Every timestamp the API returns (key creation, quota resets, capture times) uses this one
    spelling, so clients can compare them as strings.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
