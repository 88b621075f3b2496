"""Standard Webhooks signatures: ``webhook-id``, ``webhook-timestamp``, ``webhook-signature``.

The scheme (https://www.standardwebhooks.com): the signed content is
``<webhook-id>.<webhook-timestamp>.<body>``, signed with HMAC-SHA256 under the secret's
bytes; the header holds ``v1,<base64 signature>``, several of them space-separated (one per
valid secret while a rotation's grace runs). Secrets are shown as ``whsec_<base64>``.

Signed here with :mod:`hmac` (a few lines), not with the ``standardwebhooks`` package: the
server then needs no extra dependency, and the tests verify every signature with that
package, as a receiver would.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import uuid
from collections.abc import Sequence

__all__ = [
    "SECRET_BYTES",
    "SECRET_PREFIX",
    "format_secret",
    "new_message_id",
    "new_secret",
    "sign",
    "signature_headers",
]

#: How a secret is shown to its holder: ``whsec_`` then the base64 of its bytes.
SECRET_PREFIX = "whsec_"
#: Secret length: 256 bits, the HMAC-SHA256 output's size (the specification asks for 24 to
#: 64 random bytes).
SECRET_BYTES = 32


def new_secret() -> bytes:
    """A fresh random secret."""
    return secrets.token_bytes(SECRET_BYTES)


def format_secret(secret: bytes) -> str:
    """``secret`` as its holder sees it, ``whsec_<base64>``."""
    return SECRET_PREFIX + base64.b64encode(secret).decode("ascii")


def new_message_id() -> str:
    """A ``webhook-id``: unique, and free of the ``.`` that separates the signed parts."""
    return f"msg_{uuid.uuid4().hex}"


def sign(secret: bytes, message_id: str, timestamp: int, body: bytes) -> str:
    """One ``v1,<base64>`` signature of ``body`` sent as ``message_id`` at ``timestamp``."""
    content = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret, content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def signature_headers(
    keys: Sequence[bytes], message_id: str, timestamp: int, body: bytes
) -> dict[str, str]:
    """The three Standard Webhooks headers, with one signature per secret in ``keys``.

    Args:
        keys: the secrets to sign with, current first (at least one).
        message_id: the delivery's id, the same on every attempt.
        timestamp: unix seconds of this attempt.
        body: the exact bytes sent.
    """
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(sign(k, message_id, timestamp, body) for k in keys),
    }
