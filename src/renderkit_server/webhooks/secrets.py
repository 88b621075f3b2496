"""Each key lineage's webhook secret: created on first fetch, rotated with a grace period.

A secret belongs to the key *lineage* (a key and all its regenerations), so regenerating an
API key does not break a receiver. Rotating makes a new secret current at once and keeps
the previous one signing beside it for ``grace``: every delivery then carries both
signatures, and a receiver switches to the new secret at its own pace. A second rotation
ends the grace of the first (only one previous secret is kept).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from renderkit_server.state.webhook_secrets import WebhookSecretEntry, WebhookSecretStore
from renderkit_server.webhooks.signing import new_secret

__all__ = ["WebhookSecrets"]


def _utcnow() -> datetime:
    return datetime.now(UTC)


class WebhookSecrets:
    """Fetches, rotates and signs with each lineage's secrets.

    Args:
        store: where secrets are shared between replicas; its owner (the app's shared
            state) closes it.
        grace: how long a replaced secret keeps signing after a rotation.
        clock: the current time (aware UTC).
    """

    def __init__(
        self,
        store: WebhookSecretStore,
        *,
        grace: timedelta,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self._store = store
        self.grace = grace
        self._clock = clock

    async def fetch(self, lineage: str) -> WebhookSecretEntry:
        """The lineage's secrets, a new one created on first use.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        entry = await self._store.get(lineage)
        if entry is not None:
            return entry
        fresh = WebhookSecretEntry(current=new_secret(), created=self._clock())
        return await self._store.create(lineage, fresh)

    async def rotate(self, lineage: str) -> WebhookSecretEntry:
        """Make a new secret current, the old one valid for :attr:`grace` more.

        Two rotations racing each other make one: the later caller gets the winner's
        entry, so the secret receivers hold now stays valid through the grace.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        old = await self.fetch(lineage)
        new = WebhookSecretEntry(current=new_secret(), created=self._clock(), previous=old.current)
        if await self._store.replace(lineage, old, new):
            return new
        winner = await self._store.get(lineage)
        assert winner is not None  # entries are never deleted
        return winner

    def previous_valid_until(self, entry: WebhookSecretEntry) -> datetime | None:
        """When ``entry``'s previous secret stops signing; None without one."""
        return None if entry.previous is None else entry.created + self.grace

    async def signing_keys(self, lineage: str) -> tuple[bytes, ...]:
        """The secrets a delivery is signed with now: the current one, and the previous one
        while its grace runs.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        entry = await self.fetch(lineage)
        until = self.previous_valid_until(entry)
        if entry.previous is not None and until is not None and self._clock() < until:
            return (entry.current, entry.previous)
        return (entry.current,)
