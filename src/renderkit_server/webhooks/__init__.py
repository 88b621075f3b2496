"""Webhooks users can trust: signed (Standard Webhooks), retried, recorded, kept off private
networks.

Modules:

- ``signing``: the ``whsec_`` secrets and the ``webhook-*`` headers (HMAC-SHA256).
- ``secrets``: ``WebhookSecrets``, each key lineage's secret, created on first fetch and
  rotated with a grace period (stored in :mod:`renderkit_server.state.webhook_secrets`).
- ``egress``: ``check_webhook_url`` (submit time) and the pinned request (delivery time):
  the screenshots' network policy, DNS rebinding included.
- ``sender``: one attempt, bounded in time and in what is read.
- ``dispatcher``: ``WebhookDispatcher``, writing events to the durable outbox
  (:mod:`renderkit_server.state.webhook_outbox`) and the delivery loop with its retry
  schedule.
- ``views``: ``delivery_json``, a delivery and its attempts as the API shows them.
- ``routes``: ``GET /api/webhooks/secret`` and ``POST /api/webhooks/secret/rotate``;
  imported by the app, not here.

What a receiver sees and how to verify it: ``docs/webhooks.md``.
"""

from renderkit_server.state.webhook_outbox import (
    Attempt,
    Delivery,
    DeliveryStatus,
    WebhookBacklogFullError,
)
from renderkit_server.webhooks.dispatcher import (
    EVENT_TYPES,
    DeliveryConfig,
    WebhookDispatcher,
    WebhookPayloadTooLargeError,
)
from renderkit_server.webhooks.egress import check_webhook_url, webhook_policy
from renderkit_server.webhooks.secrets import WebhookSecrets
from renderkit_server.webhooks.sender import EXCERPT_CHARS
from renderkit_server.webhooks.signing import format_secret, signature_headers
from renderkit_server.webhooks.views import delivery_json

__all__ = [
    "EVENT_TYPES",
    "EXCERPT_CHARS",
    "Attempt",
    "Delivery",
    "DeliveryConfig",
    "DeliveryStatus",
    "WebhookBacklogFullError",
    "WebhookDispatcher",
    "WebhookPayloadTooLargeError",
    "WebhookSecrets",
    "check_webhook_url",
    "delivery_json",
    "format_secret",
    "signature_headers",
    "webhook_policy",
]
