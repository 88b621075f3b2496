"""The render cache: identical requests are answered with the file already stored.

A cache key hashes what decides the output: the operation, the normalised request (the
structured request unstructured by the one converter, keys sorted, so aliases, defaults
and key order do not matter), the template version (a hash of the shipped template files)
and the renderer version (renderkit's version plus Chromium's major version, or the speech
provider). The index maps a key to a :class:`CachedEntry`; the file itself stays in the
configured storage, so a hit whose file is gone is a miss.

The index is a :class:`RenderCache`: in memory (tests), SQLite in the data directory (the
default, shared by the processes of one host) or Redis (``rendercache_redis``, shared by
every replica).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json
import os
import sqlite3
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar, runtime_checkable

import attrs

import renderkit
from renderkit import StorageUnavailableError
from renderkit.core.converter import converter
from renderkit_server._sqlite import SqliteDatabase

__all__ = [
    "CachedEntry",
    "MemoryRenderCache",
    "RenderCache",
    "SqliteRenderCache",
    "cache_key",
    "template_version",
]

_T = TypeVar("_T")

#: Request fields that steer the cache rather than the output: never part of a key.
_CACHE_FIELDS = frozenset({"cache", "cache_ttl"})

_UNAVAILABLE = "the render cache is unavailable"


@attrs.frozen(kw_only=True)
class CachedEntry:
    """What a hit answers with: where the file is and the facts the response reports.

    Attributes:
        storage_key: the file's key in the configured storage.
        content_type: the file's media type.
        size: the file's size in bytes.
        facts: the response facts of the render (width, height, pages...).
        created: when the file was rendered (Unix seconds).
    """

    storage_key: str
    content_type: str
    size: int
    facts: Mapping[str, Any]
    created: float

    def to_json(self) -> str:
        """The entry as the JSON text the stores keep."""
        return json.dumps(attrs.asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> CachedEntry:
        """The entry :meth:`to_json` wrote."""
        data = json.loads(text)
        return cls(
            storage_key=str(data["storage_key"]),
            content_type=str(data["content_type"]),
            size=int(data["size"]),
            facts=dict(data["facts"]),
            created=float(data["created"]),
        )


@runtime_checkable
class RenderCache(Protocol):
    """The index of rendered files by cache key."""

    async def get(self, key: str) -> CachedEntry | None:
        """The live entry under ``key``, or None (never stored, or expired).

        Raises:
            StorageUnavailableError: the index could not be read.
        """
        ...

    async def put(self, key: str, entry: CachedEntry, ttl: int) -> None:
        """Store ``entry`` under ``key`` for ``ttl`` seconds, replacing any entry.

        Raises:
            StorageUnavailableError: the index could not be written.
        """
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...


@functools.cache
def template_version() -> str:
    """A hash of every shipped template file: editing a template invalidates the cache.

    Computed once per process; the files do not change while it runs.
    """
    digest = hashlib.sha256()
    for package in ("renderkit.image", "renderkit.pdf"):
        root = importlib.resources.files(package) / "templates"
        stack = [root]
        files = []
        while stack:
            for child in stack.pop().iterdir():
                if child.is_dir():
                    stack.append(child)
                elif child.is_file():
                    files.append(child)
        for child in sorted(files, key=lambda f: str(f)):
            digest.update(f"{package}{str(child).removeprefix(str(root))}".encode())
            digest.update(child.read_bytes())
    return digest.hexdigest()[:16]


def cache_key(operation: str, request: object, *, renderer: str) -> str:
    """The sha256 naming the output of ``request`` rendered by ``operation``.

    Args:
        operation: the operation's name (``image``, ``pdf-gen``...).
        request: the structured request model.
        renderer: the renderer version (see :func:`renderkit_server.operations`).
    """
    normalised = {
        name: value
        for name, value in converter.unstructure(request).items()
        if name not in _CACHE_FIELDS
    }
    material = {
        "operation": operation,
        "request": normalised,
        "templates": template_version(),
        "renderer": renderer,
        "renderkit": renderkit.__version__,
    }
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


class MemoryRenderCache:
    """Keeps entries in this instance only (tests, development).

    Args:
        clock: Unix seconds; injectable so tests can expire entries.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._entries: dict[str, tuple[float, CachedEntry]] = {}

    async def get(self, key: str) -> CachedEntry | None:
        """See :meth:`RenderCache.get`."""
        found = self._entries.get(key)
        if found is None or found[0] <= self._clock():
            return None
        return found[1]

    async def put(self, key: str, entry: CachedEntry, ttl: int) -> None:
        """See :meth:`RenderCache.put`."""
        now = self._clock()
        # Drop expired entries as new ones come, so the dictionary does not grow for ever.
        for stale in [k for k, (expires, _) in self._entries.items() if expires <= now]:
            del self._entries[stale]
        self._entries[key] = (now + ttl, entry)

    async def aclose(self) -> None:
        """Nothing to release."""


class SqliteRenderCache:
    """Keeps entries in an SQLite file (WAL mode), shared by the processes of one host.

    Expired rows are deleted as new entries are written, in worker threads. Lookups run on
    the event loop through a connection of their own: an indexed read in WAL mode never
    waits for a writer, and a hit should not pay for a thread hop (it is the fast path).

    Args:
        path: database file; its directory must exist.
        clock: Unix seconds.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, clock: Callable[[], float] = time.time
    ) -> None:
        self._db = SqliteDatabase(
            path,
            schema=(
                "CREATE TABLE IF NOT EXISTS render_cache ("
                " key TEXT PRIMARY KEY,"
                " entry TEXT NOT NULL,"
                " expires REAL NOT NULL)"
            ),
            unavailable=_UNAVAILABLE,
        )
        self._clock = clock
        self._reader: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"SqliteRenderCache({self._db.path!r})"

    async def get(self, key: str) -> CachedEntry | None:
        """See :meth:`RenderCache.get`."""
        try:
            if self._reader is None:
                await self._db.run(lambda conn: None)  # creates the file, table and WAL mode
                self._reader = sqlite3.connect(
                    self._db.path, timeout=1, isolation_level=None, check_same_thread=False
                )
            text = self._get(self._reader, key, self._clock())
        except sqlite3.Error as exc:
            raise StorageUnavailableError(_UNAVAILABLE) from exc
        return None if text is None else CachedEntry.from_json(text)

    async def put(self, key: str, entry: CachedEntry, ttl: int) -> None:
        """See :meth:`RenderCache.put`."""
        now = self._clock()
        await self._db.run(self._put, key, entry.to_json(), now, now + ttl)

    async def aclose(self) -> None:
        """Close the connections; a later call reopens them."""
        await self._db.aclose()
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    @staticmethod
    def _get(conn: sqlite3.Connection, key: str, now: float) -> str | None:
        row = conn.execute(
            "SELECT entry FROM render_cache WHERE key = ? AND expires > ?", (key, now)
        ).fetchone()
        return None if row is None else str(row[0])

    @staticmethod
    def _put(conn: sqlite3.Connection, key: str, entry: str, now: float, expires: float) -> None:
        conn.execute("DELETE FROM render_cache WHERE expires <= ?", (now,))
        conn.execute(
            "INSERT OR REPLACE INTO render_cache (key, entry, expires) VALUES (?, ?, ?)",
            (key, entry, expires),
        )
