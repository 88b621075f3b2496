"""The quota service: the burst limit and monthly quotas of a key, enforced per call.

Every production call goes through :meth:`QuotaService.reserve` (or its context-manager
form :meth:`QuotaService.metered`) before rendering: first the per-minute burst limit of the
key, then one billing lease per metric the call charges (see
:class:`~renderkit_server.state.usage.base.Lease`). The leases count against the quota at
once, so concurrent calls cannot overspend, but they are not usage yet: a call that
succeeds commits its ticket (:meth:`QuotaTicket.commit`), one that fails releases it
(:meth:`QuotaTicket.release`), and the leases of a call whose process died expire after
the service's ``lease_seconds`` on their own. A call is therefore charged exactly when it
was committed, crash or no crash. :meth:`QuotaTicket.kept_alive` renews the leases while
long work runs.

Metering units. Store counters are integers. Every metric is counted in its plan unit
(one image, one PDF, one character...) except ``audio_minutes``, which is counted in
**milliseconds of audio** so fractional minutes stay exact and atomic; plan limits are
multiplied by :data:`~renderkit_server.quotas.plans.METERING_UNITS` before they reach the
store. ``charges`` therefore give audio in milliseconds (see :func:`audio_charges`), while
errors and headers report limits and what remains in plan units (whole minutes, rounded
down).

Audio is priced by its measured duration, known only after synthesis: reserve an estimate,
then settle the measured amount with :meth:`QuotaService.adjust`, one atomic increment or
refund of the difference. The settled amount is charged even past the limit (the audio
already exists and the caller gets it); the next call is then refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import hmac
import logging
import math
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence

import anyio
import attrs

from renderkit import ConfigurationError, StorageUnavailableError
from renderkit.core.times import as_utc
from renderkit_server.quotas.errors import (
    QuotaExceededError,
    RateLimitedError,
    UsageStoreUnavailableError,
    rate_limit_headers,
    window_limit_headers,
)
from renderkit_server.quotas.plans import (
    BURST_METRIC,
    BURST_WINDOW_SECONDS,
    METERING_UNITS,
    PlanLimits,
    check_charge,
    default_plans,
    fixed_window,
    month_period,
    next_month_start,
)
from renderkit_server.state.usage.base import Lease, Reservation, UsageStore

__all__ = ["QuotaService", "QuotaTicket", "WindowLimit", "audio_charges"]

logger = logging.getLogger(__name__)

_HOUR = 3600
_DAY = 24 * _HOUR


@attrs.frozen(kw_only=True)
class WindowLimit:
    """At most ``limit`` events per fixed window of ``window`` seconds.

    Attributes:
        limit: the most events a window may hold; ``None`` for no limit, 0 refuses all.
        window: the window length in seconds; windows are aligned on the Unix epoch.
    """

    limit: int | None = attrs.field(validator=attrs.validators.optional(attrs.validators.ge(0)))
    window: int = attrs.field(validator=attrs.validators.gt(0))


def _digest(identifier: str, pepper: bytes) -> str:
    # Counters never hold raw IP or e-mail addresses; keyed with a server secret, because
    # a plain hash of an IPv4 address is undone by trying all 2**32 of them.
    return hmac.new(pepper, identifier.encode(), hashlib.sha256).hexdigest()[:32]


def _mailbox(address: str) -> str:
    """One spelling per mailbox: case and ``+tag`` sub-addresses do not make new ones."""
    local, _, domain = address.lower().rpartition("@")
    return f"{local.partition('+')[0]}@{domain}"


def audio_charges(*, characters: int, seconds: float) -> dict[str, int]:
    """Return the charges of an audio call: its characters and its duration.

    The duration is rounded up to the next millisecond, the store unit of
    ``audio_minutes``.

    Raises:
        ValueError: a negative or non-finite amount.
    """
    if characters < 0 or not math.isfinite(seconds) or seconds < 0:
        msg = "audio characters and seconds must be non-negative"
        raise ValueError(msg)
    return {"audio_characters": characters, "audio_minutes": math.ceil(seconds * 1000)}


def _store_limit(limit: int | None, metric: str) -> int | None:
    return None if limit is None else limit * METERING_UNITS[metric]


def _remaining(limit: int, used: int, metric: str) -> int:
    """What is left in plan units, rounded down."""
    return max(limit * METERING_UNITS[metric] - used, 0) // METERING_UNITS[metric]


def _retry_after(reset_at: datetime.datetime, now: datetime.datetime) -> int:
    return max(math.ceil((reset_at - now).total_seconds()), 1)


@attrs.define(kw_only=True, eq=False)
class QuotaTicket:
    """The leases of one call: commit them on success, release them on failure.

    Created by :meth:`QuotaService.reserve`; not meant to be built by hand.

    Attributes:
        api_key_id: the key lineage the usage is charged to.
        plan: the caller's plan.
        period: the month the reservations belong to, e.g. ``"2026-11"``.
        main_metric: the metric reported by :meth:`headers`, or ``None`` for a call
            without monthly charges (the burst counter is reported then).
    """

    api_key_id: str
    plan: str
    period: str
    main_metric: str | None
    _store: UsageStore = attrs.field(alias="store", repr=False)
    _limits: PlanLimits = attrs.field(alias="limits", repr=False)
    _charges: dict[str, int] = attrs.field(alias="charges")
    _results: dict[str, Reservation] = attrs.field(alias="results", repr=False)
    _reset_at: datetime.datetime = attrs.field(alias="reset_at", repr=False)
    _burst: Reservation | None = attrs.field(alias="burst", repr=False)
    #: Whole seconds from the reservation to the end of its burst window.
    _burst_reset_in: int = attrs.field(alias="burst_reset_in", repr=False)
    _lease_seconds: float = attrs.field(alias="lease_seconds", default=120.0, repr=False)
    #: The leases not committed yet, by metric; committed metrics leave it.
    _leases: dict[str, Lease] = attrs.field(factory=dict, init=False, repr=False)
    _released: bool = attrs.field(default=False, init=False)
    _committed: bool = attrs.field(default=False, init=False)

    @property
    def charges(self) -> dict[str, int]:
        """What the call is charged, in store units (audio in milliseconds)."""
        return dict(self._charges)

    @property
    def released(self) -> bool:
        """True once :meth:`release` refunded every charge."""
        return self._released

    @property
    def committed(self) -> bool:
        """True once :meth:`commit` turned every lease into usage."""
        return self._committed

    def headers(self) -> dict[str, str]:
        """Return the rate-limit headers of a successful call (their meaning:
        :mod:`renderkit_server.quotas.errors`).

        ``X-RateLimit-Limit``, ``-Remaining`` and ``-Reset``: the main metric's monthly
        quota, in plan units after this call's charge, the reset in ISO 8601 UTC.
        ``RateLimit-Policy`` and ``RateLimit``: the burst limit's window. An unlimited
        counter has no headers.
        """
        headers: dict[str, str] = {}
        if self._burst is not None and self._burst.limit is not None:
            headers |= window_limit_headers(
                BURST_METRIC,
                limit=self._burst.limit,
                window=BURST_WINDOW_SECONDS,
                remaining=self._burst.remaining or 0,
                reset_in=self._burst_reset_in,
            )
        if self.main_metric is None:
            return headers
        limit = self._limits.monthly_limit(self.main_metric)
        if limit is not None:
            used = self._results[self.main_metric].used
            remaining = _remaining(limit, used, self.main_metric)
            headers |= rate_limit_headers(limit, remaining, self._reset_at)
        return headers

    async def commit(self, *, once: str | None = None) -> None:
        """Charge the call: turn every lease into usage, at its settled amount.

        Call it once the result is stored and the response built; later calls do nothing.
        Shielded from cancellation, so a charge is never half recorded by this process.

        Args:
            once: charge at most once for this id whatever the number of tickets naming it
                (a job's id: a job run again after its worker died is not charged twice;
                see :meth:`UsageStore.commit`).

        Raises:
            RuntimeError: the ticket was released.
            StorageUnavailableError: the store failed; leases not yet committed stay on
                the ticket (release them, or they expire uncharged).
        """
        if self._released:
            msg = "cannot commit a released quota ticket"
            raise RuntimeError(msg)
        with anyio.CancelScope(shield=True):
            for metric, lease in list(self._leases.items()):
                await self._store.commit(
                    attrs.evolve(lease, amount=self._charges[metric]), once=once
                )
                del self._leases[metric]
        self._committed = True

    async def release(self) -> None:
        """Refund every charge of the call; later calls do nothing.

        Leases not committed are dropped; charges already committed are refunded from the
        counters. The refund is shielded from cancellation so a cancelled request still
        refunds.

        Raises:
            StorageUnavailableError: the store failed; charges not yet refunded stay on
                the ticket and a later call retries them. Uncommitted leases that cannot
                be dropped expire uncharged anyway.
        """
        with anyio.CancelScope(shield=True):
            for metric, amount in list(self._charges.items()):
                lease = self._leases.get(metric)
                if lease is not None:
                    await self._store.drop(lease)
                    del self._leases[metric]
                elif amount:
                    await self._store.release(self.api_key_id, metric, self.period, amount)
                del self._charges[metric]
        self._released = True

    @contextlib.asynccontextmanager
    async def kept_alive(self) -> AsyncIterator[None]:
        """Renew the ticket's leases every third of their length while the block runs.

        Work longer than one lease (a long synthesis) keeps its charge held; a process that
        dies stops renewing, so its leases still expire one lease length later. A renewal
        that fails is logged and retried at the next beat.
        """
        if not self._leases:
            yield
            return
        # A plain task rather than a task group: the block's own exception must reach the
        # caller as it is, not wrapped in an exception group.
        beat = asyncio.create_task(self._heartbeat())
        try:
            yield
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self._lease_seconds / 3)
            for metric, lease in list(self._leases.items()):
                try:
                    renewed = await self._store.renew(lease, self._lease_seconds)
                except Exception:  # a beat that fails must never fail the call it keeps
                    logger.warning("could not renew a billing lease", exc_info=True)
                    continue
                if renewed is not None and metric in self._leases:
                    self._leases[metric] = renewed


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


class QuotaService:
    """Enforces the plans' burst limits and monthly quotas on a :class:`UsageStore`.

    Args:
        store: where usage is counted; share one backend between replicas.
        plans: the plan table; :func:`default_plans` when omitted.
        clock: returns the current time (timezone-aware); injected by tests.
        issuance_limit: self-service keys one client address may obtain per
            ``issuance_window`` seconds (:meth:`limit_issuance`); ``None`` for no limit.
        issuance_window: length of the issuance window in seconds.
        regeneration_per_key: regenerations of one key lineage (:meth:`limit_regeneration`).
        regeneration_per_address: regenerations from one client address.
        key_email: key e-mails to one mailbox, every window checked (:meth:`limit_key_email`).
        unavailable_retry_after: the ``Retry-After`` seconds of a
            :class:`UsageStoreUnavailableError`.
        pepper: the key of the HMAC that turns client addresses and mailboxes into counter
            names (the server secret), so the store never holds a reversible identifier.
        lease_seconds: how long a call's billing leases hold without being renewed: the
            longest a call may take between renewals, and how long the charges of a call
            whose process died keep counting against the quota.

    Raises:
        ConfigurationError: a negative ``issuance_limit``, a non-positive window or lease.
    """

    def __init__(
        self,
        store: UsageStore,
        plans: Mapping[str, PlanLimits] | None = None,
        *,
        clock: Callable[[], datetime.datetime] = _utcnow,
        issuance_limit: int | None = 10,
        issuance_window: int = _HOUR,
        regeneration_per_key: WindowLimit = WindowLimit(limit=5, window=_HOUR),
        regeneration_per_address: WindowLimit = WindowLimit(limit=20, window=_HOUR),
        key_email: Sequence[WindowLimit] = (
            WindowLimit(limit=20, window=_DAY),
            WindowLimit(limit=5, window=_HOUR),
        ),
        unavailable_retry_after: int = 5,
        pepper: bytes = b"",
        lease_seconds: float = 120.0,
    ) -> None:
        if issuance_limit is not None and issuance_limit < 0:
            msg = "issuance_limit must be a non-negative integer or None"
            raise ConfigurationError(msg)
        if issuance_window <= 0:
            msg = "issuance_window must be a positive number of seconds"
            raise ConfigurationError(msg)
        if not 0 < lease_seconds < math.inf:
            msg = "lease_seconds must be a positive number of seconds"
            raise ConfigurationError(msg)
        self._lease_seconds = lease_seconds
        self._store = store
        self._plans = dict(default_plans() if plans is None else plans)
        self._clock = clock
        self._issuance = WindowLimit(limit=issuance_limit, window=issuance_window)
        self._regeneration_per_key = regeneration_per_key
        self._regeneration_per_address = regeneration_per_address
        self._key_email = tuple(key_email)
        self._unavailable_retry_after = unavailable_retry_after
        self._pepper = pepper

    @property
    def lease_seconds(self) -> float:
        """How long a call's billing leases hold without renewal."""
        return self._lease_seconds

    @property
    def plans(self) -> Mapping[str, PlanLimits]:
        """The plan table in force."""
        return self._plans

    def limits(self, plan: str) -> PlanLimits:
        """Return the limits of ``plan``.

        Raises:
            ConfigurationError: the plan is not in the table.
        """
        try:
            return self._plans[plan]
        except KeyError:
            msg = f"no quotas are configured for plan {plan!r}"
            raise ConfigurationError(msg) from None

    async def reserve(
        self,
        api_key_id: str,
        plan: str,
        charges: Mapping[str, int],
        *,
        main_metric: str | None = None,
        burst: bool = True,
    ) -> QuotaTicket:
        """Count the request against the burst limit and reserve its monthly charges.

        The burst hit is never refunded: it counts requests, including refused ones. If
        a monthly metric is refused or the store fails, the metrics already reserved by
        this call are released before the error propagates.

        Args:
            api_key_id: the key lineage id (stable across key rotation).
            plan: the key's plan.
            charges: ``{metric: amount}`` in store units, e.g. ``{"images": 1}``; audio
                minutes in milliseconds (see :func:`audio_charges`).
            main_metric: the metric :meth:`QuotaTicket.headers` reports; the first of
                ``charges`` by default.
            burst: False skips the burst limit: a job's run, whose request was counted
                when it was submitted (the queue, not the caller, sets its pace).

        Returns:
            The ticket to commit when the call succeeded, or release if it failed.

        Raises:
            RateLimitedError: the burst limit is reached (``reset_at`` ends the minute).
            QuotaExceededError: a monthly quota is reached (``reset_at`` starts next month).
            ConfigurationError: the plan is not in the table.
            UsageStoreUnavailableError: the usage store failed; nothing stays reserved.
            ValueError: an unknown metric or a negative amount in ``charges``.
        """
        limits = self.limits(plan)
        for metric, amount in charges.items():
            check_charge(metric, amount)
        if main_metric is None:
            main_metric = next(iter(charges), None)
        elif main_metric not in charges:
            msg = f"main_metric {main_metric!r} is not charged by the call"
            raise ValueError(msg)
        now = as_utc(self._clock())

        window_start, burst_reset_at = fixed_window(now, BURST_WINDOW_SECONDS)
        burst_hit: Reservation | None = None
        if burst and limits.burst_per_minute is not None:
            with self._fail_closed():
                burst_hit = await self._store.hit(
                    api_key_id, window_start, BURST_WINDOW_SECONDS, limits.burst_per_minute
                )
            if not burst_hit.allowed:
                msg = (
                    f"burst limit of {limits.burst_per_minute} requests per minute "
                    f"reached for plan {plan!r}"
                )
                raise RateLimitedError(
                    msg,
                    metric=BURST_METRIC,
                    plan=plan,
                    limit=limits.burst_per_minute,
                    remaining=burst_hit.remaining or 0,
                    reset_at=burst_reset_at,
                    retry_after=_retry_after(burst_reset_at, now),
                    window=BURST_WINDOW_SECONDS,
                )

        period = month_period(now)
        reset_at = next_month_start(now)
        ticket = QuotaTicket(
            api_key_id=api_key_id,
            plan=plan,
            period=period,
            main_metric=main_metric,
            store=self._store,
            limits=limits,
            charges={},
            results={},
            reset_at=reset_at,
            burst=burst_hit,
            burst_reset_in=max(math.ceil((burst_reset_at - now).total_seconds()), 0),
            lease_seconds=self._lease_seconds,
        )
        try:
            for metric, amount in charges.items():
                limit = limits.monthly_limit(metric)
                # Shielded so a cancellation cannot lose a reservation the store made.
                with anyio.CancelScope(shield=True), self._fail_closed():
                    result = await self._store.lease(
                        api_key_id,
                        metric,
                        period,
                        amount,
                        _store_limit(limit, metric),
                        self._lease_seconds,
                    )
                if not result.allowed:
                    assert limit is not None  # an unlimited counter always allows
                    msg = f"monthly {metric} quota of {limit} reached for plan {plan!r}"
                    raise QuotaExceededError(
                        msg,
                        metric=metric,
                        plan=plan,
                        limit=limit,
                        remaining=_remaining(limit, result.used, metric),
                        reset_at=reset_at,
                        retry_after=_retry_after(reset_at, now),
                    )
                assert result.lease is not None  # an allowed lease is always returned
                ticket._charges[metric] = amount
                ticket._leases[metric] = result.lease
                ticket._results[metric] = result
        except BaseException:
            await _release_quietly(ticket)
            raise
        return ticket

    @contextlib.asynccontextmanager
    async def metered(
        self,
        api_key_id: str,
        plan: str,
        charges: Mapping[str, int],
        *,
        main_metric: str | None = None,
    ) -> AsyncIterator[QuotaTicket]:
        """Reserve like :meth:`reserve`; commit the ticket when the block ends, release it
        if the block raises.

        Example::

            async with quotas.metered(key.lineage_id, key.plan, {"images": 1}) as ticket:
                result = await render_image(request, browser=browser, storage=storage)
            response.headers.update(ticket.headers())

        Raises:
            RateLimitedError, QuotaExceededError, ConfigurationError,
            StorageUnavailableError: as :meth:`reserve`.
        """
        ticket = await self.reserve(api_key_id, plan, charges, main_metric=main_metric)
        try:
            async with ticket.kept_alive():
                yield ticket
            await ticket.commit()
        except BaseException:
            await _release_quietly(ticket)
            raise

    async def adjust(self, ticket: QuotaTicket, metric: str, actual_amount: int) -> None:
        """Settle ``metric`` of a ticket at the measured ``actual_amount`` (store units).

        Before :meth:`QuotaTicket.commit`, the lease is set to commit ``actual_amount``
        (a metric not reserved gets a lease of its own); after it, the difference is
        charged or refunded in one atomic store operation. An extra charge is not checked
        against the limit: the work is done and delivered, so the usage is recorded even
        past the limit and the next call is refused.

        Raises:
            RuntimeError: the ticket was already released.
            ValueError: an unknown metric or a negative amount.
            StorageUnavailableError: the usage store failed.
        """
        check_charge(metric, actual_amount)
        if ticket.released:
            msg = "cannot adjust a released quota ticket"
            raise RuntimeError(msg)
        delta = actual_amount - ticket._charges.get(metric, 0)
        if delta == 0:
            return
        limit = _store_limit(ticket._limits.monthly_limit(metric), metric)
        previous = ticket._results.get(metric)
        if not ticket.committed:
            # Not usage yet: the lease commits the settled amount. A metric measured only
            # now gets its own lease, unchecked like any settlement.
            if metric not in ticket._leases:
                with anyio.CancelScope(shield=True):
                    result = await self._store.lease(
                        ticket.api_key_id, metric, ticket.period, 0, None, self._lease_seconds
                    )
                assert result.lease is not None
                ticket._leases[metric] = result.lease
            used = max((previous.used if previous else 0) + delta, 0)
            ticket._charges[metric] = actual_amount
            ticket._results[metric] = Reservation(allowed=True, used=used, limit=limit)
            return
        # Shielded, like reserve(), so the ticket always matches what the store recorded.
        with anyio.CancelScope(shield=True):
            if delta > 0:
                result = await self._store.reserve(
                    ticket.api_key_id, metric, ticket.period, delta, None
                )
                used = result.used
            else:
                await self._store.release(ticket.api_key_id, metric, ticket.period, -delta)
                used = max((previous.used if previous else 0) + delta, 0)
        ticket._charges[metric] = actual_amount
        ticket._results[metric] = Reservation(allowed=True, used=used, limit=limit)

    async def limit_issuance(self, client_address: str) -> None:
        """Count one self-service key issuance for a client address.

        Call it only for a valid request, right before issuing, so refused requests use no
        slot. Like every abuse limit here, the counter lives in the store's burst windows
        under a prefix that cannot collide with key ids, keyed by a hash of the identifier
        (no raw IP or e-mail address is kept), so replicas sharing a store share it.

        Raises:
            RateLimitedError: the address obtained ``issuance_limit`` keys in the current
                window (``metric`` is ``key_issuance``, ``plan`` is ``self-service``).
            UsageStoreUnavailableError: the usage store failed.
        """
        msg = "too many API keys issued to this client; try again later"
        await self._hit("issuance", client_address, self._issuance, "key_issuance", msg)

    async def limit_regeneration(self, api_key_id: str, client_address: str) -> None:
        """Count one key regeneration, per client address and then per key lineage.

        Raises:
            RateLimitedError: ``metric`` ``key_regeneration_address`` when the address,
                or ``key_regeneration`` when the lineage, reached its limit.
            UsageStoreUnavailableError: the usage store failed.
        """
        msg = "too many key regenerations from this client; try again later"
        await self._hit(
            "regenerate-address",
            client_address,
            self._regeneration_per_address,
            "key_regeneration_address",
            msg,
        )
        msg = "this key was regenerated too often; try again later"
        await self._hit(
            "regenerate-key", api_key_id, self._regeneration_per_key, "key_regeneration", msg
        )

    async def limit_key_email(self, recipient: str) -> None:
        """Count one key e-mail to a mailbox in every window of ``key_email``.

        Case and ``+tag`` sub-addresses are folded, so ``A+1@x.io`` and ``a@x.io`` share
        a counter and an attacker cannot flood one inbox by varying the spelling.

        Raises:
            RateLimitedError: ``metric`` ``key_email``: the mailbox got its limit.
            UsageStoreUnavailableError: the usage store failed.
        """
        msg = "too many key e-mails to this address; try again later"
        for rule in self._key_email:
            await self._hit("key-email", _mailbox(recipient), rule, "key_email", msg)

    async def _hit(
        self, scope: str, identifier: str, rule: WindowLimit, metric: str, message: str
    ) -> None:
        if rule.limit is None:
            return
        now = as_utc(self._clock())
        window_start, reset_at = fixed_window(now, rule.window)
        with self._fail_closed():
            result = await self._store.hit(
                f"{scope}:{_digest(identifier, self._pepper)}",
                window_start,
                rule.window,
                rule.limit,
            )
        if not result.allowed:
            raise RateLimitedError(
                message,
                metric=metric,
                plan="self-service",
                limit=rule.limit,
                remaining=0,
                reset_at=reset_at,
                retry_after=_retry_after(reset_at, now),
                window=rule.window,
            )

    @contextlib.contextmanager
    def _fail_closed(self) -> Iterator[None]:
        try:
            yield
        except UsageStoreUnavailableError:
            raise
        except StorageUnavailableError as exc:
            # Without counters no limit can be checked: refuse the call rather than serve
            # it unmetered. The store's message names no host or password.
            msg = "usage limits cannot be checked right now; try again shortly"
            raise UsageStoreUnavailableError(
                msg, retry_after=self._unavailable_retry_after
            ) from exc

    async def usage(self, api_key_id: str) -> dict[str, int]:
        """Return this month's committed usage of a key, ``{metric: used}`` in store units.

        Raises:
            StorageUnavailableError: the usage store failed.
        """
        return await self._store.usage(api_key_id, month_period(as_utc(self._clock())))

    async def in_flight(self, api_key_id: str) -> dict[str, int]:
        """Return what the key's running calls hold this month, ``{metric: held}``.

        Raises:
            StorageUnavailableError: the usage store failed.
        """
        return await self._store.in_flight(api_key_id, month_period(as_utc(self._clock())))

    def period(self) -> str:
        """The current accounting period, e.g. ``"2026-11"``."""
        return month_period(as_utc(self._clock()))

    def period_reset_at(self) -> datetime.datetime:
        """When the current period ends and the monthly quotas reset."""
        return next_month_start(as_utc(self._clock()))


async def _release_quietly(ticket: QuotaTicket) -> None:
    """Refund on an error path without hiding the error being raised."""
    try:
        await ticket.release()
    except StorageUnavailableError:
        logger.warning(
            "could not refund usage of a failed call; the key may be overcharged",
            exc_info=True,
        )
