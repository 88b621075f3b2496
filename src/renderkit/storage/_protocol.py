"""The storage protocol, the stored-object record and the shared key rules."""

from __future__ import annotations

import datetime
import hashlib
import re
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit

import attrs

from renderkit.core.errors import ConfigurationError, InvalidRequestError

__all__ = [
    "MAX_KEY_LENGTH",
    "MAX_SEGMENT_LENGTH",
    "Storage",
    "StoredObject",
    "check_key",
]

MAX_KEY_LENGTH = 512
# Filesystems cap a name at 255 bytes and the local backend adds a suffix for its sidecar and
# temporary files, so a longer segment would work on S3 but fail on disk.
MAX_SEGMENT_LENGTH = 200

_SEGMENT = re.compile(r"[A-Za-z0-9._-]+")


def check_key(key: object) -> str:
    """Validate a storage key and return it unchanged.

    A key is 1 to 512 characters of ``/``-separated segments. Each segment is 1 to 200
    characters from ``A-Z a-z 0-9 . _ -`` and is neither ``.`` nor ``..``. These rules make
    every key a safe relative path on disk and a URL path that needs no escaping.

    Args:
        key: the key to validate, e.g. ``renders/2024/abc.png``.

    Returns:
        The key itself.

    Raises:
        InvalidRequestError: naming the field ``key`` when the key breaks a rule.
    """
    if not isinstance(key, str):
        msg = "must be a string"
        raise _key_error(msg)
    if not key:
        msg = "must not be empty"
        raise _key_error(msg)
    if len(key) > MAX_KEY_LENGTH:
        msg = f"must be at most {MAX_KEY_LENGTH} characters"
        raise _key_error(msg)
    for segment in key.split("/"):
        if not segment:
            msg = "must not start or end with '/' nor contain '//'"
            raise _key_error(msg)
        if segment in {".", ".."}:
            msg = "must not contain '.' or '..' segments"
            raise _key_error(msg)
        if len(segment) > MAX_SEGMENT_LENGTH:
            msg = f"segments must be at most {MAX_SEGMENT_LENGTH} characters"
            raise _key_error(msg)
        if not _SEGMENT.fullmatch(segment):
            msg = "segments may only contain letters, digits, '.', '_' and '-'"
            raise _key_error(msg)
    return key


def _key_error(message: str) -> InvalidRequestError:
    return InvalidRequestError.single("key", message)


def _expires_in_error(message: str) -> InvalidRequestError:
    return InvalidRequestError.single("expires_in", message)


def _check_expires_in(expires_in: datetime.timedelta) -> None:
    if expires_in <= datetime.timedelta(0):
        msg = "must be positive"
        raise _expires_in_error(msg)


def _check_public_base_url(url: str) -> str:
    """Return ``url`` ending with exactly one ``/``, ready to have a key appended."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.netloc or parts.query or parts.fragment:
        msg = "public_base_url must be an absolute http(s) URL without query or fragment"
        raise ConfigurationError(msg)
    return url.rstrip("/") + "/"


def _md5_hex(data: bytes) -> str:
    # Not a security use: it matches the ETag S3 gives a single-part upload.
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


@attrs.frozen(kw_only=True)
class StoredObject:
    """What a backend knows about one stored object.

    Attributes:
        key: the object's key, as given by the caller (without any backend prefix).
        size: length of the content in bytes.
        content_type: the media type given when the object was stored.
        etag: lowercase hex MD5 of the content, unquoted.
        created_at: when this version of the object was stored, timezone-aware UTC.
        filename: the suggested download name given when the object was stored, if any.
    """

    key: str
    size: int
    content_type: str
    etag: str
    created_at: datetime.datetime
    filename: str | None = None


@runtime_checkable
class Storage(Protocol):
    """An asynchronous object store holding bytes under validated keys.

    Keys follow :func:`check_key`; every method raises
    :class:`~renderkit.InvalidRequestError` naming ``key`` for a bad key before any I/O.
    Failures of the backend itself raise
    :class:`~renderkit.StorageUnavailableError` (unreachable, refused, out of space) or
    :class:`~renderkit.StorageError`. Implementations must be safe to use from concurrent
    tasks of one event loop.

    The protocol is structural: a third-party backend does not need to import renderkit to
    satisfy it. ``renderkit.testing.StorageContract`` checks a backend's behaviour.
    """

    async def put(
        self, key: str, data: bytes, *, content_type: str, filename: str | None = None
    ) -> StoredObject:
        """Store ``data`` under ``key``, replacing any existing object.

        The write is atomic: a concurrent reader sees either the previous object or the new
        one in full, never a partial one.

        Args:
            key: where to store the object.
            data: the content; may be empty.
            content_type: media type returned by :meth:`head` and served with the object.
            filename: a readable download name (``invoice-INV-0042.pdf``) returned by
                :meth:`head` and served in ``Content-Disposition``; kept like the content
                type, beside the object.

        Returns:
            The metadata of the stored object.

        Raises:
            InvalidRequestError: the key is invalid, or (local backend) it would turn an
                existing object into a prefix or the reverse, e.g. ``a`` and ``a/b``.
            StorageUnavailableError: the backend cannot be reached or refused the write.
        """
        ...

    async def get(self, key: str) -> bytes:
        """Return the content stored under ``key``.

        Raises:
            InvalidRequestError: the key is invalid.
            ObjectNotFoundError: nothing is stored under ``key`` (``.key`` is set); a key that
                is only a prefix of other keys is missing too.
            StorageUnavailableError: the backend cannot be reached or refused the read.
        """
        ...

    async def head(self, key: str) -> StoredObject:
        """Return the metadata of the object under ``key`` without reading its content.

        Raises:
            InvalidRequestError: the key is invalid.
            ObjectNotFoundError: nothing is stored under ``key`` (``.key`` is set).
            StorageUnavailableError: the backend cannot be reached or refused the request.
        """
        ...

    async def delete(self, key: str) -> None:
        """Remove the object under ``key``; deleting a missing key is a no-op.

        Raises:
            InvalidRequestError: the key is invalid.
            StorageUnavailableError: the backend cannot be reached or refused the request.
        """
        ...

    async def url_for(self, key: str, *, expires_in: datetime.timedelta) -> str | None:
        """Return an ``http(s)`` URL a client can download the object from, if any.

        The object's existence is not checked. A public base URL, when a backend is
        configured with one, never expires and ``expires_in`` is then ignored. ``None``
        means the backend cannot give out URLs (memory, or local without a public base
        URL); the server then serves and signs the URL itself.

        Args:
            key: the object's key.
            expires_in: how long a signed URL stays valid; must be positive. S3 caps it at
                7 days.

        Raises:
            InvalidRequestError: the key is invalid or ``expires_in`` is out of range.
            StorageUnavailableError: a URL could not be signed (e.g. no credentials).
        """
        ...

    async def aclose(self) -> None:
        """Release network clients and other resources; calling it again is a no-op."""
        ...
