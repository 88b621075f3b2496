"""The webhook outbox: deliveries waiting, being tried and done, one protocol, three backends.

:mod:`.base` (:class:`WebhookOutbox`, :class:`Delivery`, :class:`Attempt`), :mod:`.memory`,
:mod:`.sqlite`; ``RedisWebhookOutbox`` is imported from :mod:`.redis` (it needs ``redis``).
"""

from __future__ import annotations

from renderkit_server.state.webhook_outbox.base import (
    Attempt,
    Delivery,
    DeliveryStatus,
    WebhookBacklogFullError,
    WebhookOutbox,
)
from renderkit_server.state.webhook_outbox.memory import MemoryWebhookOutbox
from renderkit_server.state.webhook_outbox.sqlite import SqliteWebhookOutbox

__all__ = [
    "Attempt",
    "Delivery",
    "DeliveryStatus",
    "MemoryWebhookOutbox",
    "SqliteWebhookOutbox",
    "WebhookBacklogFullError",
    "WebhookOutbox",
]
