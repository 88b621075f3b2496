"""The failed-work budget: browser time a key may lose to its own timed-out renders.

A render that times out (custom HTML that never finishes, a page that never loads, OCR
that runs out of time) is not charged, since the caller got nothing. Yet it held a browser
slot or a worker for its whole timeout: free to the caller, costly to everyone else. So each
such call spends its timeout, in whole seconds, from the key's budget for the current
window (the plan's ``failed_work_seconds`` per ``failed_work_window``); once spent, the key's
calls are refused with :class:`FailedWorkExhaustedError` (429 ``FAILED_WORK_EXHAUSTED``,
``Retry-After``: the window's end) before they reach the browser, until the window ends.

The seconds are counted in the usage store's fixed windows (:meth:`UsageStore.hit`, one
hit per second, under a counter name no key id can take), so replicas sharing a store
share the budget and ended windows are forgotten by the store itself. A check reads the
counter with a hit of limit 0, which never adds.
"""

from __future__ import annotations

import datetime
import logging
import math
from collections.abc import Callable

from renderkit import StorageUnavailableError
from renderkit.core.times import as_utc
from renderkit_server.quotas.errors import LimitExceededError, UsageStoreUnavailableError
from renderkit_server.quotas.plans import PlanLimits, fixed_window
from renderkit_server.state.usage import UsageStore

__all__ = ["FailedWorkBudget", "FailedWorkExhaustedError"]

logger = logging.getLogger("renderkit_server")

#: Counter names of the budget; key ids never contain ``/``, so none can collide.
_PREFIX = "failed-work/"


class FailedWorkExhaustedError(LimitExceededError):
    """The key spent its failed-work budget: its calls are refused until the window ends.

    ``metric`` is ``failed_work_seconds``; ``limit`` and ``remaining`` are in seconds.
    """


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class FailedWorkBudget:
    """Counts the seconds a key's timed-out calls held the browser; refuses it past its budget.

    Args:
        store: the usage store (shared by the replicas).
        limits: the limits of a plan by name (:meth:`QuotaService.limits`).
        clock: returns the current time; injected by tests.
        unavailable_retry_after: ``Retry-After`` of a refusal when the store fails.
    """

    def __init__(
        self,
        store: UsageStore,
        limits: Callable[[str], PlanLimits],
        *,
        clock: Callable[[], datetime.datetime] = _utcnow,
        unavailable_retry_after: int = 5,
    ) -> None:
        self._store = store
        self._limits = limits
        self._clock = clock
        self._unavailable_retry_after = unavailable_retry_after

    async def check(self, key_id: str, plan: str) -> None:
        """Refuse the call if the key has spent its budget in the current window.

        Raises:
            FailedWorkExhaustedError: the budget is spent (429, with ``Retry-After``).
            UsageStoreUnavailableError: the store failed: refused, like every limit.
        """
        limits = self._limits(plan)
        budget = limits.failed_work_seconds
        if budget is None:
            return
        now = as_utc(self._clock())
        start, reset_at = fixed_window(now, limits.failed_work_window)
        try:
            spent = await self._store.hit(_PREFIX + key_id, start, limits.failed_work_window, 0)
        except StorageUnavailableError as exc:
            msg = "usage limits cannot be checked right now; try again shortly"
            raise UsageStoreUnavailableError(
                msg, retry_after=self._unavailable_retry_after
            ) from exc
        if spent.used >= budget:
            msg = (
                f"this key's calls timed out for {spent.used} s of browser time in this "
                f"window (the plan allows {budget} s); fix the page or wait for the window "
                "to end"
            )
            raise FailedWorkExhaustedError(
                msg,
                metric="failed_work_seconds",
                plan=plan,
                limit=budget,
                remaining=0,
                reset_at=reset_at,
                retry_after=max(math.ceil((reset_at - now).total_seconds()), 1),
                window=limits.failed_work_window,
            )

    async def spend(self, key_id: str, plan: str, seconds: float) -> None:
        """Count ``seconds`` (rounded up) of a timed-out call against the key's budget.

        Best effort: the caller is answering with the timeout already, so a failing store
        is logged, not raised.
        """
        limits = self._limits(plan)
        if limits.failed_work_seconds is None or seconds <= 0:
            return
        start, _ = fixed_window(as_utc(self._clock()), limits.failed_work_window)
        try:
            for _ in range(math.ceil(seconds)):
                await self._store.hit(_PREFIX + key_id, start, limits.failed_work_window, None)
        except StorageUnavailableError:
            logger.warning("could not count a timed-out call against its key's budget")
