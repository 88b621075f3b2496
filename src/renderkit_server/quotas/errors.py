"""The errors of a reached limit, which the server answers with 429 and rate-limit headers.

::

    RenderkitError
    └── LimitExceededError
        ├── QuotaExceededError    a monthly quota, until next month (UTC)
        └── RateLimitedError      the burst limit, or self-service key issuance
"""

from __future__ import annotations

import datetime

from renderkit import RenderkitError
from renderkit.core.times import isoformat_z

__all__ = [
    "LimitExceededError",
    "QuotaExceededError",
    "RateLimitedError",
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
    """The key sent more requests this minute than its plan's burst limit allows."""
