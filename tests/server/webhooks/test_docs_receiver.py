"""The receiver code of docs/webhooks.md, run against real deliveries."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks import WebhookVerificationError

from renderkit_server.state.webhook_outbox import MemoryWebhookOutbox
from renderkit_server.state.webhook_secrets import MemoryWebhookSecretStore
from renderkit_server.webhooks import (
    DeliveryConfig,
    WebhookDispatcher,
    WebhookSecrets,
    format_secret,
    webhook_policy,
)

from ._receiver import receiver

pytestmark = pytest.mark.anyio

PAGE = Path(__file__).resolve().parents[3] / "docs" / "webhooks.md"


def page_functions() -> dict[str, Any]:
    """The page's Python blocks, executed in one namespace."""
    namespace: dict[str, Any] = {}
    for block in re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.DOTALL):
        exec(compile(block, str(PAGE), "exec"), namespace)
    return namespace


async def test_the_pages_receivers_accept_a_real_delivery_and_refuse_a_forged_one() -> None:
    store = MemoryWebhookSecretStore()
    secrets = WebhookSecrets(store, grace=timedelta(hours=1))
    dispatcher = WebhookDispatcher(
        outbox=MemoryWebhookOutbox(),
        secrets=secrets,
        policy=webhook_policy(allow_private=True, allow_networks=()),
        config=DeliveryConfig(schedule=(0.0,), timeout=2.0),
    )
    page = page_functions()
    secret = format_secret((await secrets.fetch("ab12")).current)
    page["WEBHOOK_SECRET"] = secret
    try:
        with receiver("ok") as hook:
            await dispatcher.enqueue(
                lineage="ab12", url=hook.url, event="job.succeeded", data={"id": "job_1"}
            )
            await dispatcher.run_once()
            [request] = hook.requests
    finally:
        await dispatcher.aclose()
    assert page["verify"](request.body, request.headers)["data"] == {"id": "job_1"}
    assert page["verify_by_hand"](request.body, request.headers, secret) is True
    forged = request.body.replace(b"job_1", b"job_2")
    with pytest.raises(WebhookVerificationError):
        page["verify"](forged, request.headers)
    assert page["verify_by_hand"](forged, request.headers, secret) is False
    assert page["verify_by_hand"](request.body, request.headers, format_secret(b"k" * 32)) is False
