"""Verifying a renderkit server's webhooks, as the Standard Webhooks specification says.

Written from the specification (https://www.standardwebhooks.com), not shared with the
server: a receiver needs only this library. The signed content is
``<webhook-id>.<webhook-timestamp>.<body>``, signed with HMAC-SHA256 under the secret's bytes
(``whsec_<base64>``); ``webhook-signature`` holds one or more ``v1,<base64>`` signatures,
space-separated (two while a rotated secret's grace runs), and any one matching is enough.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

from renderkit.core.errors import WebhookVerificationError

__all__ = ["DEFAULT_TOLERANCE", "verify_webhook"]

#: How far (seconds) a webhook's timestamp may be from now, either way, as the specification
#: recommends: an older one is a replay, however valid its signature.
DEFAULT_TOLERANCE = 300

_PREFIX = "whsec_"


def _secret_bytes(secret: str | bytes) -> bytes:
    if isinstance(secret, bytes):
        return secret
    text = secret.removeprefix(_PREFIX)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        msg = "the webhook secret is not whsec_<base64>"
        raise WebhookVerificationError(msg) from exc


def _header(headers: Mapping[str, str], name: str) -> str:
    # Header names are case-insensitive; frameworks hand them over in any case.
    for key, value in headers.items():
        if key.lower() == name:
            return value
    msg = f"the {name} header is missing"
    raise WebhookVerificationError(msg)


def verify_webhook(
    body: bytes | str,
    headers: Mapping[str, str],
    secret: str | bytes,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> Any:
    """Check a webhook request's signature and timestamp; return its JSON payload.

    Pass the body exactly as received (before any JSON parsing: a re-serialised body has
    other bytes and fails).

    Args:
        body: the raw request body.
        headers: the request's headers (any case).
        secret: the signing secret, ``whsec_<base64>`` as ``GET /api/webhooks/secret``
            shows it, or its raw bytes.
        tolerance: seconds the ``webhook-timestamp`` may differ from now.
        now: the current unix time (tests); default the clock.

    Raises:
        WebhookVerificationError: a header is missing, the timestamp is outside the
            tolerance, no signature matches, or the body is not JSON.
    """
    raw = body.encode() if isinstance(body, str) else body
    message_id = _header(headers, "webhook-id")
    stamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    try:
        timestamp = int(stamp)
    except ValueError as exc:
        msg = "the webhook-timestamp header is not unix seconds"
        raise WebhookVerificationError(msg) from exc
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance:
        msg = "the webhook timestamp is outside the tolerance (a replay, or a wrong clock)"
        raise WebhookVerificationError(msg)
    content = f"{message_id}.{timestamp}.".encode() + raw
    expected = hmac.new(_secret_bytes(secret), content, hashlib.sha256).digest()
    for candidate in signatures.split():
        version, _, encoded = candidate.partition(",")
        if version != "v1":
            continue  # a scheme this receiver does not know (v1a): another may match
        try:
            given = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(given, expected):
            break
    else:
        msg = "no webhook signature matches the secret"
        raise WebhookVerificationError(msg)
    try:
        return json.loads(raw)
    except ValueError as exc:
        msg = "the webhook body is not JSON"
        raise WebhookVerificationError(msg) from exc
