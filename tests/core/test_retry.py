"""The retry helper the remote providers share: Retry-After forms, backoff, caps, statuses."""

from __future__ import annotations

import datetime as dt
import email.utils
from collections.abc import Awaitable, Callable

import httpx
import pytest

from renderkit.core.retry import (
    RetryPolicy,
    is_retryable_status,
    parse_retry_after,
    send_with_retries,
)

from .._sleeps import Sleeps

pytestmark = pytest.mark.anyio

NOW = dt.datetime(2026, 11, 24, 12, 0, 0, tzinfo=dt.UTC)


def sender(
    *answers: httpx.Response | type[httpx.TransportError],
) -> tuple[Callable[[], Awaitable[httpx.Response]], list[httpx.Request]]:
    """A send function over MockTransport answering in turn (the last answer repeats)."""
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        answer = answers[min(len(requests), len(answers)) - 1]
        if isinstance(answer, httpx.Response):
            return answer
        raise answer("boom", request=request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return (lambda: client.get("https://provider.test/v1")), requests


# --- Retry-After ---


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("3", 3.0), ("0", 0.0), ("1.5", 1.5), (" 120 ", 120.0)],
)
def test_retry_after_in_seconds_is_read_as_given(header: str, seconds: float) -> None:
    assert parse_retry_after(header, now=NOW) == seconds


def test_retry_after_as_an_http_date_counts_from_now() -> None:
    later = email.utils.format_datetime(NOW + dt.timedelta(seconds=90), usegmt=True)
    assert parse_retry_after(later, now=NOW) == 90.0


def test_retry_after_as_a_date_without_a_zone_is_read_as_utc() -> None:
    assert parse_retry_after("Tue, 24 Nov 2026 12:00:45 -0000", now=NOW) == 45.0


def test_retry_after_as_a_date_in_the_past_means_no_wait() -> None:
    assert parse_retry_after("Mon, 23 Nov 2026 12:00:00 GMT", now=NOW) == 0.0


@pytest.mark.parametrize("header", [None, "", "soon", "-5", "inf", "nan", "Mon, 99 Foo"])
def test_a_missing_or_unreadable_retry_after_is_none(header: str | None) -> None:
    assert parse_retry_after(header, now=NOW) is None


# --- delays ---


def test_backoff_doubles_from_the_first_delay_and_is_capped() -> None:
    policy = RetryPolicy(max_retries=6, backoff=1.0, max_delay=5.0)
    assert [policy.delay(n) for n in range(6)] == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0]


def test_retry_after_lengthens_a_wait_but_never_past_the_cap() -> None:
    policy = RetryPolicy(backoff=0.5, max_delay=8.0)
    assert policy.delay(0, 3.0) == 3.0
    assert policy.delay(0, 600.0) == 8.0
    assert policy.delay(2, 0.0) == 2.0  # the server cannot make us retry faster


def test_jitter_takes_off_at_most_its_fraction_of_the_backoff() -> None:
    policy = RetryPolicy(backoff=2.0, jitter=0.5)
    assert policy.delay(0, uniform=lambda: 0.0) == 2.0
    assert policy.delay(0, uniform=lambda: 0.999) == pytest.approx(1.001)
    assert policy.delay(0, 3.0, uniform=lambda: 0.5) == 3.0


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(200, False), (400, False), (401, False), (404, False), (429, True), (500, True), (529, True)],
)
def test_rate_limits_and_server_failures_are_the_retryable_statuses(
    status: int, retryable: bool
) -> None:
    assert is_retryable_status(status) is retryable


# --- sending ---


async def test_retryable_answers_are_retried_until_one_succeeds() -> None:
    send, requests = sender(
        httpx.Response(429, headers={"retry-after": "3"}),
        httpx.Response(503),
        httpx.Response(200, text="ok"),
    )
    sleeps = Sleeps()
    response = await send_with_retries(send, RetryPolicy(backoff=0.5), sleep=sleeps)
    assert response.status_code == 200
    assert len(requests) == 3
    assert sleeps.delays == [3.0, 1.0]


