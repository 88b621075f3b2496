"""An abstract test suite every storage backend can inherit."""

from __future__ import annotations

import asyncio
import datetime
import hashlib
from collections.abc import Awaitable, Callable

import pytest

from renderkit.core.errors import InvalidRequestError, ObjectNotFoundError
from renderkit.storage import Storage

__all__ = ["StorageContract"]

_ALL_BYTES = bytes(range(256))
_HOUR = datetime.timedelta(hours=1)

_INVALID_KEYS = {
    "parent": "../x",
    "parent-inside": "a/../../x",
    "absolute": "/abs",
    "empty-segment": "a//b",
    "trailing-slash": "a/",
    "empty": "",
    "dot-segment": "a/./b",
    "dot": ".",
    "space": "a b",
    "backslash": "a\\b",
    "tilde": "a~meta.json",
    "too-long": "a" * 600,
    "segment-too-long": "a" * 201,
}

_Operation = Callable[[Storage, str], Awaitable[object]]
_OPERATIONS: dict[str, _Operation] = {
    "put": lambda storage, key: storage.put(key, b"x", content_type="text/plain"),
    "get": lambda storage, key: storage.get(key),
    "head": lambda storage, key: storage.head(key),
    "delete": lambda storage, key: storage.delete(key),
    "url_for": lambda storage, key: storage.url_for(key, expires_in=_HOUR),
}


def _md5(data: bytes) -> str:
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


