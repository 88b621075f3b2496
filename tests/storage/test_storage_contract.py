from __future__ import annotations

import datetime

import pytest

from renderkit.core.errors import ObjectNotFoundError
from renderkit.storage import LocalStorage, MemoryStorage, Storage
from renderkit.testing import StorageContract


class TestStorageContract(StorageContract):
    """Runs the shipped contract over the parametrized ``storage`` fixture (conftest.py)."""


def test_storage_instances_satisfy_the_runtime_checkable_protocol(tmp_path) -> None:
    assert isinstance(MemoryStorage(), Storage)
    assert isinstance(LocalStorage(tmp_path), Storage)


@pytest.mark.anyio
async def test_memory_url_for_returns_none() -> None:
    storage = MemoryStorage()
    await storage.put("a.png", b"png", content_type="image/png")

    assert await storage.url_for("a.png", expires_in=datetime.timedelta(minutes=5)) is None


@pytest.mark.anyio
async def test_memory_instances_share_no_objects() -> None:
    first, second = MemoryStorage(), MemoryStorage()

    await first.put("a.png", b"png", content_type="image/png")

    with pytest.raises(ObjectNotFoundError):
        await second.get("a.png")
