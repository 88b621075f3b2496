"""Webhook signing secrets: key lineage -> the current secret and, after a rotation, the
previous one with the moment it was replaced.

Every replica signs with the same secrets: :mod:`.sqlite` shares them on one host,
:mod:`.redis` across hosts; :mod:`.memory` keeps them in one process. Creating is
first-writer-wins and rotating is compare-and-set, so two replicas answering the key holder
at once agree on one secret. What the secrets are and how long a previous one stays valid
is :class:`renderkit_server.webhooks.WebhookSecrets`'s job.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

import attrs

__all__ = ["WebhookSecretEntry", "WebhookSecretStore", "decode", "encode"]


@attrs.frozen(kw_only=True)
class WebhookSecretEntry:
    """A lineage's webhook secrets.

    Attributes:
        current: the secret deliveries are signed with; kept out of ``repr``.
        created: when ``current`` became current (aware UTC).
        previous: the secret ``current`` replaced, None before the first rotation; kept out
            of ``repr``.
    """

    current: bytes = attrs.field(repr=False)
    created: datetime
    previous: bytes | None = attrs.field(default=None, repr=False)


@runtime_checkable
class WebhookSecretStore(Protocol):
    """Persists key lineage -> :class:`WebhookSecretEntry`."""

    async def get(self, lineage: str) -> WebhookSecretEntry | None:
        """The entry of ``lineage``, None when it has none.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def create(self, lineage: str, entry: WebhookSecretEntry) -> WebhookSecretEntry:
        """Record ``entry`` unless ``lineage`` has one already; return the one recorded
        (``entry``, or the earlier one: the first writer wins).

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def replace(
        self, lineage: str, expected: WebhookSecretEntry, entry: WebhookSecretEntry
    ) -> bool:
        """Replace ``expected`` by ``entry``; False (nothing written) when ``lineage`` no
        longer holds ``expected`` (another rotation came first) or holds nothing.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...


def encode(entry: WebhookSecretEntry) -> str:
    """``entry`` as the text the shared stores keep (the same entry, the same text)."""
    previous = entry.previous
    return json.dumps(
        {
            "current": base64.b64encode(entry.current).decode("ascii"),
            # ISO text, not a float: replace() compares the text, which must round-trip exactly.
            "created": entry.created.isoformat(),
            "previous": None if previous is None else base64.b64encode(previous).decode("ascii"),
        },
        sort_keys=True,
    )


def decode(value: str) -> WebhookSecretEntry:
    """The entry :func:`encode` wrote."""
    data = json.loads(value)
    previous = data["previous"]
    return WebhookSecretEntry(
        current=base64.b64decode(data["current"]),
        created=datetime.fromisoformat(data["created"]).astimezone(UTC),
        previous=None if previous is None else base64.b64decode(previous),
    )
