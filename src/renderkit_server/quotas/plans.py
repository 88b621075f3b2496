"""Plans and their limits, the metrics they meter, and the calendar of periods and windows.

A plan limits each monthly metric (:data:`METRICS`) and the requests per burst window
(:data:`BURST_WINDOW_SECONDS`); ``None`` means unlimited. Operators overlay their own table
on :func:`default_plans` with :func:`plans_from_mapping`.

Periods are calendar months in UTC (``"2026-11"``); burst windows are fixed windows aligned
on the epoch. Naive datetimes are taken as UTC throughout.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from typing import Any

import attrs

from renderkit import ConfigurationError
from renderkit.core.times import as_utc

__all__ = [
    "BURST_METRIC",
    "BURST_WINDOW_SECONDS",
    "METERING_UNITS",
    "METRICS",
    "PLAN_NAMES",
    "PlanLimits",
    "check_charge",
    "default_plans",
    "fixed_window",
    "month_period",
    "next_month_start",
    "plans_from_mapping",
]

METRICS: tuple[str, ...] = (
    "images",
    "pdfs",
    "audio_minutes",
    "audio_characters",
    "screenshots",
    "parses",
)
"""The monthly metrics, in the order of the plan table."""

METERING_UNITS: Mapping[str, int] = dict.fromkeys(METRICS, 1) | {"audio_minutes": 60_000}
"""Store units per plan unit: ``audio_minutes`` is stored in milliseconds."""

PLAN_NAMES: tuple[str, ...] = ("starter", "pro", "business", "vip")
"""The plans a key can have (``starter`` is the spec's "Basic").

Also the wire order of API keys (a plan's index is its byte in the key): only append."""

BURST_WINDOW_SECONDS = 60
"""Length of a burst window; the burst limit is per window."""
BURST_METRIC = "burst_per_minute"
"""The burst limit's name: its :class:`PlanLimits` field, the ``metric`` of its
:class:`RateLimitedError` and its ``RateLimit-Policy`` name."""

_LIMIT_FIELDS: tuple[str, ...] = (
    *METRICS,
    "burst_per_minute",
    "browser_inflight",
    "browser_weight",
    "browser_slot_share",
    "browser_queue_share",
    "failed_work_seconds",
    "failed_work_window",
    "jobs_active",
    "batch_size",
)

# Limits that must be at least 1 when given (0 would make the plan unusable, not limited).
_POSITIVE_FIELDS = frozenset({"browser_inflight", "browser_weight", "failed_work_window"})
_PERCENT_FIELDS = frozenset({"browser_slot_share", "browser_queue_share"})
# Settings rather than limits: they have no "unlimited".
_REQUIRED_FIELDS = frozenset({"browser_weight", "failed_work_window"})


def _check_plan_limit(instance: PlanLimits, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        msg = f"{attribute.name} must be a non-negative integer or None (unlimited)"
        raise ConfigurationError(msg)


def _limit_field() -> Any:
    return attrs.field(default=None, validator=_check_plan_limit)


@attrs.frozen(kw_only=True)
class PlanLimits:
    """The limits of one plan; ``None`` means unlimited.

    Monthly limits are in plan units: count of images, PDFs, screenshots and parses,
    minutes and characters of audio.
    """

    images: int | None = _limit_field()
    pdfs: int | None = _limit_field()
    audio_minutes: int | None = _limit_field()
    audio_characters: int | None = _limit_field()
    screenshots: int | None = _limit_field()
    parses: int | None = _limit_field()
    burst_per_minute: int | None = _limit_field()
    """Requests per minute over all production endpoints together."""
    browser_inflight: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.ge(1))
    )
    """Browser renders (images, PDFs, screenshots) a key may run at once; None: any free
    slot. A timed-out render counts until its page is really closed."""
    browser_weight: int = attrs.field(default=1, validator=attrs.validators.ge(1))
    """How often the plan's waiting renders are served relative to other plans' (weighted
    fair queuing over plans, then round-robin over the plan's keys)."""
    browser_slot_share: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.in_(range(1, 101)))
    )
    """Percent of the browser slots all keys of the plan together may hold, rounded down,
    at least one; None: every slot. Held even when the rest of the pool is idle, so a
    request of another plan finds a free slot or is next."""
    browser_queue_share: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.in_(range(1, 101)))
    )
    """Percent of the browser wait queue the plan's keys together may fill; None: all."""
    failed_work_seconds: int | None = _limit_field()
    """Seconds of browser time a key may lose to its own timed-out renders per
    :attr:`failed_work_window`; once spent, its calls get 429 ``FAILED_WORK_EXHAUSTED``
    until the window ends. Timed-out calls stay uncharged. None: no budget."""
    failed_work_window: int = attrs.field(default=3_600, validator=attrs.validators.ge(1))
    """Length in seconds of the failed-work window (fixed windows aligned on the epoch)."""
    jobs_active: int | None = _limit_field()
    """Asynchronous jobs a key lineage may have queued or running at once (429 beyond);
    None: no cap."""
    batch_size: int | None = _limit_field()
    """Most jobs in one batch (``POST /api/batches``); None: no cap but ``jobs_active``."""

    def monthly_limit(self, metric: str) -> int | None:
        """Return the monthly limit of ``metric`` in plan units.

        Raises:
            ValueError: ``metric`` is not one of :data:`METRICS`.
        """
        _check_metric(metric)
        limit: int | None = getattr(self, metric)
        return limit


