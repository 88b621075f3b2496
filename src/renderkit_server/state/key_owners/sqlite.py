"""Key owners in an SQLite file, shared by the processes of one host."""

from __future__ import annotations

import os

from renderkit_server.state._sqlite import SqliteTextMap

__all__ = ["SqliteKeyOwnerStore"]


class SqliteKeyOwnerStore(SqliteTextMap):
    """Entries in an SQLite file (WAL mode), shared by the processes of one host; ``put``,
    ``get``, ``delete`` and ``aclose`` as :class:`KeyOwnerStore` says.

    Args:
        path: database file; its directory must exist.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(
            path,
            table="key_owners",
            key="key_id",
            value="email",
            unavailable="the key owner store is unavailable",
        )

    def __repr__(self) -> str:
        return f"SqliteKeyOwnerStore({self.path!r})"
