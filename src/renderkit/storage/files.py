"""Storing produced files under fresh, unguessable keys, with their download URLs.

The capabilities (``attach_storage``) and the server (``store_file``) hand their results to a
:class:`~renderkit.storage.Storage` through these functions.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import attrs

from renderkit.storage._protocol import Storage

__all__ = ["DEFAULT_URL_TTL", "StoredFile", "attach_storage", "new_object_key", "store_file"]

#: How long a returned download URL stays valid unless a public base URL is configured.
DEFAULT_URL_TTL = timedelta(hours=24)


def new_object_key(kind: str, extension: str, *, now: datetime | None = None) -> str:
    """A storage key such as ``images/2026/11/22/5f0c...e1.png``.

    The random part (128 bits) makes keys unguessable, so a public bucket does not expose
    other users' files; the date prefix keeps listings and lifecycle rules manageable.
    """
    now = now or datetime.now(UTC)
    return f"{kind}/{now:%Y/%m/%d}/{secrets.token_hex(16)}.{extension}"


@attrs.frozen(kw_only=True)
class StoredFile:
    """Where a produced file was stored."""

    key: str
    url: str | None


async def store_file(
    storage: Storage,
    *,
    kind: str,
    extension: str,
    content: bytes,
    content_type: str,
    filename: str | None = None,
    url_ttl: timedelta = DEFAULT_URL_TTL,
) -> StoredFile:
    """Store ``content`` under a new key and return the key and a download URL (if any).

    ``filename``, the readable download name, is stored with the file (see
    :mod:`renderkit.core.filenames`).

    Raises:
        StorageError: the backend failed; nothing is left half-written.
    """
    key = new_object_key(kind, extension)
    stored = await storage.put(key, content, content_type=content_type, filename=filename)
    url = await storage.url_for(stored.key, expires_in=url_ttl)
    return StoredFile(key=stored.key, url=url)


R = TypeVar("R")


async def attach_storage(result: R, storage: Storage | None, *, kind: str) -> R:
    """Store a result's file (when ``storage`` is given) and return it with ``key``/``url``.

    ``result`` is a frozen attrs result with ``content``, ``format``, ``content_type``,
    ``filename``, ``key`` and ``url`` (and ``extension`` when it differs from ``format``).
    """
    if storage is None:
        return result
    file: Any = result
    stored = await store_file(
        storage,
        kind=kind,
        # Results whose file extension differs from their format name declare it.
        extension=getattr(file, "extension", file.format),
        content=file.content,
        content_type=file.content_type,
        filename=file.filename,
    )
    evolved: R = attrs.evolve(file, key=stored.key, url=stored.url)
    return evolved
