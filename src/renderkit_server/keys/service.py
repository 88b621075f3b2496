"""API keys: issue, verify, regenerate and extract them from request headers.

A key looks like ``sk_live_<payload>.<mac>``. The payload is the base64url (unpadded)
encoding of a small versioned binary record::

    version (1 byte, currently 1)
    key id (16 random bytes): the lineage, stable across regenerations
    plan (1 byte, index into PLANS)
    generation (uint32): 0 for a new key, +1 on each regeneration
    issued_at (uint64, unix seconds)
    kid length (1 byte) + kid (ASCII): which signing secret signed the key
    email (UTF-8, the rest)

and ``mac`` is base64url(HMAC-SHA256(secrets[kid], "sk_live_" + payload)) truncated to
128 bits. The payload is signed, not encrypted: anyone holding a key can read its e-mail
address and plan, which is fine because the key is already the holder's own credential.

Keys are self-validating: :meth:`KeyService.verify` checks the signature and an in-memory
revocation table and never touches a database. Regeneration is the only way a key stops
working; it records "generations below N of lineage L are invalid" in a
:class:`RevocationStore`, which is loaded into memory by :meth:`KeyService.start` and kept up
to date by every revocation this process makes.

Several processes: each :class:`KeyService` caches revocations per process. Processes that
share a store (one SQLite file used by several workers, or a future Redis store) see each
other's revocations only after :meth:`KeyService.refresh`, so call it periodically; the
refresh interval is how long an old key may keep working on the *other* processes. A double
regeneration is still refused across processes, because :meth:`RevocationStore.revoke` is
a compare-and-set.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import struct
import threading
import time
from collections.abc import Callable, Mapping
from typing import Literal, Protocol, TypeVar, runtime_checkable

import anyio
import anyio.to_thread
import attrs

from renderkit import (
    ConfigurationError,
    InvalidRequestError,
    RenderkitError,
    StorageUnavailableError,
)
from renderkit_server._sqlite import enable_wal

__all__ = [
    "KEY_PREFIX",
    "PLANS",
    "ApiKey",
    "InvalidKeyError",
    "InvalidKeyReason",
    "IssuedKey",
    "KeyService",
    "KeySigner",
    "MemoryRevocationStore",
    "RevocationStore",
    "SqliteRevocationStore",
    "extract_key",
    "fingerprint",
    "normalize_email",
]

KEY_PREFIX = "sk_live_"
#: Plans in wire order: a plan's index is its byte in the key, so only append to this tuple.
PLANS: tuple[str, ...] = ("starter", "pro", "business", "vip")

_VERSION = 1
_HEADER = struct.Struct(">B16sBIQB")  # version, key id, plan, generation, issued_at, kid len
_MAC_BYTES = 16
_MAX_GENERATION = 2**32 - 1
# Longest possible key is about 450 characters; anything far longer is not worth decoding.
_MAX_KEY_LENGTH = 1024
_KEY_RE = re.compile(r"sk_live_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)")
_KID_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")
_MIN_SECRET_BYTES = 32
_INVALID_KEY = "invalid API key"
_T = TypeVar("_T")

_EMAIL = "email"
_PLAN = "plan"
_MAX_EMAIL = 254
_MAX_LOCAL = 64
# RFC 5322 dot-atom of atext: no quoted local parts, no spaces, no CR/LF (header injection).
_LOCAL_RE = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
_LABEL_RE = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")

InvalidKeyReason = Literal[
    "malformed", "bad_signature", "unknown_kid", "revoked", "conflicting_headers"
]


class InvalidKeyError(RenderkitError):
    """An API key is malformed, wrongly signed, signed by a retired secret, or revoked.

    The message is always the generic ``invalid API key`` and never contains the key;
    ``reason`` says why, for logs and tests.
    """

    def __init__(self, *, reason: InvalidKeyReason) -> None:
        super().__init__(_INVALID_KEY)
        self.reason: InvalidKeyReason = reason


@attrs.frozen(kw_only=True)
class ApiKey:
    """The verified claims of an API key.

    Attributes:
        key_id: lineage id (hex), shared by a key and all its regenerations; use it to meter
            quotas and as the authenticated identity.
        plan: one of :data:`PLANS`.
        email: the normalised e-mail address the key was issued to.
        generation: 0 for a freshly issued key, incremented by each regeneration.
        issued_at: unix seconds when this generation was issued.
        kid: id of the signing secret that signed the key.
    """

    key_id: str
    plan: str
    email: str
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
        email: the normalised e-mail address.
        created: when the key was issued (UTC).
        generation: 0 for a new key, higher for a regenerated one.
    """

    key: str = attrs.field(repr=False)
    key_id: str
    plan: str
    email: str
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


