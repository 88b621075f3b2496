"""The :class:`UsageStore` protocol, its :class:`Reservation` result and the checks every
backend applies the same way.

A usage store keeps two kinds of integer counters, both updated by atomic
check-and-increment operations so that concurrent requests (tasks, processes or replicas
sharing one backend) can never spend more than a limit:

* monthly counters, one per ``(key_id, metric, period)``; ``period`` is an opaque string
  chosen by the caller (:func:`renderkit_server.quotas.month_period` gives ``"2026-11"``);
* burst counters, one per ``(key_id, window_seconds, window_start)`` fixed time window;
* billing leases (:class:`Lease`): an amount held against a monthly counter while a call
  runs. :meth:`UsageStore.lease` checks the limit against what is committed *plus* every
  live lease, so concurrent calls cannot overspend; :meth:`UsageStore.commit` turns a lease
  into a charge once the call succeeded, :meth:`UsageStore.drop` forgets it when the call
  failed, and a lease neither committed nor dropped before ``expires_at`` (the process
  died) stops counting by itself: every read compares expiries with the backend's clock,
  and expired leases are deleted lazily (by the next lease taken on SQLite, by every lease
  script on Redis), so a restarted server needs no clean-up and starts from the committed
  counters plus whatever leases are still live.

Counters are plain integers in whatever unit the caller meters; the store never converts.
(The quota service meters audio duration in milliseconds so fractional minutes stay exact.)

Backends validate their arguments with :func:`check_amount`, :func:`check_limit` and
:func:`check_window`, refuse calls after ``aclose`` with :func:`check_open`, and report a
failing backend with :func:`store_failure`, so all of them reject and fail alike. Those
errors are :class:`renderkit.StorageUnavailableError`, whose message never contains
connection strings, passwords or file paths.
"""

from __future__ import annotations

import uuid
from typing import Protocol, runtime_checkable

import attrs

from renderkit import StorageUnavailableError

__all__ = [
    "Lease",
    "Reservation",
    "UsageStore",
    "check_amount",
    "check_lease_seconds",
    "check_limit",
    "check_open",
    "check_window",
    "closed_error",
    "store_failure",
]


@attrs.frozen(kw_only=True)
class Lease:
    """An amount held against a monthly counter until it is committed, dropped or expires.

    Attributes:
        id: unique among the store's leases: a random hex id unless the store gives one.
        key_id: the key lineage the amount belongs to.
        metric: what is counted, e.g. ``images``.
        period: the accounting period, e.g. ``2026-11``.
        amount: what :meth:`UsageStore.commit` adds to the counter.
        expires_at: Unix seconds, by the backend's clock (the Redis server's on Redis),
            after which the lease no longer counts.
    """

    id: str = attrs.field(factory=lambda: uuid.uuid4().hex)
    key_id: str
    metric: str
    period: str
    amount: int
    expires_at: float


@attrs.frozen(kw_only=True)
class Reservation:
    """The outcome of one check-and-increment.

    Attributes:
        allowed: True when the amount was added; False when it would have exceeded
            ``limit`` and nothing was added.
        used: the counter after the operation (unchanged when not allowed).
        limit: the limit checked against; ``None`` means unlimited.
        lease: the lease :meth:`UsageStore.lease` took (``None`` when refused, and for
            :meth:`UsageStore.reserve` and :meth:`UsageStore.hit`).
    """

    allowed: bool
    used: int
    limit: int | None
    lease: Lease | None = None

    @property
    def remaining(self) -> int | None:
        """What is left under the limit (never negative); ``None`` when unlimited."""
        if self.limit is None:
            return None
        return max(self.limit - self.used, 0)


