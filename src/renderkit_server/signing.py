"""HMAC-SHA256 signatures shared by every signed token the server hands out.

Three wire formats use it: API keys (``keys.tokens``), file download URLs (``files``) and MCP
session ids (``mcp.sessions``). Each signs with its own key, derived from the operator's
``RENDERKIT_SECRET`` for one purpose, so a MAC of one kind never verifies as another. MACs
are truncated HMAC-SHA256 digests written in unpadded base64url, and compared in constant
time.

``RENDERKIT_SECRET`` is one secret, or ``kid:secret,kid:secret`` with the current one first
(API keys rotate by kid: see :func:`key_ring`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac

__all__ = ["b64decode", "b64encode", "current_key", "derive_key", "key_ring", "mac", "verify"]


def b64encode(data: bytes) -> str:
    """Encode ``data`` as unpadded base64url (``A-Z a-z 0-9 - _``).

    Args:
        data: any bytes.

    Returns:
        The text, without ``=`` padding.
    """
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64decode(text: str) -> bytes:
    """Decode unpadded base64url, accepting only the one canonical spelling of each value.

    Args:
        text: what :func:`b64encode` produced.

    Returns:
        The bytes.

    Raises:
        ValueError: ``text`` is not canonical unpadded base64url (``binascii.Error`` is a
            subclass), e.g. stray bits in its last character.
    """
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    # Without this check two texts could decode to the same bytes, so a token would have
    # several spellings.
    if b64encode(data) != text:
        msg = "not canonical unpadded base64url"
        raise ValueError(msg)
    return data


def derive_key(secret: str, purpose: str) -> bytes:
    """Stretch one configured secret into the 32-byte MAC key of one purpose.

    Short operator secrets still give full-length keys, and two purposes never share a key.

    Args:
        secret: the configured secret, as written.
        purpose: a fixed name per token kind, e.g. ``renderkit-files``.

    Returns:
        SHA-256 of ``purpose:secret``.
    """
    return hashlib.sha256(f"{purpose}:{secret}".encode()).digest()


def _entries(secret: str) -> list[str]:
    return [part.strip() for part in secret.split(",") if part.strip()]


def key_ring(secret: str, purpose: str) -> tuple[dict[str, bytes], str]:
    """Derive one key per configured secret, by kid, for tokens that rotate (API keys).

    Args:
        secret: ``RENDERKIT_SECRET``: one secret, or ``kid:secret,kid:secret``. Entries
            without a kid are named ``k1``, ``k2``... by position.
        purpose: the token kind.

    Returns:
        kid → derived key, and the current kid (the first).
    """
    keys: dict[str, bytes] = {}
    for index, entry in enumerate(_entries(secret)):
        kid, sep, value = entry.partition(":")
        if not sep:
            kid, value = f"k{index + 1}", entry
        keys[kid] = derive_key(value, purpose)
    return keys, next(iter(keys))


def current_key(secret: str, purpose: str) -> bytes:
    """Derive the key of a token kind signed by the current secret only (no rotation).

    The first entry is used as written, ``kid:`` included, so that file URLs and session ids
    signed before the kid syntax existed keep verifying.

    Args:
        secret: ``RENDERKIT_SECRET``.
        purpose: the token kind.

    Returns:
        The derived key.
    """
    return derive_key(secret.split(",")[0].strip(), purpose)


def mac(key: bytes, message: str, *, size: int) -> str:
    """Sign ``message``: HMAC-SHA256 truncated to ``size`` bytes, in unpadded base64url.

    Args:
        key: a derived key.
        message: the signed text (UTF-8 encoded).
        size: how many digest bytes to keep (at most 32).

    Returns:
        The MAC text.
    """
    digest = hmac.new(key, message.encode(), hashlib.sha256).digest()
    return b64encode(digest[:size])


def verify(key: bytes, message: str, signature: str, *, size: int) -> bool:
    """Check a MAC from :func:`mac` in constant time.

    The texts are compared rather than the decoded bytes, so a changed last character cannot
    decode to the same digest.

    Args:
        key: the derived key it was signed with.
        message: the signed text.
        signature: the MAC as received (any string).
        size: the truncation used when signing.

    Returns:
        True when ``signature`` is exactly the MAC of ``message``.
    """
    expected = mac(key, message, size=size).encode("ascii")
    return hmac.compare_digest(expected, signature.encode("utf-8", "replace"))
