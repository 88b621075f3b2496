"""The errors of a reached limit, and the rate-limit headers: one meaning per header.

::

    RenderkitError
    ├── LimitExceededError
    │   ├── QuotaExceededError    a monthly quota, until next month (UTC)
    │   └── RateLimitedError      the burst limit, or an abuse limit on keys and key e-mails
    └── StorageError
        └── StorageUnavailableError
            └── UsageStoreUnavailableError   quotas cannot be checked: refused (503)

The headers, on a success and on a 429 alike:

- ``X-RateLimit-Limit`` / ``-Remaining`` / ``-Reset``: always the **monthly quota** of the
  call's metric (limit and what is left in plan units, the next month's start in ISO 8601
  UTC); absent when the call's metric has no monthly limit or it was not checked (a call
  refused by its burst limit first).
- ``RateLimit-Policy`` / ``RateLimit`` (draft-ietf-httpapi-ratelimit-headers): a **fixed
  window** limit, named by its metric: ``"burst_per_minute";q=60;w=60`` is the quota ``q``
  per window of ``w`` seconds, ``"burst_per_minute";r=59;t=42`` what is left and the seconds
  until the window ends. On a success: the burst limit; on a 429 for a window limit (burst,
  key issuance, key e-mails, regeneration, failed work): that limit.
- ``Retry-After``: on every 429, seconds until the refused limit resets.
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
    "window_limit_headers",
]


def rate_limit_headers(limit: int, remaining: int, reset_at: datetime.datetime) -> dict[str, str]:
    """Return ``X-RateLimit-Limit``, ``-Remaining`` and ``-Reset`` (ISO 8601 UTC): a monthly
    quota, and nothing else."""
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": isoformat_z(reset_at),
    }


def window_limit_headers(
    policy: str, *, limit: int, window: int, remaining: int, reset_in: int
) -> dict[str, str]:
    """Return ``RateLimit-Policy`` and ``RateLimit`` for one fixed-window limit.

    Args:
        policy: the limit's name (its metric, e.g. ``burst_per_minute``).
        limit: what one window allows.
        window: the window's length in seconds.
        remaining: what is left in the current window.
        reset_in: whole seconds until the current window ends.
    """
    return {
        "RateLimit-Policy": f'"{policy}";q={limit};w={window}',
        "RateLimit": f'"{policy}";r={remaining};t={reset_in}',
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
        window: the length in seconds of a fixed-window limit; None for a monthly quota.
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
        window: int | None = None,
    ) -> None:
        super().__init__(message)
        self.metric = metric
        self.plan = plan
        self.limit = limit
        self.remaining = remaining
        self.reset_at = reset_at
        self.retry_after = retry_after
        self.window = window

    def headers(self) -> dict[str, str]:
        """Return ``Retry-After`` and the headers of the refused limit: ``X-RateLimit-*`` for
        a monthly quota, ``RateLimit-Policy`` and ``RateLimit`` for a window limit."""
        if self.window is None:
            headers = rate_limit_headers(self.limit, self.remaining, self.reset_at)
        else:
            headers = window_limit_headers(
                self.metric,
                limit=self.limit,
                window=self.window,
                remaining=self.remaining,
                reset_in=self.retry_after,
            )
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
