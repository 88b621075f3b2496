"""The webhook dispatcher: events written to the outbox, and the loop that delivers them.

:meth:`WebhookDispatcher.enqueue` writes an event (bounded in size, and in number per key
lineage) as a pending delivery; :meth:`WebhookDispatcher.run`, started in the app's
lifespan on every replica, claims due deliveries from the shared outbox, tries each once
(:func:`~renderkit_server.webhooks.sender.send`) and records the attempt: done on a 2xx,
else due again after the next step of the retry schedule, with full jitter, until the
schedule or the maximum age runs out and it gives up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import re
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import attrs
import httpx

from renderkit import RenderkitError
from renderkit.core.netpolicy import UrlPolicy
from renderkit.core.times import isoformat_z
from renderkit_server.metrics import Metrics
from renderkit_server.state.webhook_outbox import Attempt, Delivery, WebhookOutbox
from renderkit_server.webhooks.secrets import WebhookSecrets
from renderkit_server.webhooks.sender import new_client, send
from renderkit_server.webhooks.signing import new_message_id

__all__ = [
    "EVENT_TYPES",
    "MESSAGE_ID",
    "DeliveryConfig",
    "EventType",
    "WebhookDispatcher",
    "WebhookPayloadTooLargeError",
]

logger = logging.getLogger("renderkit_server")

#: What a webhook announces: a job that ended, a batch whose every job ended.
EventType = Literal["job.succeeded", "job.failed", "job.cancelled", "batch.completed"]

#: Every event type, as the ``type`` of the body.
EVENT_TYPES: tuple[EventType, ...] = (
    "job.succeeded",
    "job.failed",
    "job.cancelled",
    "batch.completed",
)

#: What a ``webhook-id`` given to :meth:`WebhookDispatcher.enqueue` may look like.
MESSAGE_ID = re.compile(r"[A-Za-z0-9_:-]{1,128}")

# Seconds between purges of finished deliveries past their retention.
_PURGE_EVERY = 3600.0
# Added to the attempt timeout to make a claim's lease: reading the secret and saving the
# attempt take a moment too, and a lease that ran out would let a second replica retry.
_LEASE_MARGIN = 60.0


class WebhookPayloadTooLargeError(RenderkitError):
    """An event's JSON body is larger than the webhook payload limit.

    Attributes:
        limit: the largest body, in bytes.
    """

    def __init__(self, message: str, *, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


def _utcnow() -> datetime:
    return datetime.now(UTC)


@attrs.frozen(kw_only=True)
class DeliveryConfig:
    """How deliveries are made and retried.

    Attributes:
        timeout: seconds for one attempt, from resolving the host to reading the answer.
        schedule: seconds before each attempt, counted from the previous one (the first
            from the event): attempt ``n`` waits a random time between 0 and
            ``schedule[n]`` (full jitter); past the last entry the delivery gives up.
        max_age: seconds after the event past which no attempt is made.
        max_pending: pending deliveries one key lineage may have.
        max_payload_bytes: the largest event body.
        poll: seconds between looks at the outbox for retries that came due (an event
            written by this process is tried at once).
        concurrency: attempts in flight at once per process.
        retention: seconds finished deliveries (and their attempts) are kept.
    """

    timeout: float = 10.0
    schedule: tuple[float, ...] = (0.0, 5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0)
    max_age: float = 24 * 3600.0
    max_pending: int = 1000
    max_payload_bytes: int = 64 * 1024
    poll: float = 1.0
    concurrency: int = 16
    retention: float = 7 * 24 * 3600.0


class WebhookDispatcher:
    """Writes events to the outbox and delivers them.

    Args:
        outbox: the shared outbox; its owner (the app's shared state) closes it.
        secrets: the lineages' signing secrets.
        policy: the egress policy every delivery address must pass.
        config: timeouts, retry schedule and bounds.
        metrics: where delivery outcomes and latency are counted (None: nowhere).
        transport: the HTTP transport (tests); the default connects over the network.
        clock: the current time (aware UTC).
        rng: the source of the retry jitter.
    """

    def __init__(
        self,
        *,
        outbox: WebhookOutbox,
        secrets: WebhookSecrets,
        policy: UrlPolicy,
        config: DeliveryConfig | None = None,
        metrics: Metrics | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], datetime] = _utcnow,
        rng: random.Random | None = None,
    ) -> None:
        self.outbox = outbox
        self.secrets = secrets
        self.policy = policy
        self.config = config or DeliveryConfig()
        self._metrics = metrics
        self._client = new_client(transport)
        self._clock = clock
        self._rng = rng or random.Random()  # jitter, not a secret
        self._wake = asyncio.Event()
        self._last_purge: float | None = None

    async def enqueue(
        self,
        *,
        lineage: str,
        url: str,
        event: str,
        data: Mapping[str, Any],
        subject: str = "",
        message_id: str | None = None,
    ) -> Delivery:
        """Write an event for ``url`` as a pending delivery, tried at once by the loop.

        The body is ``{"type": event, "timestamp": <now, ISO Z>, "data": data}``. ``url``
        is expected to have passed :func:`~renderkit_server.webhooks.check_webhook_url`;
        every attempt checks the address again.

        Idempotent on ``message_id``: an event whose id the outbox holds already is not
        written again, and the delivery recorded first is returned.

        Args:
            lineage: the key lineage that owns the event (its secret signs it).
            url: the receiver.
            event: one of :data:`EVENT_TYPES`.
            data: the event's JSON object.
            subject: what the event is about (a job or batch id), to list its deliveries.
            message_id: the ``webhook-id``, stable for one event (letters, digits, ``_``,
                ``-`` and ``:``); a fresh one when None.

        Raises:
            ValueError: ``event`` is not one of :data:`EVENT_TYPES`, or ``message_id`` is
                not a valid id.
            WebhookPayloadTooLargeError: the body exceeds ``max_payload_bytes``.
            WebhookBacklogFullError: the lineage has ``max_pending`` deliveries pending.
            StorageUnavailableError: the outbox could not be reached.
        """
        if event not in EVENT_TYPES:
            msg = f"unknown webhook event type {event!r}"
            raise ValueError(msg)
        if message_id is not None and not MESSAGE_ID.fullmatch(message_id):
            # The signed content is "<id>.<timestamp>.<body>": an id must not hold the "."
            msg = f"invalid webhook message id {message_id!r}"
            raise ValueError(msg)
        now = self._clock()
        body = json.dumps(
            {"type": event, "timestamp": isoformat_z(now), "data": dict(data)},
            separators=(",", ":"),
            ensure_ascii=False,
        )
        limit = self.config.max_payload_bytes
        if len(body.encode()) > limit:
            msg = f"the webhook payload is larger than {limit} bytes"
            raise WebhookPayloadTooLargeError(msg, limit=limit)
        delivery = Delivery(
            id=message_id or new_message_id(),
            lineage=lineage,
            url=url,
            body=body,
            subject=subject,
            created=now,
            due=now + timedelta(seconds=self._jitter(0)),
        )
        if not await self.outbox.add(delivery, max_pending=self.config.max_pending):
            return await self.outbox.get(delivery.id) or delivery
        self._wake.set()
        return delivery

    async def deliveries(self, lineage: str, subject: str) -> list[Delivery]:
        """Every delivery of ``lineage`` about ``subject``, oldest first, with its attempts.

        Raises:
            StorageUnavailableError: the outbox could not be reached.
        """
        return await self.outbox.for_subject(lineage, subject)

    async def run_once(self) -> int:
        """Claim the deliveries due now and try each once; how many were tried.

        Raises:
            StorageUnavailableError: the outbox could not be reached to claim.
        """
        claimed = await self.outbox.claim(
            self._clock(),
            lease=self.config.timeout + _LEASE_MARGIN,
            limit=self.config.concurrency,
        )
        if claimed:
            await asyncio.gather(*(self._deliver(d) for d in claimed))
        return len(claimed)

    async def run(self) -> None:
        """Deliver forever (the app's lifespan runs it, and cancels it on shutdown)."""
        while True:
            tried = 0
            # Cleared before looking: an event written while this pass runs wakes the next.
            self._wake.clear()
            try:
                tried = await self.run_once()
                await self._purge()
            except RenderkitError:
                # A store outage: log it and look again later, without the details (which
                # may name hosts).
                logger.warning("the webhook outbox is unavailable; retrying")
            except Exception:
                # A bug must not end the loop for good: every later webhook would wait.
                logger.exception("a pass of the webhook delivery loop failed")
            if tried >= self.config.concurrency:
                continue  # more may be due already
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.config.poll):
                    await self._wake.wait()

    async def aclose(self) -> None:
        """Close the HTTP client (the outbox belongs to its owner)."""
        await self._client.aclose()

    def _jitter(self, step: int) -> float:
        return self._rng.uniform(0.0, self.config.schedule[step])

    async def _deliver(self, delivery: Delivery) -> None:
        try:
            if delivery.attempts and self._clock() > delivery.created + timedelta(
                seconds=self.config.max_age
            ):
                # A retry left over past the maximum age (its replica died holding it, or
                # the outbox was down): give up rather than try it late.
                self._observe("gave_up", None)
                await self.outbox.save(attrs.evolve(delivery, status="failed", due=None))
                return
            keys = await self.secrets.signing_keys(delivery.lineage)
            attempt = await send(
                self._client,
                delivery,
                keys,
                policy=self.policy,
                timeout=self.config.timeout,
                at=self._clock(),
            )
            await self.outbox.save(self._after(delivery, attempt))
        except RenderkitError:
            # Unsaved: the claim's lease runs out and the delivery is tried again.
            logger.warning("a webhook attempt could not be recorded; it will be retried")
        except Exception:
            # One delivery's bug must not cancel the others of its pass.
            logger.exception("a webhook delivery failed unexpectedly; it will be retried")

    def _after(self, delivery: Delivery, attempt: Attempt) -> Delivery:
        attempts = (*delivery.attempts, attempt)
        outcome = "success" if attempt.succeeded else "failed_attempt"
        self._observe(outcome, attempt.seconds)
        if attempt.succeeded:
            return attrs.evolve(delivery, attempts=attempts, status="succeeded", due=None)
        step = len(attempts)
        if step < len(self.config.schedule):
            # Counted from the attempt's end: a 10 s timeout must not eat a 5 s step.
            due = self._clock() + timedelta(seconds=self._jitter(step))
            if due <= delivery.created + timedelta(seconds=self.config.max_age):
                return attrs.evolve(delivery, attempts=attempts, due=due)
        self._observe("gave_up", None)
        return attrs.evolve(delivery, attempts=attempts, status="failed", due=None)

    def _observe(self, outcome: str, seconds: float | None) -> None:
        if self._metrics is not None:
            self._metrics.observe_webhook(outcome, seconds)

    async def _purge(self) -> None:
        if self._last_purge is not None and time.monotonic() - self._last_purge < _PURGE_EVERY:
            return
        self._last_purge = time.monotonic()
        await self.outbox.purge(self._clock() - timedelta(seconds=self.config.retention))
