"""URL-signing secrets in an SQLite file, shared by the processes of one host."""

from __future__ import annotations

import os

from renderkit_server.state._sqlite import SqliteTextMap
from renderkit_server.state.url_secrets.base import UrlSecret, decode, encode

__all__ = ["SqliteUrlSecretStore"]


class SqliteUrlSecretStore:
    """Entries in an SQLite file (WAL mode), shared by the processes of one host.

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._map = SqliteTextMap(
            path,
            table="url_secrets",
            key="public_id",
            value="entry",
            unavailable="the URL-signing secret store is unavailable",
        )

    def __repr__(self) -> str:
        return f"SqliteUrlSecretStore({self._map.path!r})"

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """See :meth:`UrlSecretStore.put`."""
        await self._map.put(public_id, encode(entry))

    async def get(self, public_id: str) -> UrlSecret | None:
        """See :meth:`UrlSecretStore.get`."""
        value = await self._map.get(public_id)
        return None if value is None else decode(value)

    async def aclose(self) -> None:
        """Close the connection; a later call reopens it."""
        await self._map.aclose()
