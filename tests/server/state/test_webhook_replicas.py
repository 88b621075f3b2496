"""Webhooks on Redis: an event written by one replica is delivered by another, signed with
the secret the first one handed out."""

from __future__ import annotations

from datetime import timedelta

import pytest
from standardwebhooks import Webhook

from renderkit_server.state._redis import connect
from renderkit_server.state.webhook_outbox.redis import RedisWebhookOutbox
from renderkit_server.state.webhook_secrets.redis import RedisWebhookSecretStore
from renderkit_server.webhooks import (
    DeliveryConfig,
    WebhookDispatcher,
    WebhookSecrets,
    format_secret,
    webhook_policy,
)
from tests.server.state.conftest import fresh_redis
from tests.server.webhooks._receiver import receiver

pytestmark = pytest.mark.anyio


async def test_an_event_written_by_one_replica_is_delivered_by_another(redis_url: str) -> None:
    await (await fresh_redis(redis_url)).aclose()
    replicas = []
    for _ in range(2):
        client = connect(redis_url)  # one client per replica, as two servers have
        replicas.append(
            (
                client,
                WebhookDispatcher(
                    outbox=RedisWebhookOutbox(client),
                    secrets=WebhookSecrets(
                        RedisWebhookSecretStore(client), grace=timedelta(hours=1)
                    ),
                    policy=webhook_policy(allow_private=True, allow_networks=()),
                    config=DeliveryConfig(schedule=(0.0,), timeout=2.0),
                ),
            )
        )
    (_, first), (_, second) = replicas
    try:
        secret = format_secret((await first.secrets.fetch("ab12")).current)
        with receiver("ok") as hook:
            queued = await first.enqueue(
                lineage="ab12", url=hook.url, event="batch.completed", data={"id": "b1"}
            )
            assert await second.run_once() == 1
            assert await first.run_once() == 0  # done: nothing left for the first
            [request] = hook.requests
        headers = {k: v for k, v in request.headers.items() if k.startswith("webhook-")}
        assert Webhook(secret).verify(request.body, headers)["data"] == {"id": "b1"}
        [done] = await first.deliveries("ab12", "")
        assert done.id == queued.id and done.status == "succeeded"
    finally:
        for client, dispatcher in replicas:
            await dispatcher.aclose()
            await client.aclose()
