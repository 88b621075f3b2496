"""A storage whose writes can be made to fail or hang, for fault-injection tests."""

from __future__ import annotations

import asyncio

from renderkit.storage import LocalStorage, StoredObject


class FaultyLocalStorage(LocalStorage):
    """A real :class:`LocalStorage` whose ``put`` raises ``fault`` or hangs while set."""

    fault: BaseException | None = None
    hang: bool = False
    puts: int = 0

    async def put(
        self, key: str, data: bytes, *, content_type: str, filename: str | None = None
    ) -> StoredObject:
        self.puts += 1
        if self.hang:
            await asyncio.Event().wait()
        if self.fault is not None:
            raise self.fault
        return await super().put(key, data, content_type=content_type, filename=filename)
