"""``renderkit.client.verify_webhook`` accepts what the server's signer (also delivered to a
loopback receiver) and the ``standardwebhooks`` package sign, and refuses tampered, stale or
foreign webhooks."""

from __future__ import annotations

import datetime
import json

import anyio
import pytest
from standardwebhooks import Webhook

from renderkit import WebhookVerificationError
from renderkit.client import verify_webhook
from renderkit_server.state.webhook_outbox import MemoryWebhookOutbox
from renderkit_server.state.webhook_secrets import MemoryWebhookSecretStore
from renderkit_server.webhooks import (
    DeliveryConfig,
    WebhookDispatcher,
    WebhookSecrets,
    webhook_policy,
)
from renderkit_server.webhooks.signing import format_secret, new_secret, signature_headers
from tests.server.webhooks._receiver import receiver

NOW = 1_795_000_000
BODY = json.dumps({"type": "job.succeeded", "data": {"id": "job_1"}}).encode()


def _signed(secret: bytes, body: bytes = BODY, when: int = NOW) -> dict[str, str]:
    return signature_headers([secret], "msg_1", when, body)


def test_a_webhook_signed_by_the_server_verifies_and_returns_its_payload() -> None:
    secret = new_secret()

    payload = verify_webhook(BODY, _signed(secret), format_secret(secret), now=NOW)

    assert payload == {"type": "job.succeeded", "data": {"id": "job_1"}}


def test_a_webhook_signed_by_the_standardwebhooks_package_verifies() -> None:
    secret = format_secret(new_secret())
    when = datetime.datetime.fromtimestamp(NOW, datetime.UTC)
    signature = Webhook(secret).sign("msg_2", when, BODY.decode())
    headers = {
        "Webhook-Id": "msg_2",
        "Webhook-Timestamp": str(NOW),
        "Webhook-Signature": signature,
    }

    assert verify_webhook(BODY.decode(), headers, secret, now=NOW + 10)["type"] == "job.succeeded"


def test_what_this_verifier_accepts_the_standardwebhooks_package_accepts_too() -> None:
    secret = new_secret()
    headers = _signed(secret, when=int(datetime.datetime.now(datetime.UTC).timestamp()))

    assert Webhook(format_secret(secret)).verify(BODY, headers) == verify_webhook(
        BODY, headers, format_secret(secret)
    )


def test_during_a_rotation_either_secret_verifies_the_doubly_signed_webhook() -> None:
    old, new = new_secret(), new_secret()
    headers = signature_headers([new, old], "msg_3", NOW, BODY)

    assert verify_webhook(BODY, headers, format_secret(old), now=NOW)
    assert verify_webhook(BODY, headers, new, now=NOW)


@pytest.mark.parametrize(
    ("body", "when", "secret_given", "message"),
    [
        (BODY + b" ", NOW, None, "no webhook signature matches"),
        (BODY, NOW - 301, None, "outside the tolerance"),
        (BODY, NOW + 301, None, "outside the tolerance"),
        (BODY, NOW, format_secret(b"y" * 32), "no webhook signature matches"),
        (BODY, NOW, "whsec_not base64!", "not whsec_"),
    ],
    ids=["tampered body", "stale", "from the future", "another secret", "malformed secret"],
)
def test_a_tampered_stale_or_foreign_webhook_is_refused(
    body: bytes, when: int, secret_given: str | None, message: str
) -> None:
    secret = new_secret()
    headers = _signed(secret, BODY, when)

    with pytest.raises(WebhookVerificationError, match=message):
        verify_webhook(body, headers, secret_given or format_secret(secret), now=NOW)


def test_a_webhook_without_its_signature_header_is_refused() -> None:
    secret = new_secret()
    headers = _signed(secret)
    del headers["webhook-signature"]

    with pytest.raises(WebhookVerificationError, match="webhook-signature header is missing"):
        verify_webhook(BODY, headers, format_secret(secret), now=NOW)


def test_the_tolerance_is_the_callers_to_choose() -> None:
    secret = new_secret()
    headers = _signed(secret, when=NOW - 600)

    assert verify_webhook(BODY, headers, secret, tolerance=900, now=NOW)


@pytest.mark.anyio
async def test_a_webhook_the_server_delivered_to_a_loopback_receiver_verifies() -> None:
    secrets = WebhookSecrets(MemoryWebhookSecretStore(), grace=datetime.timedelta(hours=1))
    dispatcher = WebhookDispatcher(
        outbox=MemoryWebhookOutbox(),
        secrets=secrets,
        policy=webhook_policy(allow_private=True, allow_networks=()),
        config=DeliveryConfig(timeout=2.0, schedule=(0.0,)),
    )
    try:
        with receiver("ok") as hook:
            queued = await dispatcher.enqueue(
                lineage="0123456789abcdef",
                url=hook.url,
                event="job.succeeded",
                data={"id": "job_1", "status": "succeeded"},
                subject="job_1",
            )
            with anyio.fail_after(15):
                while not hook.requests:
                    await dispatcher.run_once()
                    await anyio.sleep(0.02)
        secret = format_secret((await secrets.fetch("0123456789abcdef")).current)
    finally:
        await dispatcher.aclose()
    [request] = hook.requests

    event = verify_webhook(request.body, request.headers, secret)

    assert event["type"] == "job.succeeded"
    assert event["data"] == {"id": "job_1", "status": "succeeded"}
    assert request.headers["webhook-id"] == queued.id
    with pytest.raises(WebhookVerificationError):
        verify_webhook(request.body, request.headers, format_secret(new_secret()))