def normalize_email(email: object) -> str:
    """Check the syntax of an e-mail address and return its normalised form.

    The local part must be an RFC 5322 dot-atom (no quoted strings, ASCII only) and is kept
    as given; the domain is IDNA-encoded and lower-cased and needs at least two labels.
    Surrounding whitespace is removed.

    Args:
        email: the address as received.

    Returns:
        The normalised address, at most 254 characters.

    Raises:
        InvalidRequestError: for field ``email``.
    """
    if not isinstance(email, str):
        msg = "must be a string"
        raise InvalidRequestError.single(_EMAIL, msg)
    email = email.strip()
    if not email:
        msg = "must not be empty"
        raise InvalidRequestError.single(_EMAIL, msg, missing=True)
    local, at, domain = email.rpartition("@")
    if not at or len(local) > _MAX_LOCAL or not _LOCAL_RE.fullmatch(local):
        msg = "must be a valid e-mail address"
        raise InvalidRequestError.single(_EMAIL, msg)
    domain = _normalize_domain(domain)
    email = f"{local}@{domain}"
    if len(email) > _MAX_EMAIL:
        msg = f"must be at most {_MAX_EMAIL} characters"
        raise InvalidRequestError.single(_EMAIL, msg)
    return email


def _normalize_domain(domain: str) -> str:
    domain = domain.removesuffix(".")
    if not domain.isascii():
        try:
            domain = domain.encode("idna").decode("ascii")
        except UnicodeError:
            msg = "must have a valid domain"
            raise InvalidRequestError.single(_EMAIL, msg) from None
    domain = domain.lower()
    labels = domain.split(".")
    if (
        len(labels) < 2
        or not all(_LABEL_RE.fullmatch(label) for label in labels)
        or labels[-1].isdigit()  # an IP address or a numeric TLD, neither takes mail here
    ):
        msg = "must have a valid domain"
        raise InvalidRequestError.single(_EMAIL, msg)
    return domain


def _normalize_plan(plan: object) -> str:
    if not isinstance(plan, str):
        msg = "must be a string"
        raise InvalidRequestError.single(_PLAN, msg)
    normalized = plan.lower()
    if normalized not in PLANS:
        msg = f"must be one of {', '.join(PLANS)}"
        raise InvalidRequestError.single(_PLAN, msg)
    return normalized


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    # Refuse non-canonical encodings (stray bits in the last character) so that each key has
    # exactly one spelling.
    if _b64encode(data) != text:
        raise ValueError
    return data


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

    def __repr__(self) -> str:
        return f"KeySigner(kids={sorted(self._secrets)!r}, current_kid={self.current_kid!r})"

    def sign(self, claims: ApiKey) -> str:
        """Encode and sign ``claims``; ``claims.kid`` is ignored, the current kid is used.

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
            + claims.email.encode("utf-8")
        )
        text = _b64encode(payload)
        return f"{KEY_PREFIX}{text}.{self._mac(self._secrets[self.current_kid], text)}"

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
            payload = _b64decode(text)
            version, raw_id, plan, generation, issued_at, kid_len = _HEADER.unpack_from(payload)
            kid = payload[_HEADER.size : _HEADER.size + kid_len].decode("ascii")
        except (ValueError, binascii.Error, struct.error):
            raise InvalidKeyError(reason="malformed") from None
        if version != _VERSION or len(kid) != kid_len:
            raise InvalidKeyError(reason="malformed")
        secret = self._secrets.get(kid)
        if secret is None:
            raise InvalidKeyError(reason="unknown_kid")
        # Compare the encoded MACs so a mutated last character cannot decode to the same bytes.
        if not hmac.compare_digest(self._mac(secret, text).encode(), mac.encode()):
            raise InvalidKeyError(reason="bad_signature")
        # From here on the payload is trusted: it was produced by sign().
        try:
            email = payload[_HEADER.size + kid_len :].decode("utf-8")
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

    @staticmethod
    def _mac(secret: bytes, text: str) -> str:
        digest = hmac.new(secret, (KEY_PREFIX + text).encode("ascii"), hashlib.sha256).digest()
        return _b64encode(digest[:_MAC_BYTES])


@runtime_checkable
class RevocationStore(Protocol):
    """Persists "generations below ``before`` of lineage ``key_id`` are invalid".

    Thresholds only ever grow. Implementations must be safe to share between processes
    when they claim to persist (the compare-and-set in :meth:`revoke` is what stops a key
    from being regenerated twice by two processes).
    """

    async def revoke(self, key_id: str, *, before: int) -> bool:
        """Raise the threshold of ``key_id`` to ``before`` if it is lower.

        Returns:
            True if the threshold was raised by this call, False if it already was at least
            ``before`` (someone else revoked that generation first).

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def load_all(self) -> dict[str, int]:
        """Return every lineage's threshold (``key_id`` → ``before``); empty when none."""
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...


