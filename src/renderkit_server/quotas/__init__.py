"""Plans, monthly quotas and burst limits, and the usage counters behind them.

* :mod:`.plans`: :class:`PlanLimits`, the default table and operator overrides, the metrics
  and their store units, periods (UTC calendar months) and burst windows;
* :mod:`.errors`: :class:`LimitExceededError` and its two kinds, answered with 429, and
  :class:`UsageStoreUnavailableError` (quotas fail closed), answered with 503;
* :mod:`.failed_work`: :class:`FailedWorkBudget`, the browser time a key may lose to its
  own timed-out calls per window, and :class:`FailedWorkExhaustedError` (429) once spent;
* :mod:`.service`: :class:`QuotaService`, which leases a call's charges and hands back a
  :class:`QuotaTicket` to commit (the call succeeded) or release (it failed);
* the counters live in :mod:`renderkit_server.state.usage` (the :class:`UsageStore`
  protocol and its memory and SQLite backends are re-exported here; ``RedisUsageStore`` is
  imported from :mod:`renderkit_server.state.usage.redis`, as it needs ``redis``).
"""

from __future__ import annotations

from renderkit_server.quotas.errors import (
    LimitExceededError,
    QuotaExceededError,
    RateLimitedError,
    UsageStoreUnavailableError,
)
from renderkit_server.quotas.failed_work import FailedWorkBudget, FailedWorkExhaustedError
from renderkit_server.quotas.plans import (
    BURST_WINDOW_SECONDS,
    METERING_UNITS,
    METRICS,
    PLAN_NAMES,
    PlanLimits,
    default_plans,
    month_period,
    next_month_start,
    plans_from_mapping,
)
from renderkit_server.quotas.service import QuotaService, QuotaTicket, WindowLimit, audio_charges
from renderkit_server.state.usage import (
    MemoryUsageStore,
    Reservation,
    SqliteUsageStore,
    UsageStore,
)

__all__ = [
    "BURST_WINDOW_SECONDS",
    "METERING_UNITS",
    "METRICS",
    "PLAN_NAMES",
    "FailedWorkBudget",
    "FailedWorkExhaustedError",
    "LimitExceededError",
    "MemoryUsageStore",
    "PlanLimits",
    "QuotaExceededError",
    "QuotaService",
    "QuotaTicket",
    "RateLimitedError",
    "Reservation",
    "SqliteUsageStore",
    "UsageStore",
    "UsageStoreUnavailableError",
    "WindowLimit",
    "audio_charges",
    "default_plans",
    "month_period",
    "next_month_start",
    "plans_from_mapping",
]
