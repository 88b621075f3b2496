"""Key owners in this process only (tests, development)."""

from __future__ import annotations

__all__ = ["MemoryKeyOwnerStore"]


class MemoryKeyOwnerStore:
    """Entries in this instance only (tests, dev): lost when the process ends."""

    def __init__(self) -> None:
        self._owners: dict[str, str] = {}

    async def put(self, key_id: str, email: str) -> None:
        """See :meth:`KeyOwnerStore.put`."""
        self._owners[key_id] = email

    async def get(self, key_id: str) -> str | None:
        """See :meth:`KeyOwnerStore.get`."""
        return self._owners.get(key_id)

    async def delete(self, key_id: str) -> None:
        """See :meth:`KeyOwnerStore.delete`."""
        self._owners.pop(key_id, None)

    async def aclose(self) -> None:
        """Nothing to release."""
