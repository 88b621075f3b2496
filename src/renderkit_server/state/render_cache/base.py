"""The render cache's index: cache key -> :class:`CachedEntry` (where the file is).

The file itself stays in the configured storage, so a hit whose file is gone is a miss.
Backends: :mod:`.memory` (tests), :mod:`.sqlite` (the default, shared by the processes of
one host), :mod:`.redis` (shared by every replica). How keys are made is :mod:`.keys`; how
an operation uses the cache is :mod:`.lookup`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import attrs

__all__ = ["UNAVAILABLE", "CachedEntry", "RenderCache"]

#: The message of the error a failing index raises.
UNAVAILABLE = "the render cache is unavailable"


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
