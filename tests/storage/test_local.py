from __future__ import annotations

import datetime
import hashlib
import os
from pathlib import Path

import pytest

from renderkit.core.errors import (
    ConfigurationError,
    InvalidRequestError,
    ObjectNotFoundError,
    StorageUnavailableError,
)
from renderkit.storage import LocalStorage

pytestmark = pytest.mark.anyio

_HOUR = datetime.timedelta(hours=1)


def _md5(data: bytes) -> str:
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def _files_under(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*") if path.is_file()}


async def test_root_is_created_on_first_put(tmp_path: Path) -> None:
    root = tmp_path / "not" / "yet"
    storage = LocalStorage(root)
    assert not root.exists()

    await storage.put("a.png", b"png", content_type="image/png")

    assert (root / "a.png").read_bytes() == b"png"


async def test_put_leaves_only_the_object_and_its_sidecar(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)

    await storage.put("a/b.png", b"one", content_type="image/png")
    await storage.put("a/b.png", b"two", content_type="image/png")
    await storage.put("c.txt", b"three", content_type="text/plain")

    assert _files_under(tmp_path) == {
        "a/b.png",
        "a/b.png~meta.json",
        "c.txt",
        "c.txt~meta.json",
    }


async def test_delete_removes_the_object_and_its_sidecar(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    await storage.put("a/b.png", b"one", content_type="image/png")

    await storage.delete("a/b.png")

    assert _files_under(tmp_path) == set()


async def test_put_returns_created_at_equal_to_head(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)

    stored = await storage.put("a.png", b"png", content_type="image/png")

    assert (await storage.head("a.png")).created_at == stored.created_at


def test_path_for_returns_the_file_under_the_root(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)

    assert storage.path_for("a/b/c.png") == tmp_path.resolve() / "a" / "b" / "c.png"


@pytest.mark.parametrize("key", ["../x", "a/../../x", "/etc/passwd", "a/./b", "a\\..\\x"])
def test_path_for_rejects_traversal(tmp_path: Path, key: str) -> None:
    storage = LocalStorage(tmp_path / "root")

    with pytest.raises(InvalidRequestError) as exc_info:
        storage.path_for(key)

    assert exc_info.value.errors[0].field == "key"


def test_path_for_rejects_a_symlink_pointing_outside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (root / "link").symlink_to(tmp_path / "outside")
    storage = LocalStorage(root)

    with pytest.raises(InvalidRequestError) as exc_info:
        storage.path_for("link/secret.txt")

    assert exc_info.value.errors[0].field == "key"


async def test_get_through_a_symlink_pointing_outside_the_root_raises(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.txt").write_bytes(b"secret")
    (root / "secret.txt").symlink_to(tmp_path / "secret.txt")
    storage = LocalStorage(root)

    with pytest.raises(InvalidRequestError):
        await storage.get("secret.txt")


@pytest.mark.parametrize(
    "base", ["https://cdn.example.com/files", "https://cdn.example.com/files/"]
)
async def test_url_for_appends_the_key_to_the_public_base_url(tmp_path: Path, base: str) -> None:
    storage = LocalStorage(tmp_path, public_base_url=base)

    url = await storage.url_for("a/b.png", expires_in=_HOUR)

    assert url == "https://cdn.example.com/files/a/b.png"


async def test_url_for_without_public_base_url_returns_none(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)

    assert await storage.url_for("a/b.png", expires_in=_HOUR) is None


@pytest.mark.parametrize(
    "base", ["cdn.example.com", "ftp://cdn.example.com", "https://cdn.example.com/?sig=1"]
)
def test_invalid_public_base_url_raises_configuration_error(tmp_path: Path, base: str) -> None:
    with pytest.raises(ConfigurationError):
        LocalStorage(tmp_path, public_base_url=base)


async def test_put_below_an_existing_object_raises_invalid_request(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    await storage.put("a", b"object", content_type="text/plain")

    with pytest.raises(InvalidRequestError) as exc_info:
        await storage.put("a/b", b"child", content_type="text/plain")

    assert exc_info.value.errors[0].field == "key"
    assert await storage.get("a") == b"object"


async def test_put_over_an_existing_prefix_raises_invalid_request(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    await storage.put("a/b", b"child", content_type="text/plain")

    with pytest.raises(InvalidRequestError) as exc_info:
        await storage.put("a", b"object", content_type="text/plain")

    assert exc_info.value.errors[0].field == "key"
    assert _files_under(tmp_path) == {"a/b", "a/b~meta.json"}


async def test_get_below_an_existing_object_raises_object_not_found(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    await storage.put("a", b"object", content_type="text/plain")

    with pytest.raises(ObjectNotFoundError) as exc_info:
        await storage.get("a/b")

    assert exc_info.value.key == "a/b"


async def test_head_of_a_file_copied_in_without_sidecar_guesses_metadata(
    tmp_path: Path,
) -> None:
    (tmp_path / "logo.png").write_bytes(b"not really a png")
    storage = LocalStorage(tmp_path)

    head = await storage.head("logo.png")

    assert head.content_type == "image/png"
    assert head.size == len(b"not really a png")
    assert head.etag == _md5(b"not really a png")


async def test_head_recomputes_etag_when_the_sidecar_describes_another_version(
    tmp_path: Path,
) -> None:
    storage = LocalStorage(tmp_path)
    await storage.put("a.txt", b"first", content_type="text/plain")
    # Simulate an interleaved overwrite: new content, sidecar still from the old version.
    sidecar = (tmp_path / "a.txt~meta.json").read_bytes()
    await storage.put("a.txt", b"second version", content_type="text/plain")
    (tmp_path / "a.txt~meta.json").write_bytes(sidecar)

    head = await storage.head("a.txt")

    assert (head.size, head.etag) == (len(b"second version"), _md5(b"second version"))


async def test_root_that_is_a_file_raises_storage_unavailable_without_the_path(
    tmp_path: Path,
) -> None:
    root = tmp_path / "secret-location"
    root.write_bytes(b"")
    storage = LocalStorage(root)

    with pytest.raises(StorageUnavailableError) as exc_info:
        await storage.put("a/b.png", b"png", content_type="image/png")

    assert str(tmp_path) not in str(exc_info.value)


@pytest.mark.skipif(os.name != "posix", reason="umask is POSIX")
async def test_put_creates_files_readable_per_umask(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)

    await storage.put("a.png", b"png", content_type="image/png")

    current_umask = os.umask(0)
    os.umask(current_umask)
    assert (tmp_path / "a.png").stat().st_mode & 0o777 == 0o666 & ~current_umask
