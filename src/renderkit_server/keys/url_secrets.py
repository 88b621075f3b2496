"""The directory of URL-signing secrets: public key id -> (secret, plan).

A signed image URL names its key by a public id (lineage and generation) and is signed
with a secret the key holder derives from the key
(:func:`renderkit.image.signed_url.url_secret`). The server cannot derive it without the
key, whose payload holds an e-mail address that must not go into URLs; so it records the
derived secret whenever it sees the key (issued, regenerated, or authenticating a request).
The key itself is never stored. Every replica must see every entry: SQLite shares them on
one host, Redis (``RENDERKIT_REDIS_URL``) across hosts.
"""

from __future__ import annotations

import base64
import logging
import os
import sqlite3
from typing import Protocol, TypeVar, runtime_checkable

import attrs
import redis.asyncio

from renderkit import RenderkitError
from renderkit.image.signed_url import public_key_id, url_secret
from renderkit_server._redis import redis_errors
from renderkit_server._sqlite import SqliteDatabase
from renderkit_server.keys.tokens import ApiKey

__all__ = [
    "MemoryUrlSecretStore",
    "RedisUrlSecretStore",
    "SqliteUrlSecretStore",
    "UrlSecret",
    "UrlSecretStore",
    "UrlSecrets",
]

logger = logging.getLogger("renderkit_server")

_T = TypeVar("_T")


@attrs.frozen(kw_only=True)
class UrlSecret:
    """What the server knows of a public key id.

    Attributes:
        secret: the URL-signing secret; kept out of ``repr``.
        plan: the key's plan, which meters renders by URL.
    """

    secret: bytes = attrs.field(repr=False)
    plan: str


@runtime_checkable
class UrlSecretStore(Protocol):
    """Persists public key id -> :class:`UrlSecret`; writing an id twice keeps the last."""

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """Record ``entry`` under ``public_id``.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def get(self, public_id: str) -> UrlSecret | None:
        """The entry of ``public_id``, None when unknown.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...


def _encode(entry: UrlSecret) -> str:
    return f"{entry.plan} {base64.b64encode(entry.secret).decode('ascii')}"


def _decode(value: str) -> UrlSecret:
    plan, _, secret = value.partition(" ")
    return UrlSecret(secret=base64.b64decode(secret), plan=plan)


class MemoryUrlSecretStore:
    """Entries in this instance only (tests, dev)."""

    def __init__(self) -> None:
        self._entries: dict[str, UrlSecret] = {}

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """See :meth:`UrlSecretStore.put`."""
        self._entries[public_id] = entry

    async def get(self, public_id: str) -> UrlSecret | None:
        """See :meth:`UrlSecretStore.get`."""
        return self._entries.get(public_id)

    async def aclose(self) -> None:
        """Nothing to release."""


class SqliteUrlSecretStore:
    """Entries in an SQLite file (WAL mode), shared by the processes of one host.

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._db = SqliteDatabase(
            path,
            schema=(
                "CREATE TABLE IF NOT EXISTS url_secrets ("
                " public_id TEXT PRIMARY KEY, entry TEXT NOT NULL)"
            ),
            unavailable="the URL-signing secret store is unavailable",
        )

    def __repr__(self) -> str:
        return f"SqliteUrlSecretStore({self._db.path!r})"

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """See :meth:`UrlSecretStore.put`."""
        await self._db.run(self._put, public_id, _encode(entry))

    async def get(self, public_id: str) -> UrlSecret | None:
        """See :meth:`UrlSecretStore.get`."""
        value = await self._db.run(self._get, public_id)
        return None if value is None else _decode(value)

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._db.aclose()

    @staticmethod
    def _put(conn: sqlite3.Connection, public_id: str, value: str) -> None:
        conn.execute(
            "INSERT INTO url_secrets (public_id, entry) VALUES (?, ?)"
            " ON CONFLICT (public_id) DO UPDATE SET entry = excluded.entry",
            (public_id, value),
        )

    @staticmethod
    def _get(conn: sqlite3.Connection, public_id: str) -> str | None:
        row = conn.execute(
            "SELECT entry FROM url_secrets WHERE public_id = ?", (public_id,)
        ).fetchone()
        return None if row is None else str(row[0])


class RedisUrlSecretStore:
    """Entries in one Redis hash (``<prefix>:url-secrets``), shared by every replica.

    Args:
        client: the Redis client; left open by :meth:`aclose` (its owner closes it).
        prefix: namespace of the hash.
    """

    def __init__(self, client: redis.asyncio.Redis, *, prefix: str = "renderkit:keys") -> None:
        self._client = client
        self._key = f"{prefix}:url-secrets"

    def __repr__(self) -> str:
        return f"RedisUrlSecretStore({self._key!r})"

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """See :meth:`UrlSecretStore.put`."""
        with redis_errors("URL-signing secret store"):
            await self._client.hset(self._key, public_id, _encode(entry))

    async def get(self, public_id: str) -> UrlSecret | None:
        """See :meth:`UrlSecretStore.get`."""
        with redis_errors("URL-signing secret store"):
            value = await self._client.hget(self._key, public_id)
        if value is None:
            return None
        return _decode(value.decode() if isinstance(value, bytes) else str(value))

    async def aclose(self) -> None:
        """The client belongs to its owner."""


class UrlSecrets:
    """Records each key's URL-signing secret once per process and looks ids up.

    Args:
        store: where entries are shared between replicas; owned and closed here.
    """

    def __init__(self, store: UrlSecretStore) -> None:
        self._store = store
        # Public ids written by this process: one write per key per process, not per request.
        self._written: set[str] = set()

    async def remember(self, key: str, claims: ApiKey) -> None:
        """Record the URL-signing secret of a verified ``key``; a store outage is logged
        and retried on the key's next request, never failing the request itself."""
        public_id = public_key_id(key)
        if public_id in self._written:
            return
        try:
            await self._store.put(public_id, UrlSecret(secret=url_secret(key), plan=claims.plan))
        except RenderkitError:
            logger.warning("could not record a URL-signing secret", exc_info=True)
            return
        self._written.add(public_id)

    async def lookup(self, public_id: str) -> UrlSecret | None:
        """The entry of ``public_id``, None when unknown.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        return await self._store.get(public_id)

    async def aclose(self) -> None:
        """Close the store."""
        await self._store.aclose()
