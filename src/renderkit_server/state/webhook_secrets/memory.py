"""Webhook secrets in this process only (tests, development)."""

from __future__ import annotations

from renderkit_server.state.webhook_secrets.base import WebhookSecretEntry

__all__ = ["MemoryWebhookSecretStore"]


class MemoryWebhookSecretStore:
    """Entries in this instance only (tests, dev)."""

    def __init__(self) -> None:
        self._entries: dict[str, WebhookSecretEntry] = {}

    async def get(self, lineage: str) -> WebhookSecretEntry | None:
        """See :meth:`WebhookSecretStore.get`."""
        return self._entries.get(lineage)

    async def create(self, lineage: str, entry: WebhookSecretEntry) -> WebhookSecretEntry:
        """See :meth:`WebhookSecretStore.create`."""
        return self._entries.setdefault(lineage, entry)

    async def replace(
        self, lineage: str, expected: WebhookSecretEntry, entry: WebhookSecretEntry
    ) -> bool:
        """See :meth:`WebhookSecretStore.replace`."""
        if self._entries.get(lineage) != expected:
            return False
        self._entries[lineage] = entry
        return True

    async def aclose(self) -> None:
        """Nothing to release."""
