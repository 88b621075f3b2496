"""Key owners: key lineage id -> the owner's e-mail address, kept on the server only.

Keys carry no e-mail address (:mod:`renderkit_server.keys.tokens`, payload version 2), yet
regeneration e-mails the new key to its owner and limits key e-mails per mailbox; this is
where the address is looked up. It is the only place the server keeps an address (the
abuse-limit counters hold keyed hashes of mailboxes), so deleting a lineage's entry here
erases it: its keys keep working, a regeneration then sends no e-mail.

Every replica must see every entry: :mod:`.sqlite` shares them on one host, :mod:`.redis`
across hosts; :mod:`.memory` keeps them in one process. Writing a lineage twice keeps the
last address. What is recorded and when is :class:`renderkit_server.keys.KeyService`'s job.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["KeyOwnerStore"]


@runtime_checkable
class KeyOwnerStore(Protocol):
    """Persists key lineage id -> owner e-mail; writing a lineage twice keeps the last."""

    async def put(self, key_id: str, email: str) -> None:
        """Record ``email`` as the owner of lineage ``key_id``.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def get(self, key_id: str) -> str | None:
        """The owner's address of ``key_id``, None when none is recorded (never issued
        here, deleted, or lost with a store that does not persist).

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def delete(self, key_id: str) -> None:
        """Forget the owner of ``key_id``; deleting an unknown lineage is a no-op.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...
