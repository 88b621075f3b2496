"""The errors of a reached limit, which the server answers with 429 and rate-limit headers.

::

    RenderkitError
    ├── LimitExceededError
    │   ├── QuotaExceededError    a monthly quota, until next month (UTC)
    │   └── RateLimitedError      the burst limit, or an abuse limit on keys and key e-mails
    └── StorageError
        └── StorageUnavailableError
            └── UsageStoreUnavailableError   quotas cannot be checked: refused (503)
"""

from __future__ import annotations

import datetime

from renderkit import RenderkitError, StorageUnavailableError
from renderkit.core.times import isoformat_z

__all__ = [
    "LimitExceededError",
    "QuotaExceededError",
    "RateLimitedError",
    "UsageStoreUnavailableError",
    "rate_limit_headers",
]


def rate_limit_headers(limit: int, remaining: int, reset_at: datetime.datetime) -> dict[str, str]:
    """Return ``X-RateLimit-Limit``, ``-Remaining`` and ``-Reset`` (ISO 8601 UTC)."""
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": isoformat_z(reset_at),
    }


class LimitExceededError(RenderkitError):
    """A limit of the caller's plan is reached; the server answers 429.

    Attributes:
        metric: the exhausted counter: a monthly metric, ``burst_per_minute`` or
            ``key_issuance``.
        plan: the caller's plan.
        limit: the limit in plan units.
        remaining: what is left in plan units (less than the call needed).
        reset_at: when the counter starts again, UTC.
        retry_after: whole seconds until ``reset_at``, at least 1 (for ``Retry-After``).
    """

    def __init__(
        self,
        message: str,
        *,
        metric: str,
        plan: str,
        limit: int,
        remaining: int,
        reset_at: datetime.datetime,
        retry_after: int,
    ) -> None:
        super().__init__(message)
        self.metric = metric
        self.plan = plan
        self.limit = limit
        self.remaining = remaining
        self.reset_at = reset_at
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        """Return ``Retry-After`` and the ``X-RateLimit-*`` headers of the 429 response."""
        headers = rate_limit_headers(self.limit, self.remaining, self.reset_at)
        headers["Retry-After"] = str(self.retry_after)
        return headers


class QuotaExceededError(LimitExceededError):
    """A monthly quota of the plan is used up until the start of next month (UTC)."""


class RateLimitedError(LimitExceededError):
    """Too many requests in a window: the plan's burst limit or an abuse limit.

    ``metric`` names the limit: ``burst_per_minute``, ``key_issuance``,
    ``key_regeneration`` (per key), ``key_regeneration_address`` (per client address) or
    ``key_email`` (per recipient).
    """


class UsageStoreUnavailableError(StorageUnavailableError):
    """The usage store failed, so limits cannot be checked and the call is refused.

    Quotas fail closed: nothing is rendered or charged while the store is down.

    Attributes:
        retry_after: whole seconds a client should wait before trying again.
    """

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
