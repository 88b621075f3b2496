"""Keys without personal data: the owner's e-mail stays on the server, old keys keep working."""

from __future__ import annotations

import base64
import re

import pytest

from renderkit import StorageUnavailableError
from renderkit_server import signing
from renderkit_server.keys import KEY_PREFIX, ApiKey, InvalidKeyError, KeyService
from renderkit_server.keys import MemoryRevocationStore as Revocations
from renderkit_server.state.key_owners import MemoryKeyOwnerStore

from .conftest import NOW, SECRET_A, Clock, make_signer
from .v1keys import sign_v1

pytestmark = pytest.mark.anyio

EMAIL = "ada.lovelace@analytical.example"
LINEAGE = "00112233445566778899aabbccddeeff"


def _decoded_parts(key: str) -> list[bytes]:
    """Every base64url part of a key (payload and MAC), decoded."""
    parts = key.removeprefix(KEY_PREFIX).split(".")
    return [base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)) for part in parts]


def _v1_key(email: str = EMAIL, *, generation: int = 0) -> str:
    claims = ApiKey(
        key_id=LINEAGE, plan="pro", generation=generation, issued_at=NOW - 86_400, kid="a"
    )
    return sign_v1(claims, email=email, kid="a", secret=SECRET_A)


async def test_a_new_key_decoded_holds_no_part_of_the_email(service: KeyService) -> None:
    issued = await service.issue(EMAIL, "pro")

    decoded = b"".join(_decoded_parts(issued.key)).lower()
    # Whole words only: a random lineage or MAC may hold any short byte run (an "@" too).
    for needle in (EMAIL, "ada.lovelace", "lovelace", "analytical"):
        assert needle.encode() not in decoded
    assert "lovelace" not in issued.key.lower()
    assert _decoded_parts(issued.key)[0][0] == 2  # payload version 2


async def test_an_issued_keys_owner_is_on_record_under_its_lineage(clock: Clock) -> None:
    owners = MemoryKeyOwnerStore()
    async with KeyService(make_signer(), Revocations(), owners=owners, clock=clock) as keys:
        issued = await keys.issue(EMAIL, "starter")

        assert await owners.get(issued.key_id) == EMAIL
        assert await keys.owner_email(keys.verify(issued.key)) == EMAIL


async def test_a_version_1_key_still_verifies_with_its_email(service: KeyService) -> None:
    claims = service.verify(_v1_key())

    assert (claims.key_id, claims.plan, claims.email) == (LINEAGE, "pro", EMAIL)
    assert await service.owner_email(claims) == EMAIL


async def test_regenerating_a_version_1_key_issues_version_2_and_records_the_owner(
    clock: Clock,
) -> None:
    owners = MemoryKeyOwnerStore()
    async with KeyService(make_signer(), Revocations(), owners=owners, clock=clock) as keys:
        old = _v1_key(generation=4)

        new = await keys.regenerate(old)

        assert (new.key_id, new.plan, new.email, new.generation) == (LINEAGE, "pro", EMAIL, 5)
        assert EMAIL.encode() not in b"".join(_decoded_parts(new.key))
        assert keys.verify(new.key).email is None
        assert await owners.get(LINEAGE) == EMAIL
        with pytest.raises(InvalidKeyError):
            keys.verify(old)
        # The next regeneration finds the owner on record.
        assert (await keys.regenerate(new.key)).email == EMAIL


async def test_a_lineage_without_an_owner_on_record_still_regenerates_with_no_email(
    clock: Clock,
) -> None:
    owners = MemoryKeyOwnerStore()
    async with KeyService(make_signer(), Revocations(), owners=owners, clock=clock) as keys:
        issued = await keys.issue(EMAIL, "starter")
        await owners.delete(issued.key_id)  # erased on request, or lost with its store

        new = await keys.regenerate(issued.key)

        assert new.email is None
        assert keys.verify(new.key).key_id == issued.key_id
        with pytest.raises(InvalidKeyError):
            keys.verify(issued.key)


class _DownOwners(MemoryKeyOwnerStore):
    async def put(self, key_id: str, email: str) -> None:
        msg = "owner store down"
        raise StorageUnavailableError(msg)


async def test_no_key_is_issued_and_no_old_key_revoked_when_the_owner_cannot_be_recorded(
    clock: Clock,
) -> None:
    async with KeyService(make_signer(), Revocations(), owners=_DownOwners(), clock=clock) as keys:
        with pytest.raises(StorageUnavailableError):
            await keys.issue(EMAIL, "starter")
        old = _v1_key()
        with pytest.raises(StorageUnavailableError):
            await keys.regenerate(old)
        assert keys.verify(old).email == EMAIL  # still valid


def test_a_version_2_key_with_trailing_bytes_is_malformed() -> None:
    signer = make_signer()
    claims = ApiKey(key_id=LINEAGE, plan="pro", generation=0, issued_at=NOW, kid="a")
    v1 = sign_v1(claims, email=EMAIL, kid="a", secret=SECRET_A)
    # Relabel the version 1 payload (which has an e-mail tail) as version 2 and re-sign it.
    payload = bytearray(_decoded_parts(v1)[0])
    payload[0] = 2
    text = base64.urlsafe_b64encode(bytes(payload)).rstrip(b"=").decode()
    forged = f"{KEY_PREFIX}{text}.{signing.mac(SECRET_A, KEY_PREFIX + text, size=16)}"
    assert re.fullmatch(r"sk_live_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", forged)

    with pytest.raises(InvalidKeyError) as info:
        signer.verify(forged)
    assert info.value.reason == "malformed"
