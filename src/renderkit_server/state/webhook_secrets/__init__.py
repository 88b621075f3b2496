"""Webhook signing secrets by key lineage: one protocol, three backends.

:mod:`.base` (:class:`WebhookSecretStore`, :class:`WebhookSecretEntry`), :mod:`.memory`,
:mod:`.sqlite`; ``RedisWebhookSecretStore`` is imported from :mod:`.redis` (it needs
``redis``).
"""

from __future__ import annotations

from renderkit_server.state.webhook_secrets.base import WebhookSecretEntry, WebhookSecretStore
from renderkit_server.state.webhook_secrets.memory import MemoryWebhookSecretStore
from renderkit_server.state.webhook_secrets.sqlite import SqliteWebhookSecretStore

__all__ = [
    "MemoryWebhookSecretStore",
    "SqliteWebhookSecretStore",
    "WebhookSecretEntry",
    "WebhookSecretStore",
]
