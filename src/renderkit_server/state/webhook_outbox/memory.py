"""The webhook outbox in this process only (tests, development)."""

from __future__ import annotations

from datetime import datetime, timedelta

import attrs

from renderkit_server.state.webhook_outbox.base import Delivery, backlog_full

__all__ = ["MemoryWebhookOutbox"]


class MemoryWebhookOutbox:
    """Deliveries in this instance only (tests, dev)."""

    def __init__(self) -> None:
        self._deliveries: dict[str, Delivery] = {}

    async def add(self, delivery: Delivery, *, max_pending: int) -> bool:
        """See :meth:`WebhookOutbox.add`."""
        if delivery.id in self._deliveries:
            return False
        pending = sum(
            1
            for d in self._deliveries.values()
            if d.lineage == delivery.lineage and d.status == "pending"
        )
        if pending >= max_pending:
            raise backlog_full(max_pending)
        self._deliveries[delivery.id] = delivery
        return True

    async def claim(self, now: datetime, *, lease: float, limit: int) -> list[Delivery]:
        """See :meth:`WebhookOutbox.claim`."""
        due = sorted(
            (
                d
                for d in self._deliveries.values()
                if d.status == "pending" and d.due is not None and d.due <= now
            ),
            key=lambda d: (d.due, d.id),
        )[:limit]
        claimed = [attrs.evolve(d, due=now + timedelta(seconds=lease)) for d in due]
        for delivery in claimed:
            self._deliveries[delivery.id] = delivery
        return claimed

    async def save(self, delivery: Delivery) -> None:
        """See :meth:`WebhookOutbox.save`."""
        self._deliveries[delivery.id] = delivery

    async def get(self, delivery_id: str) -> Delivery | None:
        """See :meth:`WebhookOutbox.get`."""
        return self._deliveries.get(delivery_id)

    async def for_subject(self, lineage: str, subject: str) -> list[Delivery]:
        """See :meth:`WebhookOutbox.for_subject`."""
        found = [
            d for d in self._deliveries.values() if d.lineage == lineage and d.subject == subject
        ]
        return sorted(found, key=lambda d: (d.created, d.id))

    async def purge(self, before: datetime) -> int:
        """See :meth:`WebhookOutbox.purge`."""
        old = [
            d.id for d in self._deliveries.values() if d.status != "pending" and d.created < before
        ]
        for delivery_id in old:
            del self._deliveries[delivery_id]
        return len(old)

    async def aclose(self) -> None:
        """Nothing to release."""
