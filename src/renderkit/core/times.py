"""UTC timestamps as the wire writes them: ISO 8601 with a ``Z``, to the second."""

from __future__ import annotations

import datetime

__all__ = ["as_utc", "isoformat_z"]


def as_utc(moment: datetime.datetime) -> datetime.datetime:
    """``moment`` in UTC; a naive ``moment`` is taken as UTC already."""
    # Not local time: servers run in UTC, and reading a naive time as local would silently
    # move a monthly quota reset.
    if moment.tzinfo is None:
        return moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC)


def isoformat_z(moment: datetime.datetime) -> str:
    """``2026-11-24T09:30:00Z``: ``moment`` in UTC, whole seconds (naive means UTC already).

    Every timestamp the API returns (key creation, quota resets, capture times) uses this one
    spelling, so clients can compare them as strings.
    """
    return as_utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")
