"""The hook between finished jobs and whatever announces them (webhooks).

The jobs side builds the event, :class:`JobEvent`, once per finished job and once per
completed batch, and hands it to a :class:`JobNotifier`. The server's notifier,
:class:`~renderkit_server.jobs.delivery.WebhookNotifier`, writes it to the webhook outbox
(Standard Webhooks signing, retries and the egress policy are the outbox's business),
reading ``webhook_url``, ``owner`` (whose secret signs) and ``id`` (the ``webhook-id``) from
the event and sending its ``type`` and ``data``. :class:`RecordingNotifier` keeps the
events in memory (the test fake).
"""

from __future__ import annotations

import collections
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import attrs

# The webhooks' own vocabulary: what the jobs announce is what a webhook can carry.
from renderkit_server.webhooks.dispatcher import EVENT_TYPES, EventType

__all__ = ["EVENT_TYPES", "EventType", "JobEvent", "JobNotifier", "RecordingNotifier"]


@attrs.frozen(kw_only=True)
class JobEvent:
    """One event to announce.

    Attributes:
        id: unique per event and stable across redeliveries (the ``webhook-id``): the job
            or batch id and its final status (``job_<hex>_succeeded``), free of ``.``.
        type: what happened.
        subject: the job or batch id (its webhook deliveries are listed under it).
        owner: the key lineage the job or batch belongs to (whose webhook secret signs).
        webhook_url: where the owner asked for the event; ``None`` when nowhere.
        body: the JSON payload, ``{"type", "timestamp", "data"}``, ``data`` being the job
            or batch exactly as ``GET /api/jobs/{id}`` (``/api/batches/{id}``) returns it.
    """

    id: str
    type: EventType
    subject: str
    owner: str
    webhook_url: str | None
    body: Mapping[str, Any]


@runtime_checkable
class JobNotifier(Protocol):
    """Announces finished jobs and completed batches.

    Called once per event by the replica that finished the job (at-least-once execution
    can, rarely, call it twice for one job whose worker died after recording it: receivers
    deduplicate by ``event.id``). It must not raise for a delivery problem: delivery is its
    own business, retried on its own schedule; the job's outcome is already recorded.
    """

    async def job_finished(self, event: JobEvent) -> None:
        """Announce a job that succeeded, failed or was cancelled."""
        ...

    async def batch_completed(self, event: JobEvent) -> None:
        """Announce a batch whose every job finished."""
        ...


class RecordingNotifier:
    """Keeps the latest ``keep`` events in :attr:`events`, in order; delivers nothing.

    The test fake (bounded, so a long-running test server does not grow with it).
    """

    def __init__(self, *, keep: int = 1000) -> None:
        self.events: collections.deque[JobEvent] = collections.deque(maxlen=keep)

    async def job_finished(self, event: JobEvent) -> None:
        """Record the event."""
        self.events.append(event)

    async def batch_completed(self, event: JobEvent) -> None:
        """Record the event."""
        self.events.append(event)