@runtime_checkable
class UsageStore(Protocol):
    """Atomic usage counters shared by every replica of the server.

    Implementations must be safe to call from concurrent tasks of one event loop, and a
    shared backend (SQLite file, Redis) must stay exact across processes. Amounts and limits
    are non-negative integers; a negative value raises :class:`ValueError`. Failures of the
    backend raise :class:`renderkit.StorageUnavailableError`, as does any call after
    :meth:`aclose`.
    """

    async def reserve(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None
    ) -> Reservation:
        """Add ``amount`` to a monthly counter unless that would exceed ``limit``.

        The check and the increment are one atomic step: 50 concurrent reservations of 1
        against a limit of 10 allow exactly 10.

        Args:
            key_id: the API key lineage id the usage belongs to.
            metric: what is counted, e.g. ``images``.
            period: the accounting period, e.g. ``2026-11``.
            amount: how much to add; 0 only reads the counter.
            limit: the most the counter may reach; ``None`` means unlimited.

        Returns:
            ``allowed=True`` and the new total, or ``allowed=False`` and the current total
            when ``used + amount > limit`` (nothing is added then).
        """
        ...

    async def release(self, key_id: str, metric: str, period: str, amount: int) -> None:
        """Subtract ``amount`` from a monthly counter, stopping at zero.

        Used to refund a reservation whose call then failed. Releasing from a counter that
        does not exist is a no-op.
        """
        ...

    async def usage(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: used}`` for one key and period; zero counters are left out.

        Only committed usage: live leases are reported by :meth:`in_flight`.
        """
        ...

    async def lease(
        self, key_id: str, metric: str, period: str, amount: int, limit: int | None, seconds: float
    ) -> Reservation:
        """Hold ``amount`` for ``seconds`` unless committed usage plus live leases would
        exceed ``limit``.

        Atomic like :meth:`reserve`: 50 concurrent leases of 1 against a limit of 10 allow
        exactly 10, whether or not any of them is committed yet.

        Returns:
            ``allowed=True``, ``used`` (committed plus live leases, this one included) and
            the :class:`Lease`; or ``allowed=False`` and what is used now (nothing held).
        """
        ...

    async def commit(self, lease: Lease, *, once: str | None = None) -> bool:
        """Charge ``lease.amount`` to its counter and forget the lease, as one step.

        The amount may differ from the one leased (audio settled at its measured length)
        and is charged even past the limit: the work is done. A lease that already expired
        is still charged, for the same reason. Commit each lease once.

        Args:
            lease: the lease to charge.
            once: makes the charge idempotent: the store records ``once`` with the counter
                in the same atomic step, and a later commit naming the same ``once`` for
                the same key, metric and period charges nothing (it only forgets its
                lease). A job passes its id, so a job run twice (its first worker died
                after charging) is charged once. Kept as long as the period's counters.

        Returns:
            True when charged; False when ``once`` was already charged.
        """
        ...

    async def drop(self, lease: Lease) -> None:
        """Forget a lease without charging it (the call failed); a no-op once it expired."""
        ...

    async def renew(self, lease: Lease, seconds: float) -> Lease | None:
        """Move a live lease's expiry to ``seconds`` from now.

        Returns:
            The lease with its new ``expires_at``, or ``None`` when it had already expired
            or was committed or dropped (it is not brought back).
        """
        ...

    async def in_flight(self, key_id: str, period: str) -> dict[str, int]:
        """Return ``{metric: held}``, the live leases of one key and period, summed."""
        ...

    async def export(self, period: str) -> dict[str, dict[str, int]]:
        """Return the committed usage of every key in a period: ``{key_id: {metric: used}}``.

        Keys and zero counters without usage are left out.
        """
        ...

    async def hit(
        self, key_id: str, window_start: int, window_seconds: int, limit: int | None
    ) -> Reservation:
        """Count one request in a fixed time window unless the window is full.

        Atomic like :meth:`reserve`. Counters of windows that have ended are deleted by the
        backend (expiry or opportunistic clean-up), so they must not be read back later.

        Args:
            key_id: the API key lineage id.
            window_start: start of the window, in seconds since the Unix epoch.
            window_seconds: length of the window, e.g. 60.
            limit: the most requests the window may hold; ``None`` means unlimited.

        Returns:
            The reservation for this window's counter.
        """
        ...

    async def ping(self) -> None:
        """Check the backend answers.

        Raises:
            StorageUnavailableError: the backend cannot be reached or was closed.
        """
        ...

    async def aclose(self) -> None:
        """Release connections; calling it again is a no-op."""
        ...


# The checks take ``object``: they exist for callers whose values the type checker cannot
# vouch for (settings files, tests of the contract), so they must not assume the hints hold.


def check_amount(amount: object) -> None:
    """Refuse an amount that is not a non-negative integer (``bool`` included).

    Raises:
        ValueError: naming the amount.
    """
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
        msg = f"amount must be a non-negative integer, got {amount!r}"
        raise ValueError(msg)


def check_limit(limit: object) -> None:
    """Refuse a limit that is neither ``None`` nor a non-negative integer.

    Raises:
        ValueError: naming the limit.
    """
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        msg = f"limit must be a non-negative integer or None, got {limit!r}"
        raise ValueError(msg)


def check_lease_seconds(seconds: object) -> None:
    """Refuse a lease length that is not a positive, finite number of seconds.

    Raises:
        ValueError: naming the length.
    """
    if (
        not isinstance(seconds, int | float)
        or isinstance(seconds, bool)
        or not 0 < seconds < float("inf")
    ):
        msg = f"lease seconds must be a positive number, got {seconds!r}"
        raise ValueError(msg)


def check_window(window_start: object, window_seconds: object) -> None:
    """Refuse a window that does not start on an integer second or has no positive length.

    Raises:
        ValueError: naming the bad value.
    """
    if not isinstance(window_seconds, int) or window_seconds <= 0:
        msg = f"window_seconds must be a positive integer, got {window_seconds!r}"
        raise ValueError(msg)
    if not isinstance(window_start, int):
        msg = f"window_start must be an integer, got {window_start!r}"
        raise ValueError(msg)


def check_open(closed: bool, backend: str) -> None:
    """Refuse a call to a store that was closed.

    Args:
        closed: whether ``aclose`` was called.
        backend: the backend's short name for the message, e.g. ``sqlite``.

    Raises:
        StorageUnavailableError: the store is closed.
    """
    if closed:
        raise closed_error(backend)


def closed_error(backend: str) -> StorageUnavailableError:
    """Return the error a closed store raises (see :func:`check_open`)."""
    msg = f"the {backend} usage store is closed"
    return StorageUnavailableError(msg)


def store_failure(backend: str, reason: str) -> StorageUnavailableError:
    """Return the error to raise, chained ``from`` the driver's, when a backend fails.

    Args:
        backend: the backend's short name, e.g. ``redis``.
        reason: an error name such as ``SQLITE_BUSY`` or ``ConnectionError``; never the
            driver's message, which can hold a host, a path or a password.
    """
    msg = f"the {backend} usage store failed ({reason})"
    return StorageUnavailableError(msg)
