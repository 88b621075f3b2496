"""What the memory store adds to the contract: ended burst windows are forgotten."""

from __future__ import annotations

import pytest

from renderkit_server.state.usage import MemoryUsageStore
from tests.server.state._usage import WINDOW

pytestmark = pytest.mark.anyio


async def test_memory_store_forgets_ended_burst_windows() -> None:
    store = MemoryUsageStore()
    for offset in range(0, 600, 60):
        await store.hit("key-1", WINDOW + offset, 60, 10)

    assert list(store._windows) == [("key-1", WINDOW + 540, 60)]