async def test_an_http_date_retry_after_far_away_waits_the_cap() -> None:
    far = email.utils.format_datetime(dt.datetime.now(dt.UTC) + dt.timedelta(hours=2), usegmt=True)
    send, _ = sender(httpx.Response(429, headers={"retry-after": far}), httpx.Response(204))
    sleeps = Sleeps()
    await send_with_retries(send, RetryPolicy(max_delay=30.0), sleep=sleeps)
    assert sleeps.delays == [30.0]


async def test_once_retries_are_used_up_the_last_failing_answer_is_returned() -> None:
    send, requests = sender(httpx.Response(500))
    sleeps = Sleeps()
    response = await send_with_retries(send, RetryPolicy(max_retries=2), sleep=sleeps)
    assert response.status_code == 500
    assert len(requests) == 3
    assert len(sleeps.delays) == 2


async def test_client_errors_are_returned_at_once() -> None:
    send, requests = sender(httpx.Response(422), httpx.Response(200))
    sleeps = Sleeps()
    response = await send_with_retries(send, RetryPolicy(), sleep=sleeps)
    assert response.status_code == 422
    assert len(requests) == 1
    assert sleeps.delays == []


async def test_listed_exceptions_are_retried_then_raised() -> None:
    send, requests = sender(httpx.ConnectError)
    sleeps = Sleeps()
    with pytest.raises(httpx.ConnectError):
        await send_with_retries(send, RetryPolicy(max_retries=3, backoff=0.5), sleep=sleeps)
    assert len(requests) == 4
    assert sleeps.delays == [0.5, 1.0, 2.0]


async def test_a_network_failure_then_success_returns_the_answer() -> None:
    send, requests = sender(httpx.ReadTimeout, httpx.Response(200))
    response = await send_with_retries(send, RetryPolicy(), sleep=Sleeps())
    assert response.status_code == 200
    assert len(requests) == 2


async def test_exceptions_outside_the_policy_are_raised_without_retrying() -> None:
    # ElevenLabs' policy: a timed-out request may have been billed, so it is not repeated.
    policy = RetryPolicy(retry_on=(httpx.ConnectError, httpx.ConnectTimeout))
    send, requests = sender(httpx.ReadTimeout)
    sleeps = Sleeps()
    with pytest.raises(httpx.ReadTimeout):
        await send_with_retries(send, policy, sleep=sleeps)
    assert len(requests) == 1
    assert sleeps.delays == []


async def test_retries_can_be_disabled() -> None:
    send, requests = sender(httpx.Response(503))
    response = await send_with_retries(send, RetryPolicy(max_retries=0), sleep=Sleeps())
    assert response.status_code == 503
    assert len(requests) == 1


async def test_a_retry_after_past_the_policys_limit_ends_the_retries_at_once() -> None:
    # A caller with a short deadline (the parse arbiter) gives up rather than retry early.
    send, requests = sender(httpx.Response(429, headers={"retry-after": "60"}), httpx.Response(200))
    sleeps = Sleeps()
    policy = RetryPolicy(max_delay=2.0, max_retry_after=2.0)
    response = await send_with_retries(send, policy, sleep=sleeps)
    assert response.status_code == 429
    assert len(requests) == 1
    assert sleeps.delays == []


async def test_a_retry_after_within_the_policys_limit_is_waited_for() -> None:
    send, requests = sender(httpx.Response(429, headers={"retry-after": "1"}), httpx.Response(200))
    sleeps = Sleeps()
    policy = RetryPolicy(backoff=0.25, max_delay=2.0, max_retry_after=2.0)
    response = await send_with_retries(send, policy, sleep=sleeps)
    assert response.status_code == 200
    assert len(requests) == 2
    assert sleeps.delays == [1.0]
