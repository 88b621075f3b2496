"""Retrying a call to a remote provider: how many attempts, how long between them, and when.

The remote extractors (:mod:`renderkit.parsing.llm`) and the ElevenLabs speech provider send
through :func:`send_with_retries`. A 429 and every 5xx answer are retried (Anthropic's 529
"overloaded" included), as are the exceptions the provider's :class:`RetryPolicy` names; each
provider then turns what is left into its own errors. The wait doubles from ``backoff`` on each
retry, is at least what the server's ``Retry-After`` asks (seconds or an HTTP date), and never
exceeds ``max_delay``. Waiting goes through an injectable ``sleep``, so tests never wait.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import math
import random
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import attrs
import httpx

__all__ = [
    "RetryPolicy",
    "Sleep",
    "is_retryable_status",
    "parse_retry_after",
    "send_with_retries",
]

Sleep = Callable[[float], Awaitable[Any]]
"""Waits the given number of seconds (``anyio.sleep``; tests pass a recorder)."""


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP status is worth retrying: rate limited (429) or a server failure."""
    return status == 429 or status >= 500


def parse_retry_after(value: str | None, *, now: dt.datetime | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks for, or None when absent or unreadable.

    Both forms are understood: delay-seconds (``"120"``) and an HTTP date (``"Wed, 21 Oct 2015
    07:28:00 GMT"``, counted from ``now``, default the current time). A date in the past gives
    0. The caller caps the result.
    """
    text = (value or "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000" dates: RFC 5322 says UTC with no further information
        when = when.replace(tzinfo=dt.UTC)
    reference = now if now is not None else dt.datetime.now(dt.UTC)
    return max(0.0, (when - reference).total_seconds())


@attrs.frozen(kw_only=True)
class RetryPolicy:
    """How one provider retries.

    Attributes:
        max_retries: retries after the first attempt (0 disables retrying).
        backoff: the first wait in seconds; doubled on each further retry.
        max_delay: the longest single wait, also for a longer ``Retry-After``.
        jitter: the fraction of each backoff wait that may be randomly taken off (0 waits the
            exact backoff; 0.5 anywhere from half to all of it), so clients that failed
            together do not retry together.
        retry_on: exceptions from the send that are retried like a 429; any other exception
            propagates at once. The default retries every network failure and timeout.
        max_retry_after: a ``Retry-After`` asking for longer than this ends the retries (the
            answer is returned as it is) rather than being cut to ``max_delay``: a caller
            with a short deadline gives up at once instead of retrying earlier than the
            server asked. None (default) waits, capped at ``max_delay``.
    """

    max_retries: int = 2
    backoff: float = 1.0
    max_delay: float = 30.0
    jitter: float = 0.0
    retry_on: tuple[type[Exception], ...] = (httpx.TransportError,)
    max_retry_after: float | None = None

    def delay(
        self,
        attempt: int,
        retry_after: float | None = None,
        *,
        uniform: Callable[[], float] = random.random,
    ) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (0 for the first).

        Args:
            attempt: how many retries came before this one.
            retry_after: what the server asked for, from :func:`parse_retry_after`.
            uniform: a random number in [0, 1) for the jitter (injectable for tests).
        """
        wait = self.backoff * 2.0**attempt
        if self.jitter:
            wait *= 1 - self.jitter * uniform()
        if retry_after is not None:
            wait = max(wait, retry_after)
        return min(self.max_delay, wait)


async def send_with_retries(
    send: Callable[[], Awaitable[httpx.Response]],
    policy: RetryPolicy,
    *,
    sleep: Sleep = anyio.sleep,
) -> httpx.Response:
    """Call ``send`` until it answers with a status that is not worth retrying, or the
    policy's retries are used up.

    Returns:
        The first answer whose status is not retryable (a success or a client error), or the
        last answer once the retries are used up or the server asks to wait longer than the
        policy's ``max_retry_after`` (still a 429 or 5xx: the caller reports it).

    Raises:
        Exception: one of the policy's ``retry_on`` types, re-raised once the retries are used
            up; any other exception from ``send``, at once.
    """
    attempt = 0
    while True:
        try:
            response = await send()
        except policy.retry_on:
            if attempt >= policy.max_retries:
                raise
            await sleep(policy.delay(attempt))
        else:
            if attempt >= policy.max_retries or not is_retryable_status(response.status_code):
                return response
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            if (
                policy.max_retry_after is not None
                and retry_after is not None
                and retry_after > policy.max_retry_after
            ):
                return response
            await sleep(policy.delay(attempt, retry_after))
        attempt += 1