class StorageContract:
    """Behaviour every :class:`~renderkit.storage.Storage` must have.

    Inherit it in a class whose name starts with ``Test`` and provide a ``storage`` fixture
    yielding a fresh, empty backend (closing it afterwards); the tests are async and run
    with the anyio pytest plugin, so the suite also needs an ``anyio_backend`` fixture when
    the backend supports only one event loop::

        import pytest
        from renderkit.testing import StorageContract


        @pytest.fixture
        async def storage(tmp_path):
            backend = MyStorage(tmp_path)
            yield backend
            await backend.aclose()


        class TestMyStorage(StorageContract):
            pass

    Content is compared byte for byte; ``etag`` must be the hex MD5 of the content.
    """

    pytestmark = pytest.mark.anyio

    async def test_put_then_get_round_trips_every_byte_value(self, storage: Storage) -> None:
        await storage.put("bytes.bin", _ALL_BYTES, content_type="application/octet-stream")

        assert await storage.get("bytes.bin") == _ALL_BYTES

    async def test_put_returns_metadata_of_the_stored_object(self, storage: Storage) -> None:
        stored = await storage.put("doc.png", _ALL_BYTES, content_type="image/png")

        assert stored.key == "doc.png"
        assert stored.size == len(_ALL_BYTES)
        assert stored.content_type == "image/png"
        assert stored.etag == _md5(_ALL_BYTES)
        assert stored.created_at.utcoffset() == datetime.timedelta(0)

    async def test_head_returns_metadata_without_the_content(self, storage: Storage) -> None:
        before = datetime.datetime.now(datetime.UTC)
        await storage.put("doc.pdf", b"%PDF-1.7", content_type="application/pdf")

        head = await storage.head("doc.pdf")

        assert head.key == "doc.pdf"
        assert head.size == len(b"%PDF-1.7")
        assert head.content_type == "application/pdf"
        assert head.etag == _md5(b"%PDF-1.7")
        assert head.created_at.utcoffset() == datetime.timedelta(0)
        # Some services keep whole seconds only.
        assert head.created_at >= before.replace(microsecond=0) - datetime.timedelta(seconds=1)

    async def test_the_suggested_filename_is_kept_with_the_object(self, storage: Storage) -> None:
        name = "invoice-Zoë-日本.pdf"
        stored = await storage.put("n.pdf", b"%PDF", content_type="application/pdf", filename=name)
        await storage.put("unnamed.pdf", b"%PDF", content_type="application/pdf")

        assert stored.filename == name
        assert (await storage.head("n.pdf")).filename == name
        assert (await storage.head("unnamed.pdf")).filename is None

    async def test_put_of_existing_key_replaces_content_and_metadata(
        self, storage: Storage
    ) -> None:
        await storage.put("k.txt", b"first version", content_type="text/plain")

        await storage.put("k.txt", b"second", content_type="text/html")

        assert await storage.get("k.txt") == b"second"
        head = await storage.head("k.txt")
        assert (head.size, head.content_type, head.etag) == (6, "text/html", _md5(b"second"))

    async def test_empty_object_round_trips(self, storage: Storage) -> None:
        stored = await storage.put("empty", b"", content_type="text/plain")

        assert await storage.get("empty") == b""
        assert stored.size == 0
        assert (await storage.head("empty")).etag == _md5(b"")

    async def test_get_of_missing_key_raises_object_not_found(self, storage: Storage) -> None:
        with pytest.raises(ObjectNotFoundError) as exc_info:
            await storage.get("missing.png")

        assert exc_info.value.key == "missing.png"

    async def test_head_of_missing_key_raises_object_not_found(self, storage: Storage) -> None:
        with pytest.raises(ObjectNotFoundError) as exc_info:
            await storage.head("missing/deeper.png")

        assert exc_info.value.key == "missing/deeper.png"

    async def test_get_after_delete_raises_object_not_found(self, storage: Storage) -> None:
        await storage.put("gone.txt", b"x", content_type="text/plain")

        await storage.delete("gone.txt")

        with pytest.raises(ObjectNotFoundError):
            await storage.get("gone.txt")
        with pytest.raises(ObjectNotFoundError):
            await storage.head("gone.txt")

    async def test_delete_is_idempotent(self, storage: Storage) -> None:
        await storage.put("twice.txt", b"x", content_type="text/plain")

        await storage.delete("twice.txt")
        await storage.delete("twice.txt")
        await storage.delete("never/existed.txt")

    async def test_delete_leaves_other_keys_alone(self, storage: Storage) -> None:
        await storage.put("keep.txt", b"keep", content_type="text/plain")
        await storage.put("drop.txt", b"drop", content_type="text/plain")

        await storage.delete("drop.txt")

        assert await storage.get("keep.txt") == b"keep"

    async def test_nested_keys_are_independent_objects(self, storage: Storage) -> None:
        await storage.put("a/b/c.png", b"c", content_type="image/png")
        await storage.put("a/b/d.png", b"d", content_type="image/png")
        await storage.put("a/e.png", b"e", content_type="image/png")

        assert await storage.get("a/b/c.png") == b"c"
        assert await storage.get("a/b/d.png") == b"d"
        assert await storage.get("a/e.png") == b"e"
        assert (await storage.head("a/b/c.png")).key == "a/b/c.png"

    async def test_prefix_of_stored_keys_is_not_an_object(self, storage: Storage) -> None:
        await storage.put("a/b/c.png", b"c", content_type="image/png")

        with pytest.raises(ObjectNotFoundError) as exc_info:
            await storage.get("a/b")

        assert exc_info.value.key == "a/b"

    @pytest.mark.parametrize("operation", list(_OPERATIONS))
    @pytest.mark.parametrize("key", list(_INVALID_KEYS.values()), ids=list(_INVALID_KEYS))
    async def test_invalid_key_raises_invalid_request_naming_key(
        self, storage: Storage, key: str, operation: str
    ) -> None:
        with pytest.raises(InvalidRequestError) as exc_info:
            await _OPERATIONS[operation](storage, key)

        assert [error.field for error in exc_info.value.errors] == ["key"]

    async def test_longest_valid_key_round_trips(self, storage: Storage) -> None:
        # Two segments of the maximum 200 characters, then a 110-character file name.
        key = "/".join(["k" * 200, "k" * 200, "k" * 106 + ".bin"])
        assert len(key) == 512

        await storage.put(key, b"long", content_type="application/octet-stream")

        assert await storage.get(key) == b"long"

    async def test_one_mebibyte_object_round_trips(self, storage: Storage) -> None:
        data = _ALL_BYTES * 4096

        stored = await storage.put("big.bin", data, content_type="application/octet-stream")

        assert stored.size == 1024 * 1024
        assert await storage.get("big.bin") == data
        assert (await storage.head("big.bin")).etag == _md5(data)

    async def test_concurrent_puts_of_different_keys_are_all_readable(
        self, storage: Storage
    ) -> None:
        contents = {f"batch/{i:02d}.bin": f"object {i}".encode() * 100 for i in range(20)}

        await asyncio.gather(
            *(
                storage.put(key, data, content_type="application/octet-stream")
                for key, data in contents.items()
            )
        )

        for key, data in contents.items():
            assert await storage.get(key) == data

    async def test_url_for_returns_none_or_an_http_url(self, storage: Storage) -> None:
        await storage.put("shared.png", b"png", content_type="image/png")

        url = await storage.url_for("shared.png", expires_in=_HOUR)

        assert url is None or url.startswith(("http://", "https://"))

    @pytest.mark.parametrize("seconds", [0, -1])
    async def test_url_for_with_non_positive_expiry_raises_invalid_request(
        self, storage: Storage, seconds: int
    ) -> None:
        with pytest.raises(InvalidRequestError) as exc_info:
            await storage.url_for("shared.png", expires_in=datetime.timedelta(seconds=seconds))

        assert [error.field for error in exc_info.value.errors] == ["expires_in"]

    async def test_aclose_can_be_called_twice(self, storage: Storage) -> None:
        await storage.aclose()
        await storage.aclose()
