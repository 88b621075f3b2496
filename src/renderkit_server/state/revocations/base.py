"""Key revocations: "generations below N of lineage L are invalid".

:class:`~renderkit_server.keys.KeyService` loads every threshold into memory at start and
verifies keys without touching the store; the store only has to persist thresholds and
raise them atomically. Backends: :mod:`.memory` (one process), :mod:`.sqlite` (one host),
:mod:`.redis` (every replica, with a feed announcing each revocation).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NoReturn, Protocol, runtime_checkable

__all__ = ["RevocationFeed", "RevocationStore"]


@runtime_checkable
class RevocationStore(Protocol):
    """Persists "generations below ``before`` of lineage ``key_id`` are invalid".

    Thresholds only ever grow. Implementations must be safe to share between processes
    when they claim to persist (the compare-and-set in :meth:`revoke` is what stops a key
    from being regenerated twice by two processes).
    """

    async def revoke(self, key_id: str, *, before: int) -> bool:
        """Raise the threshold of ``key_id`` to ``before`` if it is lower.

        Returns:
            True if the threshold was raised by this call, False if it already was at least
            ``before`` (someone else revoked that generation first).

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def load_all(self) -> dict[str, int]:
        """Return every lineage's threshold (``key_id`` → ``before``); empty when none."""
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...


@runtime_checkable
class RevocationFeed(Protocol):
    """A store that also pushes revocations made by other processes as they happen."""

    async def follow(
        self,
        on_revoked: Callable[[str, int], None],
        on_connected: Callable[[], Awaitable[None]],
    ) -> NoReturn:
        """Call ``on_revoked(key_id, before)`` for every revocation, until cancelled.

        ``on_connected`` is awaited each time the feed is (re)connected, after which no
        revocation is missed: the caller reloads everything there, to pick up what was
        revoked while the feed was down. Connection failures are retried, never raised.
        """
        ...