class MemoryRevocationStore:
    """Keeps revocations in this instance only: nothing survives a restart (tests, dev)."""

    def __init__(self) -> None:
        self._before: dict[str, int] = {}

    async def revoke(self, key_id: str, *, before: int) -> bool:
        """See :meth:`RevocationStore.revoke`."""
        if self._before.get(key_id, 0) >= before:
            return False
        self._before[key_id] = before
        return True

    async def load_all(self) -> dict[str, int]:
        """See :meth:`RevocationStore.load_all`."""
        return dict(self._before)

    async def aclose(self) -> None:
        """Nothing to release."""


class SqliteRevocationStore:
    """Keeps revocations in an SQLite file (WAL mode), shared by processes on one host.

    The connection is opened and the table created on first use; blocking calls run in
    worker threads.

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = os.fspath(path)
        self._conn: sqlite3.Connection | None = None
        # One connection shared by worker threads: sqlite3 objects need serialised access.
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SqliteRevocationStore({self._path!r})"

    async def revoke(self, key_id: str, *, before: int) -> bool:
        """See :meth:`RevocationStore.revoke`."""
        return await self._run(self._revoke, key_id, before)

    async def load_all(self) -> dict[str, int]:
        """See :meth:`RevocationStore.load_all`."""
        return await self._run(self._load_all)

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await anyio.to_thread.run_sync(self._close)

    async def _run(self, func: Callable[..., _T], *args: object) -> _T:
        try:
            return await anyio.to_thread.run_sync(self._locked, func, *args)
        except sqlite3.Error as exc:
            msg = "the key revocation store is unavailable"
            raise StorageUnavailableError(msg) from exc

    def _locked(self, func: Callable[..., _T], *args: object) -> _T:
        with self._lock:
            return func(self._connect(), *args)

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            # Autocommit: every statement below is atomic on its own.
            conn = sqlite3.connect(
                self._path, timeout=10, isolation_level=None, check_same_thread=False
            )
            try:
                enable_wal(conn, timeout=10)
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS key_revocations ("
                    " key_id TEXT PRIMARY KEY,"
                    " before INTEGER NOT NULL,"
                    " revoked_at INTEGER NOT NULL)"
                )
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    @staticmethod
    def _revoke(conn: sqlite3.Connection, key_id: str, before: int) -> bool:
        # A single upsert is the compare-and-set: it changes a row only if it raises the
        # threshold, so of two processes revoking the same generation exactly one wins.
        cursor = conn.execute(
            "INSERT INTO key_revocations (key_id, before, revoked_at) VALUES (?, ?, ?)"
            " ON CONFLICT (key_id) DO UPDATE"
            " SET before = excluded.before, revoked_at = excluded.revoked_at"
            " WHERE excluded.before > key_revocations.before",
            (key_id, before, int(time.time())),
        )
        return cursor.rowcount == 1

    @staticmethod
    def _load_all(conn: sqlite3.Connection) -> dict[str, int]:
        return dict(conn.execute("SELECT key_id, before FROM key_revocations").fetchall())

    def _close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class KeyService:
    """Issues, verifies and regenerates API keys.

    Use it as ``async with KeyService(...) as keys:`` or call :meth:`start` before the first
    :meth:`verify` and :meth:`aclose` at shutdown. The service owns ``revocations`` and
    closes it.

    Args:
        signer: signs new keys and checks signatures.
        revocations: where regenerations are recorded.
        clock: returns unix seconds; injectable for tests.
    """

    def __init__(
        self,
        signer: KeySigner,
        revocations: RevocationStore,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._signer = signer
        self._revocations = revocations
        self._clock = clock
        self._before: dict[str, int] = {}
        self._started = False
        self._lock = anyio.Lock()

    fingerprint = staticmethod(fingerprint)

    async def __aenter__(self) -> KeyService:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Load the revocation table into memory.

        Raises:
            StorageUnavailableError: the store could not be read.
        """
        await self.refresh()
        self._started = True

    async def refresh(self) -> None:
        """Merge revocations made by other processes sharing the store into the cache.

        Raises:
            StorageUnavailableError: the store could not be read.
        """
        for key_id, before in (await self._revocations.load_all()).items():
            self._raise_threshold(key_id, before)

    async def aclose(self) -> None:
        """Close the revocation store."""
        await self._revocations.aclose()

    async def issue(self, email: str, plan: str) -> IssuedKey:
        """Issue a key for a new lineage.

        Args:
            email: owner's e-mail address; normalised (see :func:`normalize_email`).
            plan: one of :data:`PLANS` (case-insensitive).

        Returns:
            The new key; show it once, it cannot be recovered.

        Raises:
            InvalidRequestError: for field ``email`` or ``plan``.
        """
        email = normalize_email(email)
        plan = _normalize_plan(plan)
        return self._issue(key_id=secrets.token_hex(16), plan=plan, email=email, generation=0)

    def verify(self, key: str) -> ApiKey:
        """Verify a key in memory: signature, known kid and not revoked.

        Args:
            key: the key string as received.

        Returns:
            The key's claims.

        Raises:
            InvalidKeyError: the key is not valid.
            RuntimeError: :meth:`start` was not awaited, so revocations are unknown.
        """
        if not self._started:
            msg = "KeyService.start() must be awaited before verify()"
            raise RuntimeError(msg)
        claims = self._signer.verify(key)
        if claims.generation < self._before.get(claims.key_id, 0):
            raise InvalidKeyError(reason="revoked")
        return claims

    async def regenerate(self, key: str) -> IssuedKey:
        """Replace a key: the old one stops verifying at once, the new one keeps its lineage.

        Args:
            key: the current key.

        Returns:
            A key for the same lineage, plan and e-mail with the next generation.

        Raises:
            InvalidKeyError: the old key is not valid, e.g. it was already regenerated.
            StorageUnavailableError: the revocation could not be recorded; the old key
                stays valid.
        """
        self.verify(key)
        async with self._lock:
            # Verify again under the lock: a concurrent regenerate may just have revoked it.
            old = self.verify(key)
            generation = old.generation + 1
            if generation > _MAX_GENERATION:
                raise InvalidKeyError(reason="revoked")
            if not await self._revocations.revoke(old.key_id, before=generation):
                # Another process sharing the store regenerated this key first.
                self._raise_threshold(old.key_id, generation)
                raise InvalidKeyError(reason="revoked")
            self._raise_threshold(old.key_id, generation)
        return self._issue(key_id=old.key_id, plan=old.plan, email=old.email, generation=generation)

    def _issue(self, *, key_id: str, plan: str, email: str, generation: int) -> IssuedKey:
        issued_at = int(self._clock())
        claims = ApiKey(
            key_id=key_id,
            plan=plan,
            email=email,
            generation=generation,
            issued_at=issued_at,
            kid=self._signer.current_kid,
        )
        return IssuedKey(
            key=self._signer.sign(claims),
            key_id=key_id,
            plan=plan,
            email=email,
            created=claims.issued,
            generation=generation,
        )

    def _raise_threshold(self, key_id: str, before: int) -> None:
        if before > self._before.get(key_id, 0):
            self._before[key_id] = before


def extract_key(headers: Mapping[str, str]) -> str | None:
    """Find the API key in request headers.

    ``Authorization: Bearer <key>`` and ``X-SVC-Key: <key>`` are accepted; header names
    and the ``Bearer`` scheme are case-insensitive. An ``Authorization`` header of any other
    form (empty included) is a credential we cannot accept, so it is refused rather than ignored:
    silently falling back to ``X-SVC-Key`` would hide a client sending the wrong credential.

    Args:
        headers: request headers (a plain mapping or a case-insensitive one).

    Returns:
        The key, or None when no key header is present or the key is empty.

    Raises:
        InvalidKeyError: two key headers carry different keys (reason
            ``conflicting_headers``).
    """
    found: set[str] = set()
    for name, value in headers.items():
        lowered = name.lower()
        if lowered == "authorization":
            scheme, _, token = value.strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                found.add(token.strip())
            else:
                raise InvalidKeyError(reason="malformed")
        elif lowered == "x-svc-key" and value.strip():
            found.add(value.strip())
    if len(found) > 1:
        raise InvalidKeyError(reason="conflicting_headers")
    return found.pop() if found else None
