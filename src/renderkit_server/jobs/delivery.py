"""The server's :class:`~renderkit_server.jobs.notify.JobNotifier`: finished jobs and completed
batches written to the webhook outbox.

An event with a ``webhook_url`` becomes one delivery of the owner's lineage, about the job
(or batch), whose ``webhook-id`` is the event's stable id: a job announced twice (its worker
died after recording it) is written once, and a receiver that sees a repeat anyway can drop
it by that id. Signing, retries and the egress check at each attempt are the dispatcher's
(:mod:`renderkit_server.webhooks`).

Announcing never fails a job: its outcome is already recorded. An event too large for the
payload limit is sent as its summary (:func:`~renderkit_server.jobs.views.event_summary`,
the rest at ``status_url``); a full backlog or an unreachable outbox is logged (the job or
batch id and the error's class, never the URL, which may carry the receiver's token) and
counted as ``renderkit_webhook_deliveries_total{outcome="not_queued"}``.
"""

from __future__ import annotations

import logging

from renderkit import RenderkitError
from renderkit_server.jobs.notify import JobEvent
from renderkit_server.jobs.views import event_summary
from renderkit_server.metrics import Metrics
from renderkit_server.webhooks import WebhookDispatcher, WebhookPayloadTooLargeError

__all__ = ["WebhookNotifier"]

logger = logging.getLogger("renderkit_server")


class WebhookNotifier:
    """Writes each event that has a ``webhook_url`` to the webhook outbox.

    Args:
        dispatcher: the outbox and its delivery loop.
        metrics: where an event that could not be queued is counted (None: nowhere).
    """

    def __init__(self, dispatcher: WebhookDispatcher, *, metrics: Metrics | None = None) -> None:
        self._dispatcher = dispatcher
        self._metrics = metrics

    async def job_finished(self, event: JobEvent) -> None:
        """Queue the job's event for its webhook, if it has one."""
        await self._queue(event)

    async def batch_completed(self, event: JobEvent) -> None:
        """Queue the batch's event for its webhook, if it has one."""
        await self._queue(event)

    async def _queue(self, event: JobEvent) -> None:
        if event.webhook_url is None:
            return
        data = dict(event.body["data"])
        try:
            try:
                await self._enqueue(event, event.webhook_url, data)
            except WebhookPayloadTooLargeError:
                await self._enqueue(event, event.webhook_url, event_summary(data))
        except RenderkitError as exc:
            # The backlog is full, the outbox is down, or even the summary is too large.
            logger.warning(
                "the %s webhook of %s was not queued (%s)",
                event.type,
                event.subject,
                type(exc).__name__,
            )
            if self._metrics is not None:
                self._metrics.observe_webhook("not_queued", None)

    async def _enqueue(self, event: JobEvent, url: str, data: dict[str, object]) -> None:
        await self._dispatcher.enqueue(
            lineage=event.owner,
            url=url,
            event=event.type,
            data=data,
            subject=event.subject,
            message_id=event.id,
        )
