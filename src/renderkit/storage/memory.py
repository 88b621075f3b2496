"""A dict-backed storage backend for tests and single-process use."""

from __future__ import annotations

import datetime

from renderkit.core.errors import ObjectNotFoundError
from renderkit.storage._protocol import StoredObject, _check_expires_in, _md5_hex, check_key

__all__ = ["MemoryStorage"]


class MemoryStorage:
    """Keeps objects in a dict owned by the instance.

    Each instance starts empty and shares nothing with other instances, so it doubles as the
    test fake for code that takes a :class:`~renderkit.storage.Storage`. Content lives only
    as long as the instance; :meth:`aclose` keeps it.
    """

    def __init__(self) -> None:
        self._objects: dict[str, tuple[StoredObject, bytes]] = {}

    def __repr__(self) -> str:
        return f"MemoryStorage(<{len(self._objects)} objects>)"

    async def put(
        self, key: str, data: bytes, *, content_type: str, filename: str | None = None
    ) -> StoredObject:
        """Store a copy of ``data`` under ``key``, replacing any existing object.

        Raises:
            InvalidRequestError: the key is invalid.
        """
        check_key(key)
        content = bytes(data)
        stored = StoredObject(
            key=key,
            size=len(content),
            content_type=content_type,
            etag=_md5_hex(content),
            created_at=datetime.datetime.now(datetime.UTC),
            filename=filename,
        )
        self._objects[key] = (stored, content)
        return stored

    async def get(self, key: str) -> bytes:
        """Return the content under ``key``.

        Raises:
            InvalidRequestError: the key is invalid.
            ObjectNotFoundError: nothing is stored under ``key``.
        """
        return self._lookup(key)[1]

    async def head(self, key: str) -> StoredObject:
        """Return the metadata of the object under ``key``.

        Raises:
            InvalidRequestError: the key is invalid.
            ObjectNotFoundError: nothing is stored under ``key``.
        """
        return self._lookup(key)[0]

    async def delete(self, key: str) -> None:
        """Remove the object under ``key``; a missing key is a no-op.

        Raises:
            InvalidRequestError: the key is invalid.
        """
        self._objects.pop(check_key(key), None)

    async def url_for(self, key: str, *, expires_in: datetime.timedelta) -> str | None:
        """Return ``None``: objects in memory have no URL of their own.

        Raises:
            InvalidRequestError: the key is invalid or ``expires_in`` is not positive.
        """
        check_key(key)
        _check_expires_in(expires_in)
        return None

    async def aclose(self) -> None:
        """Do nothing; the objects stay readable."""

    def _lookup(self, key: str) -> tuple[StoredObject, bytes]:
        try:
            return self._objects[check_key(key)]
        except KeyError:
            msg = "no object is stored under this key"
            raise ObjectNotFoundError(msg, key=key) from None
