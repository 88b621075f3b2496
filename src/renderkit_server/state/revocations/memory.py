"""Key revocations in this process only (tests, development)."""

from __future__ import annotations

__all__ = ["MemoryRevocationStore"]


class MemoryRevocationStore:
    """Keeps revocations in this instance only: nothing survives a restart (tests, dev)."""

    def __init__(self) -> None:
        self._before: dict[str, int] = {}

    async def revoke(self, key_id: str, *, before: int) -> bool:
        """See :meth:`RevocationStore.revoke`."""
        if self._before.get(key_id, 0) >= before:
            return False
        self._before[key_id] = before
        return True

    async def load_all(self) -> dict[str, int]:
        """See :meth:`RevocationStore.load_all`."""
        return dict(self._before)

    async def aclose(self) -> None:
        """Nothing to release."""
