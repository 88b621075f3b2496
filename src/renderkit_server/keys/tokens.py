"""The API key token: its claims, its binary record and the HMAC that signs it.

A key looks like ``sk_live_<payload>.<mac>``. The payload is the base64url (unpadded)
encoding of a small versioned binary record::

    version (1 byte, 2 for keys issued now)
    key id (16 random bytes): the lineage, stable across regenerations, and the account
    plan (1 byte, index into PLANS)
    generation (uint32): 0 for a new key, +1 on each regeneration
    issued_at (uint64, unix seconds)
    kid length (1 byte) + kid (ASCII): which signing secret signed the key

and ``mac`` is base64url(HMAC-SHA256(secrets[kid], "sk_live_" + payload)) truncated to
128 bits. The payload is signed, not encrypted: anyone holding a key can read its lineage,
plan, generation, issue time and kid, none of which is personal data.

Version 1 keys (issued before) carry the same fields followed by the owner's e-mail address
(UTF-8, the rest of the payload). They keep verifying, and their address is
:attr:`ApiKey.email`; new keys are version 2 and carry no address: the owner's e-mail stays
on the server (:mod:`renderkit_server.state.key_owners`), and regenerating a version 1 key
issues a version 2 key.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import struct
from collections.abc import Mapping
from typing import Literal

import attrs

from renderkit import ConfigurationError, RenderkitError
from renderkit_server import signing
from renderkit_server.quotas.plans import PLAN_NAMES

__all__ = [
    "KEY_PREFIX",
    "PLANS",
    "SIGNING_PURPOSE",
    "ApiKey",
    "InvalidKeyError",
    "InvalidKeyReason",
    "IssuedKey",
    "KeySigner",
    "fingerprint",
]

KEY_PREFIX = "sk_live_"
#: Plans in wire order: a plan's index is its byte in the key (the quota plans' own list).
PLANS: tuple[str, ...] = PLAN_NAMES
#: What the server secret is derived for (see :func:`renderkit_server.signing.key_ring`).
SIGNING_PURPOSE = "renderkit-keys"

_VERSION = 2
#: Keys issued before e-mail addresses left them: the same header, then the address.
_VERSION_WITH_EMAIL = 1
_HEADER = struct.Struct(">B16sBIQB")  # version, key id, plan, generation, issued_at, kid len
_MAC_BYTES = 16
# Longest possible key is about 450 characters; anything far longer is not worth decoding.
_MAX_KEY_LENGTH = 1024
_KEY_RE = re.compile(r"sk_live_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)")
_KID_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")
_MIN_SECRET_BYTES = 32
_INVALID_KEY = "invalid API key"

InvalidKeyReason = Literal[
    "missing", "malformed", "bad_signature", "unknown_kid", "revoked", "conflicting_headers"
]


class InvalidKeyError(RenderkitError):
    """No API key, or one that is malformed, wrongly signed, signed by a retired secret, or
    revoked.

    The message is the generic ``invalid API key`` unless the raiser gives a hint (what to
    send when no key was sent); it never contains the key. ``reason`` says why, for logs and
    tests.
    """

    def __init__(self, *, reason: InvalidKeyReason, message: str = _INVALID_KEY) -> None:
        super().__init__(message)
        self.reason: InvalidKeyReason = reason


@attrs.frozen(kw_only=True)
class ApiKey:
    """The verified claims of an API key.

    Attributes:
        key_id: lineage id (hex), shared by a key and all its regenerations; use it to meter
            quotas and as the authenticated identity (the account). Random, so opaque.
        plan: one of :data:`PLANS`.
        email: the e-mail address a version 1 key carries; None for a version 2 key, whose
            owner's address only the server knows (:meth:`KeyService.owner_email`).
        generation: 0 for a freshly issued key, incremented by each regeneration.
        issued_at: unix seconds when this generation was issued.
        kid: id of the signing secret that signed the key.
    """

    key_id: str
    plan: str
    email: str | None = None
    generation: int
    issued_at: int
    kid: str

    @property
    def issued(self) -> datetime.datetime:
        """``issued_at`` as an aware UTC datetime."""
        return datetime.datetime.fromtimestamp(self.issued_at, tz=datetime.UTC)


@attrs.frozen(kw_only=True)
class IssuedKey:
    """A newly issued key, to be shown to its owner once.

    Attributes:
        key: the secret key string; kept out of ``repr`` so it cannot leak into logs.
        key_id: lineage id (see :attr:`ApiKey.key_id`).
        plan: one of :data:`PLANS`.
        email: the owner's normalised e-mail address, where the key is e-mailed; None for
            a regenerated key whose lineage has no address on record.
        created: when the key was issued (UTC).
        generation: 0 for a new key, higher for a regenerated one.
    """

    key: str = attrs.field(repr=False)
    key_id: str
    plan: str
    email: str | None
    created: datetime.datetime
    generation: int = 0


def fingerprint(key: str) -> str:
    """Return a short, non-reversible identifier of ``key`` for logs.

    Args:
        key: any string, valid key or not.

    Returns:
        The first 12 hex digits of the key's SHA-256.
    """
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]


class KeySigner:
    """Signs and checks keys with a set of HMAC secrets identified by ``kid``.

    Rotation: add the new secret under a new kid and make it current; keys signed with any
    kid still in ``secrets`` keep verifying. Removing a kid invalidates every key it signed.

    Args:
        secrets: kid → secret; kids are 1-32 characters of ``[A-Za-z0-9_-]`` and secrets
            at least 32 bytes.
        current_kid: kid used to sign new keys.

    Raises:
        ConfigurationError: for a bad kid, a short secret or an unknown ``current_kid``.
    """

    def __init__(self, secrets: Mapping[str, bytes], current_kid: str) -> None:
        for kid, secret in secrets.items():
            if not isinstance(kid, str) or not _KID_RE.fullmatch(kid):
                msg = "key signing kids must be 1-32 characters of A-Z, a-z, 0-9, _ and -"
                raise ConfigurationError(msg)
            if not isinstance(secret, bytes) or len(secret) < _MIN_SECRET_BYTES:
                msg = f"key signing secret {kid!r} must be at least {_MIN_SECRET_BYTES} bytes"
                raise ConfigurationError(msg)
        if current_kid not in secrets:
            msg = f"current key signing kid {current_kid!r} has no secret"
            raise ConfigurationError(msg)
        self._secrets = dict(secrets)
        self.current_kid = current_kid

    @classmethod
    def from_secret(cls, secret: str) -> KeySigner:
        """A signer for the server secret: one derived key per configured kid.

        Args:
            secret: ``RENDERKIT_SECRET`` (see :func:`renderkit_server.signing.key_ring`).

        Returns:
            A signer whose current kid is the first configured one.
        """
        keys, current = signing.key_ring(secret, SIGNING_PURPOSE)
        return cls(keys, current)

    def __repr__(self) -> str:
        return f"KeySigner(kids={sorted(self._secrets)!r}, current_kid={self.current_kid!r})"

    def sign(self, claims: ApiKey) -> str:
        """Encode and sign ``claims`` as a version 2 key: ``claims.email`` is never written
        into it, and ``claims.kid`` is ignored (the current kid is used).

        Args:
            claims: the key's contents.

        Returns:
            The key string.
        """
        kid = self.current_kid.encode("ascii")
        payload = (
            _HEADER.pack(
                _VERSION,
                bytes.fromhex(claims.key_id),
                PLANS.index(claims.plan),
                claims.generation,
                claims.issued_at,
                len(kid),
            )
            + kid
        )
        text = signing.b64encode(payload)
        mac = signing.mac(self._secrets[self.current_kid], KEY_PREFIX + text, size=_MAC_BYTES)
        return f"{KEY_PREFIX}{text}.{mac}"

    def verify(self, key: str) -> ApiKey:
        """Check a key's format and signature; revocation is :class:`KeyService`'s job.

        Args:
            key: the key string as received.

        Returns:
            The key's claims.

        Raises:
            InvalidKeyError: malformed, unknown kid or bad signature.
        """
        if not isinstance(key, str) or len(key) > _MAX_KEY_LENGTH:
            raise InvalidKeyError(reason="malformed")
        match = _KEY_RE.fullmatch(key)
        if match is None:
            raise InvalidKeyError(reason="malformed")
        text, mac = match.groups()
        try:
            payload = signing.b64decode(text)
            version, raw_id, plan, generation, issued_at, kid_len = _HEADER.unpack_from(payload)
            kid = payload[_HEADER.size : _HEADER.size + kid_len].decode("ascii")
        except (ValueError, struct.error):
            raise InvalidKeyError(reason="malformed") from None
        if version not in (_VERSION, _VERSION_WITH_EMAIL) or len(kid) != kid_len:
            raise InvalidKeyError(reason="malformed")
        secret = self._secrets.get(kid)
        if secret is None:
            raise InvalidKeyError(reason="unknown_kid")
        if not signing.verify(secret, KEY_PREFIX + text, mac, size=_MAC_BYTES):
            raise InvalidKeyError(reason="bad_signature")
        # From here on the payload is trusted: this server's signer produced it.
        rest = payload[_HEADER.size + kid_len :]
        if version == _VERSION and rest:
            raise InvalidKeyError(reason="malformed")
        try:
            email = rest.decode("utf-8") if version == _VERSION_WITH_EMAIL else None
            plan_name = PLANS[plan]
        except (UnicodeDecodeError, IndexError):
            raise InvalidKeyError(reason="malformed") from None
        return ApiKey(
            key_id=raw_id.hex(),
            plan=plan_name,
            email=email,
            generation=generation,
            issued_at=issued_at,
            kid=kid,
        )
