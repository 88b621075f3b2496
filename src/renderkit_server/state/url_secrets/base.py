"""URL-signing secrets: public key id -> (secret, plan), for signed render-by-URL images.

Every replica must see every entry: :mod:`.sqlite` shares them on one host, :mod:`.redis`
across hosts; :mod:`.memory` keeps them in one process. Writing an id twice keeps the last.
What is recorded and when is :class:`renderkit_server.keys.url_secrets.UrlSecrets`'s job.
"""

from __future__ import annotations

import base64
from typing import Protocol, runtime_checkable

import attrs

__all__ = ["UrlSecret", "UrlSecretStore", "decode", "encode"]


@attrs.frozen(kw_only=True)
class UrlSecret:
    """What the server knows of a public key id.

    Attributes:
        secret: the URL-signing secret; kept out of ``repr``.
        plan: the key's plan, which meters renders by URL.
    """

    secret: bytes = attrs.field(repr=False)
    plan: str


@runtime_checkable
class UrlSecretStore(Protocol):
    """Persists public key id -> :class:`UrlSecret`; writing an id twice keeps the last."""

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        """Record ``entry`` under ``public_id``.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def get(self, public_id: str) -> UrlSecret | None:
        """The entry of ``public_id``, None when unknown.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        ...

    async def aclose(self) -> None:
        """Release resources; closing twice is a no-op."""
        ...


def encode(entry: UrlSecret) -> str:
    """``entry`` as the text the shared stores keep."""
    return f"{entry.plan} {base64.b64encode(entry.secret).decode('ascii')}"


def decode(value: str) -> UrlSecret:
    """The entry :func:`encode` wrote."""
    plan, _, secret = value.partition(" ")
    return UrlSecret(secret=base64.b64decode(secret), plan=plan)
