"""The pure parts of an idempotent request: the key's value, the body's fingerprint and the
name of its entry."""

from __future__ import annotations

import hashlib
import json

import anyio.to_thread

from renderkit_server.bodies import OFF_LOOP_BYTES, JsonBodyError, decode_json
from renderkit_server.errors import HttpProblem

__all__ = ["HEADER", "canonical_fingerprint", "entry_key", "fingerprint_body", "parse_key"]

#: The request header (IETF draft-ietf-httpapi-idempotency-key-header).
HEADER = "Idempotency-Key"

#: The longest key accepted (Stripe's limit).
MAX_KEY_LENGTH = 255


def parse_key(value: str) -> str:
    """The header's value, checked: 1 to 255 printable ASCII characters.

    The draft makes the value a Structured Fields string (quoted); clients send it bare as
    often (Stripe's do), so both are accepted: surrounding double quotes are removed.

    Raises:
        HttpProblem: 400 ``INVALID_HEADER`` naming the header.
    """
    key = value.strip()
    if len(key) >= 2 and key.startswith('"') and key.endswith('"'):
        key = key[1:-1]
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not all(" " <= ch <= "~" for ch in key):
        msg = (
            f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable ASCII characters "
            "(a UUID is a good choice)"
        )
        raise HttpProblem(400, "INVALID_HEADER", msg, field=HEADER)
    return key


def canonical_fingerprint(value: object) -> str:
    """The SHA-256 of a JSON value re-serialised with sorted keys and no spaces, so bodies
    differing only in whitespace or key order have the same fingerprint."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _fingerprint(raw: bytes) -> str:
    try:
        return canonical_fingerprint(decode_json(raw))
    except JsonBodyError:
        # Not JSON (the work answers 400): the bytes themselves are the request.
        return hashlib.sha256(b"raw:" + raw).hexdigest()


async def fingerprint_body(raw: bytes) -> str:
    """The fingerprint of a request body: canonical JSON when it is JSON, else its bytes.

    A large body (a parse's base64 document) is fingerprinted in a worker thread.
    """
    if len(raw) <= OFF_LOOP_BYTES:
        return _fingerprint(raw)
    return await anyio.to_thread.run_sync(_fingerprint, raw)


def entry_key(method: str, path: str, key: str) -> str:
    """The entry's name within its key lineage: the method, the path and the key, hashed
    (a client's key never reaches the store as written, whatever it holds)."""
    return hashlib.sha256(f"{method.upper()}\n{path}\n{key}".encode()).hexdigest()