def default_plans() -> dict[str, PlanLimits]:
    """Return the default plan table of the interface decisions, as a new dict."""
    return {
        "starter": PlanLimits(
            images=5_000,
            pdfs=500,
            audio_minutes=60,
            audio_characters=10_000,
            screenshots=1_000,
            parses=500,
            burst_per_minute=10,
            browser_inflight=1,
            browser_weight=1,
            browser_slot_share=34,
            browser_queue_share=25,
            failed_work_seconds=120,
            jobs_active=100,
            batch_size=100,
        ),
        "pro": PlanLimits(
            images=25_000,
            pdfs=5_000,
            audio_minutes=300,
            audio_characters=100_000,
            screenshots=10_000,
            parses=5_000,
            burst_per_minute=60,
            browser_inflight=2,
            browser_weight=4,
            failed_work_seconds=600,
            jobs_active=1_000,
            batch_size=1_000,
        ),
        "business": PlanLimits(
            images=100_000,
            pdfs=25_000,
            audio_minutes=1_200,
            audio_characters=1_000_000,
            screenshots=50_000,
            parses=25_000,
            burst_per_minute=120,
            browser_inflight=4,
            browser_weight=8,
            failed_work_seconds=1_800,
            jobs_active=5_000,
            batch_size=5_000,
        ),
        "vip": PlanLimits(browser_weight=16),
    }


def plans_from_mapping(
    mapping: object, *, base: Mapping[str, PlanLimits] | None = None
) -> dict[str, PlanLimits]:
    """Overlay operator overrides, e.g. a parsed TOML table, on a plan table.

    TOML has no null, so a limit may also be the string ``"unlimited"``::

        [plans.starter]
        images = 100
        burst_per_minute = 5
        parses = "unlimited"

    Args:
        mapping: ``{plan: {limit_name: value}}``, checked whole (it comes from a settings
            file, so it is typed ``object``); values are non-negative integers,
            ``None`` or ``"unlimited"``. Limits not mentioned keep their base value.
        base: the table to start from; :func:`default_plans` by default.

    Returns:
        A new table with every plan of ``base``.

    Raises:
        ConfigurationError: naming the entry (``starter.images``) that is not a known
            plan or limit, or whose value is invalid.
    """
    plans = dict(default_plans() if base is None else base)
    if not isinstance(mapping, Mapping):
        msg = "quota overrides must be a table of plans"
        raise ConfigurationError(msg)
    for name, overrides in mapping.items():
        if name not in plans:
            msg = f"unknown plan {name!r} in quota overrides; known: {', '.join(plans)}"
            raise ConfigurationError(msg)
        if not isinstance(overrides, Mapping):
            msg = f"quota overrides for plan {name!r} must be a table"
            raise ConfigurationError(msg)
        changes: dict[str, Any] = {}  # each value checked above for its field
        for field, value in overrides.items():
            entry = f"{name}.{field}"
            if field not in _LIMIT_FIELDS:
                msg = f"unknown quota {entry!r}; known: {', '.join(_LIMIT_FIELDS)}"
                raise ConfigurationError(msg)
            if (value is None or value == "unlimited") and field in _REQUIRED_FIELDS:
                msg = f"quota {entry!r} must be a positive integer"
                raise ConfigurationError(msg)
            if value is None or value == "unlimited":
                changes[field] = None
            elif isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                if field in _POSITIVE_FIELDS and value == 0:
                    msg = f"quota {entry!r} must be at least 1 or 'unlimited'"
                    raise ConfigurationError(msg)
                if field in _PERCENT_FIELDS and not 1 <= value <= 100:
                    msg = f"quota {entry!r} is a percent: 1 to 100 or 'unlimited'"
                    raise ConfigurationError(msg)
                changes[field] = value
            else:
                msg = f"quota {entry!r} must be a non-negative integer or 'unlimited'"
                raise ConfigurationError(msg)
        plans[name] = attrs.evolve(plans[name], **changes)
    return plans


def _check_metric(metric: str) -> None:
    if metric not in METERING_UNITS:
        msg = f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}"
        raise ValueError(msg)


def check_charge(metric: str, amount: object) -> None:
    """Refuse a charge of an unknown metric or of anything but a non-negative integer.

    Raises:
        ValueError: naming the metric.
    """
    _check_metric(metric)
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
        msg = f"charge for {metric!r} must be a non-negative integer, got {amount!r}"
        raise ValueError(msg)


def month_period(now: datetime.datetime) -> str:
    """Return the accounting period of ``now``: its UTC calendar month, e.g. ``"2026-11"``.

    A naive ``now`` is taken as UTC.
    """
    now = as_utc(now)
    return f"{now.year:04d}-{now.month:02d}"


def next_month_start(now: datetime.datetime) -> datetime.datetime:
    """Return midnight UTC on the first day of the month after ``now``'s UTC month."""
    now = as_utc(now)
    year, month = divmod(now.year * 12 + now.month, 12)
    return datetime.datetime(year, month + 1, 1, tzinfo=datetime.UTC)


def fixed_window(now: datetime.datetime, seconds: int) -> tuple[int, datetime.datetime]:
    """Return the start (epoch seconds) and the end of the fixed window holding ``now``.

    Windows of ``seconds`` are aligned on the Unix epoch, so every replica agrees on them.
    """
    start = math.floor(as_utc(now).timestamp()) // seconds * seconds
    return start, datetime.datetime.fromtimestamp(start + seconds, datetime.UTC)
