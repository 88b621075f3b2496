"""URL-signing secrets in this process only (tests, development)."""

from __future__ import annotations

from renderkit_server.state.url_secrets.base import UrlSecret

__all__ = ["MemoryUrlSecretStore"]


class MemoryUrlSecretStore:
    """Entries in this instance only (tests, dev)."""

    def __init__(self) -> None:
        self._entries: dict[str, UrlSecret] = {}

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """See :meth:`UrlSecretStore.put`."""
        self._entries[public_id] = entry

    async def get(self, public_id: str) -> UrlSecret | None:
        """See :meth:`UrlSecretStore.get`."""
        return self._entries.get(public_id)

    async def aclose(self) -> None:
        """Nothing to release."""
