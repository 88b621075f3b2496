"""A storage backend keeping each object as a file under a root directory."""

from __future__ import annotations

import contextlib
import datetime
import errno
import hashlib
import json
import mimetypes
import os
import pathlib
import secrets
import stat
from collections.abc import Iterator
from typing import Any

import anyio.to_thread

from renderkit.core.errors import (
    InvalidRequestError,
    ObjectNotFoundError,
    StorageFullError,
    StorageUnavailableError,
)
from renderkit.storage._protocol import (
    StoredObject,
    _check_expires_in,
    _check_public_base_url,
    _key_error,
    _md5_hex,
    check_key,
)

__all__ = ["LocalStorage"]

# Keys cannot contain "~" (see check_key), so these names never collide with an object.
_META_SUFFIX = "~meta.json"
_TMP_MARK = "~tmp-"
# "No space left on device" and "disk quota exceeded": the store is full, not unreachable.
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
_DEFAULT_CONTENT_TYPE = "application/octet-stream"


class LocalStorage:
    """Stores each object as a file under ``root``, named by its key.

    ``renders/a.png`` lives at ``<root>/renders/a.png``; its content type and MD5 are kept in
    a JSON sidecar next to it, ``a.png~meta.json``. Because keys cannot contain ``~``, neither
    sidecars nor temporary files can be addressed as objects. Files are written to a
    temporary file in the same directory and moved into place with :func:`os.replace`, first
    the sidecar and then the content, so readers never see a partial file and an object
    exists exactly when its content file does. The sidecar records which file version it
    describes; :meth:`head` recomputes the MD5 when they disagree (a concurrent overwrite,
    or a file copied in by hand) and then guesses the content type from the key if there
    is no sidecar at all.

    Because keys are paths, one key cannot be both an object and a prefix of another:
    after ``a`` is stored, storing ``a/b`` fails, and the reverse. Deleting an object leaves
    its (possibly empty) directories in place.

    Blocking file I/O runs in worker threads through :func:`anyio.to_thread.run_sync`.

    Args:
        root: directory holding the objects; created on the first :meth:`put`.
        public_base_url: URL at which a web server publishes ``root``; when given,
            :meth:`url_for` returns ``public_base_url + key``.

    Raises:
        ConfigurationError: ``public_base_url`` is not an absolute http(s) URL.
    """

    def __init__(self, root: str | os.PathLike[str], *, public_base_url: str | None = None) -> None:
        self._root = pathlib.Path(root).resolve()
        self._public_base_url = (
            None if public_base_url is None else _check_public_base_url(public_base_url)
        )

    def __repr__(self) -> str:
        return f"LocalStorage(root={str(self._root)!r}, public_base_url={self._public_base_url!r})"

    @property
    def root(self) -> pathlib.Path:
        """The absolute, resolved root directory."""
        return self._root

    def path_for(self, key: str) -> pathlib.Path:
        """Return the path of the file holding ``key``, for serving it efficiently.

        The file may not exist; check with :meth:`head` first or handle
        :class:`FileNotFoundError`. Besides :func:`~renderkit.storage.check_key`, the
        resolved path must stay inside the root, which also rejects symlinks pointing out.

        Raises:
            InvalidRequestError: naming ``key`` when the key is invalid or escapes the root.
        """
        path = self._root / check_key(key)
        if not path.resolve().is_relative_to(self._root):
            msg = "must not resolve outside the storage root"
            raise _key_error(msg)
        return path

    async def put(
        self, key: str, data: bytes, *, content_type: str, filename: str | None = None
    ) -> StoredObject:
        """Write ``data`` to the file for ``key`` atomically, replacing any existing object.

        Raises:
            InvalidRequestError: the key is invalid, or it would make an object a prefix of
                another key or the reverse (``a`` and ``a/b``).
            StorageUnavailableError: the file could not be written (permissions, disk full,
                root is not a directory).
        """
        check_key(key)
        return await anyio.to_thread.run_sync(
            self._put_sync, key, bytes(data), content_type, filename
        )

    async def get(self, key: str) -> bytes:
        """Read the content of ``key``.

        Raises:
            InvalidRequestError: the key is invalid.
            ObjectNotFoundError: no file holds ``key`` (including when ``key`` is a directory).
            StorageUnavailableError: the file could not be read.
        """
        check_key(key)
        return await anyio.to_thread.run_sync(self._get_sync, key)

    async def head(self, key: str) -> StoredObject:
        """Return the metadata of ``key`` from its sidecar and the file's status.

        ``created_at`` is the file's modification time, which equals what :meth:`put`
        returned.

        Raises:
            InvalidRequestError: the key is invalid.
            ObjectNotFoundError: no file holds ``key``.
            StorageUnavailableError: the file could not be read.
        """
        check_key(key)
        return await anyio.to_thread.run_sync(self._head_sync, key)

    async def delete(self, key: str) -> None:
        """Remove the file for ``key`` and its sidecar; a missing key is a no-op.

        Raises:
            InvalidRequestError: the key is invalid.
            StorageUnavailableError: the file could not be removed.
        """
        check_key(key)
        await anyio.to_thread.run_sync(self._delete_sync, key)

    async def url_for(self, key: str, *, expires_in: datetime.timedelta) -> str | None:
        """Return ``public_base_url + key`` when configured, else ``None``.

        The public URL does not expire. Without one, the server signs its own URLs and
        streams the file from :meth:`path_for`.

        Raises:
            InvalidRequestError: the key is invalid or ``expires_in`` is not positive.
        """
        check_key(key)
        _check_expires_in(expires_in)
        if self._public_base_url is None:
            return None
        return self._public_base_url + key

    async def aclose(self) -> None:
        """Do nothing: no resources are held between calls."""

    def _put_sync(
        self, key: str, data: bytes, content_type: str, filename: str | None
    ) -> StoredObject:
        path = self.path_for(key)
        with _map_os_errors():
            self._make_parent(path)
            if path.is_dir():
                raise _prefix_conflict()
            data_tmp, st = _write_temp(path, data)
            try:
                etag = _md5_hex(data)
                meta = {
                    "content_type": content_type,
                    "etag": etag,
                    "size": st.st_size,
                    "mtime_ns": st.st_mtime_ns,
                    "ino": st.st_ino,
                    "filename": filename,
                }
                meta_path = _meta_path(path)
                meta_tmp, _ = _write_temp(meta_path, json.dumps(meta).encode())
                try:
                    os.replace(meta_tmp, meta_path)
                finally:
                    meta_tmp.unlink(missing_ok=True)
                os.replace(data_tmp, path)
            finally:
                data_tmp.unlink(missing_ok=True)
        return StoredObject(
            key=key,
            size=st.st_size,
            content_type=content_type,
            etag=etag,
            created_at=_utc_from_ns(st.st_mtime_ns),
            filename=filename,
        )

    def _make_parent(self, path: pathlib.Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            if not self._root.is_dir():
                msg = "local storage root is not a directory"
                raise StorageUnavailableError(msg) from exc
            raise _prefix_conflict() from exc

    def _get_sync(self, key: str) -> bytes:
        path = self.path_for(key)
        with _map_os_errors():
            try:
                return path.read_bytes()
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                raise _not_found(key) from None

    def _head_sync(self, key: str) -> StoredObject:
        path = self.path_for(key)
        with _map_os_errors():
            try:
                st = path.stat()
            except (FileNotFoundError, NotADirectoryError):
                raise _not_found(key) from None
            if not stat.S_ISREG(st.st_mode):
                raise _not_found(key)
            meta = _read_meta(_meta_path(path))
            describes_file = (
                meta is not None
                and meta.get("size") == st.st_size
                and meta.get("mtime_ns") == st.st_mtime_ns
                and meta.get("ino") == st.st_ino
                and isinstance(meta.get("etag"), str)
            )
            etag = meta["etag"] if meta is not None and describes_file else _md5_of_file(path)
            content_type = _content_type_from(meta) or _guess_content_type(key)
            # The name describes the object, not one version of its bytes: kept as recorded.
            filename = meta.get("filename") if meta is not None else None
        return StoredObject(
            key=key,
            size=st.st_size,
            content_type=content_type,
            etag=etag,
            created_at=_utc_from_ns(st.st_mtime_ns),
            filename=filename if isinstance(filename, str) else None,
        )

    def _delete_sync(self, key: str) -> None:
        path = self.path_for(key)
        with _map_os_errors():
            if path.is_dir():
                return
            # Content first: once it is gone the object is gone, whatever the sidecar says.
            for victim in (path, _meta_path(path)):
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    victim.unlink()


@contextlib.contextmanager
def _map_os_errors() -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        # str(exc) would include the file name, and messages must not reveal paths.
        msg = f"local storage failed: {exc.strerror or type(exc).__name__}"
        if exc.errno in _FULL:
            raise StorageFullError(msg) from exc
        raise StorageUnavailableError(msg) from exc


def _write_temp(target: pathlib.Path, data: bytes) -> tuple[pathlib.Path, os.stat_result]:
    tmp = target.with_name(f".{target.name}{_TMP_MARK}{secrets.token_hex(8)}")
    # os.open with 0o666 lets the umask decide permissions, unlike mkstemp's 0o600, so a web
    # server publishing the root can read the files.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
            st = os.fstat(file.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp, st


def _meta_path(path: pathlib.Path) -> pathlib.Path:
    return path.with_name(path.name + _META_SUFFIX)


def _read_meta(meta_path: pathlib.Path) -> dict[str, Any] | None:
    try:
        meta = json.loads(meta_path.read_bytes())
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def _content_type_from(meta: dict[str, Any] | None) -> str | None:
    content_type = None if meta is None else meta.get("content_type")
    return content_type if isinstance(content_type, str) else None


def _guess_content_type(key: str) -> str:
    return mimetypes.guess_type(key, strict=False)[0] or _DEFAULT_CONTENT_TYPE


def _md5_of_file(path: pathlib.Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, lambda: hashlib.md5(usedforsecurity=False)).hexdigest()


def _utc_from_ns(ns: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ns / 1e9, datetime.UTC)


def _not_found(key: str) -> ObjectNotFoundError:
    msg = "no object is stored under this key"
    return ObjectNotFoundError(msg, key=key)


def _prefix_conflict() -> InvalidRequestError:
    return _key_error(
        "conflicts with a stored object: a key cannot also be a prefix of another key"
    )
