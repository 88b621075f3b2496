"""Recording each key's URL-signing secret, and looking public key ids up.

A signed image URL names its key by a public id (lineage and generation) and is signed
with a secret the key holder derives from the key
(:func:`renderkit.image.signed_url.url_secret`). The server cannot derive it without the
key, which is a credential that must not go into URLs; so it records the
derived secret whenever it sees the key (issued, regenerated, or authenticating a request).
The key itself is never stored. Where entries are kept is
:mod:`renderkit_server.state.url_secrets`.
"""

from __future__ import annotations

import logging

from renderkit import RenderkitError
from renderkit.image.signed_url import public_key_id, url_secret
from renderkit_server.keys.tokens import ApiKey
from renderkit_server.state.url_secrets.base import UrlSecret, UrlSecretStore

__all__ = ["UrlSecrets"]

logger = logging.getLogger("renderkit_server")


class UrlSecrets:
    """Records each key's URL-signing secret once per process and looks ids up.

    Args:
        store: where entries are shared between replicas; its owner (the app's shared
            state) closes it.
    """

    def __init__(self, store: UrlSecretStore) -> None:
        self._store = store
        # Public ids written by this process: one write per key per process, not per request.
        self._written: set[str] = set()

    async def remember(self, key: str, claims: ApiKey) -> None:
        """Record the URL-signing secret of a verified ``key``; a store outage is logged
        and retried on the key's next request, never failing the request itself."""
        public_id = public_key_id(key)
        if public_id in self._written:
            return
        try:
            await self._store.put(public_id, UrlSecret(secret=url_secret(key), plan=claims.plan))
        except RenderkitError:
            logger.warning("could not record a URL-signing secret", exc_info=True)
            return
        self._written.add(public_id)

    async def lookup(self, public_id: str) -> UrlSecret | None:
        """The entry of ``public_id``, None when unknown.

        Raises:
            StorageUnavailableError: the store could not be reached.
        """
        return await self._store.get(public_id)
