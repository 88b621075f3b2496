"""The limit errors and the rate-limit headers of a 429."""

from __future__ import annotations

import datetime

from renderkit import RenderkitError
from renderkit.core.times import isoformat_z
from renderkit_server.quotas import LimitExceededError, QuotaExceededError, RateLimitedError

UTC = datetime.UTC


def test_limit_errors_are_renderkit_errors() -> None:
    assert issubclass(QuotaExceededError, LimitExceededError)
    assert issubclass(RateLimitedError, LimitExceededError)
    assert issubclass(LimitExceededError, RenderkitError)


def test_isoformat_utc_uses_a_z_suffix() -> None:
    assert isoformat_z(datetime.datetime(2026, 12, 1, tzinfo=UTC)) == "2026-12-01T00:00:00Z"


def test_a_window_limit_error_gives_retry_after_and_its_ratelimit_headers() -> None:
    error = RateLimitedError(
        "burst limit reached",
        metric="burst_per_minute",
        plan="starter",
        limit=10,
        remaining=0,
        reset_at=datetime.datetime(2026, 11, 30, 23, 59, tzinfo=UTC),
        retry_after=30,
        window=60,
    )

    assert error.headers() == {
        "Retry-After": "30",
        "RateLimit-Policy": '"burst_per_minute";q=10;w=60',
        "RateLimit": '"burst_per_minute";r=0;t=30',
    }


def test_a_monthly_quota_error_gives_retry_after_and_the_x_ratelimit_headers() -> None:
    error = QuotaExceededError(
        "monthly images quota reached",
        metric="images",
        plan="starter",
        limit=5000,
        remaining=0,
        reset_at=datetime.datetime(2026, 12, 1, tzinfo=UTC),
        retry_after=90,
    )

    assert error.headers() == {
        "Retry-After": "90",
        "X-RateLimit-Limit": "5000",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": "2026-12-01T00:00:00Z",
    }
