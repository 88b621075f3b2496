"""Storage unavailable or full: the render answers 503/507 in the envelope, nothing is charged,
no half-written file is visible, and the next request succeeds once storage is back.

Two ways to break storage: a wrapper raising the library's errors (runs everywhere), and a real
64 KiB tmpfs remounted read-only or filled up (needs root to mount; skipped otherwise).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient

from renderkit import StorageFullError, StorageUnavailableError
from renderkit.storage import LocalStorage
from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests.server.conftest import ADMIN, issue_key

from ._faulty_storage import FaultyLocalStorage

pytestmark = pytest.mark.anyio

IMAGE = {"template": "og-card", "data": {"title": "Faults"}, "format": "png"}


def _visible_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "health" not in p.parts)


def _temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if "~tmp-" in p.name]


@pytest.fixture
def storage_fault_settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        admin_token=ADMIN,
        allow_private_urls=True,
        secret="test-secret-that-is-long-enough",
    )


@contextlib.asynccontextmanager
async def _client(settings: Settings, storage: LocalStorage) -> AsyncIterator[AsyncTestClient]:
    app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer(), storage=storage)
    async with AsyncTestClient(app) as client:
        yield client


async def _render(client: AsyncTestClient, key: str) -> tuple[int, dict, int]:
    response = await client.post("/api/image", json=IMAGE, headers={"X-SVC-Key": key})
    remaining = int(response.headers.get("x-ratelimit-remaining", "-1"))
    return response.status_code, response.json(), remaining


@pytest.mark.parametrize(
    ("fault", "status", "code"),
    [
        (
            StorageUnavailableError("local storage failed: Read-only file system"),
            503,
            "STORAGE_ERROR",
        ),
        (StorageFullError("local storage failed: No space left on device"), 507, "STORAGE_FULL"),
    ],
)
async def test_a_storage_fault_is_reported_uncharged_and_the_next_request_succeeds(
    storage_fault_settings: Settings,
    tmp_path: Path,
    fault: Exception,
    status: int,
    code: str,
) -> None:
    storage = FaultyLocalStorage(tmp_path / "files")
    async with _client(storage_fault_settings, storage) as client:
        key = await issue_key(client)
        storage.fault = fault
        got, body, _ = await _render(client, key)
        assert (got, body["code"], body["status"]) == (status, code, status)
        assert "local storage failed" in body["error"]
        assert _visible_files(tmp_path / "files") == []
        storage.fault = None
        got, body, remaining = await _render(client, key)
        assert got == 200, body
        assert remaining == 4999  # only the successful render was charged


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs mounted for the test (root only), unmounted after it."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0 or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _remount(mount: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(mount)], check=True)


async def test_a_full_disk_is_507_uncharged_with_no_partial_file_then_recovers(
    storage_fault_settings: Settings, small_tmpfs: Path
) -> None:
    storage = LocalStorage(small_tmpfs / "files")
    async with _client(storage_fault_settings, storage) as client:
        key = await issue_key(client)
        filler = small_tmpfs / "filler"
        with contextlib.suppress(OSError), filler.open("wb") as file:
            file.write(b"\0" * 64 * 1024)  # until ENOSPC
        got, body, _ = await _render(client, key)
        assert (got, body["code"]) == (507, "STORAGE_FULL"), body
        assert [p for p in _visible_files(small_tmpfs / "files") if p.suffix == ".png"] == []
        assert _temp_files(small_tmpfs) == []
        filler.unlink()
        got, body, remaining = await _render(client, key)
        assert got == 200, body
        assert remaining == 4999


async def test_a_read_only_disk_is_503_uncharged_then_recovers(
    storage_fault_settings: Settings, small_tmpfs: Path
) -> None:
    storage = LocalStorage(small_tmpfs / "files")
    (small_tmpfs / "files").mkdir()
    async with _client(storage_fault_settings, storage) as client:
        key = await issue_key(client)
        _remount(small_tmpfs, "ro")
        try:
            got, body, _ = await _render(client, key)
            health = (await client.get("/api/health")).json()
        finally:
            _remount(small_tmpfs, "rw")
        assert (got, body["code"]) == (503, "STORAGE_ERROR"), body
        assert health["components"]["storage"] == "down"
        assert _visible_files(small_tmpfs / "files") == []
        got, body, remaining = await _render(client, key)
        assert got == 200, body
        assert remaining == 4999
