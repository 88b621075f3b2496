"""Recording URL-signing secrets: a process writes each key once, under its public id (the
stores' own contract is tests/server/state/test_url_secrets.py)."""

from __future__ import annotations

import pytest

from renderkit.image.signed_url import public_key_id, url_secret
from renderkit_server.keys import KeySigner
from renderkit_server.keys.tokens import ApiKey
from renderkit_server.keys.url_secrets import UrlSecrets
from renderkit_server.state.url_secrets import MemoryUrlSecretStore, UrlSecret

pytestmark = pytest.mark.anyio


class _CountingStore(MemoryUrlSecretStore):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    async def put(self, public_id: str, entry: UrlSecret) -> None:
        self.writes += 1
        await super().put(public_id, entry)


async def test_a_key_is_written_once_per_process_under_its_public_id_never_the_key() -> None:
    signer = KeySigner({"k1": b"s" * 32}, "k1")
    claims = ApiKey(
        key_id="00" * 16, plan="pro", email="a@example.com", generation=2, issued_at=1, kid="k1"
    )
    key = signer.sign(claims)
    counting = _CountingStore()
    secrets = UrlSecrets(counting)
    for _ in range(3):
        await secrets.remember(key, claims)
    assert counting.writes == 1
    entry = await secrets.lookup(public_key_id(key))
    assert public_key_id(key) == f"{'00' * 16}.2"
    assert entry == UrlSecret(secret=url_secret(key), plan="pro")
    assert key.encode() not in entry.secret and "a@example.com" not in repr(entry)
