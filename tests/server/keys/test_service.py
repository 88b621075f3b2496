from __future__ import annotations

import concurrent.futures
import datetime

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderkit import InvalidRequestError
from renderkit_server.keys import (
    KEY_PREFIX,
    PLANS,
    ApiKey,
    InvalidKeyError,
    IssuedKey,
    KeyService,
    MemoryRevocationStore,
)

from .conftest import EMAILS, KEY_CHARS, NOW, Clock, make_signer


class ExplodingStore:
    """A store that refuses every call after start, to prove verify() does no I/O."""

    def __init__(self) -> None:
        self.loaded = False

    async def revoke(self, key_id: str, *, before: int) -> bool:
        raise AssertionError

    async def load_all(self) -> dict[str, int]:
        if self.loaded:
            raise AssertionError
        self.loaded = True
        return {}

    async def aclose(self) -> None:
        pass


@pytest.mark.anyio
async def test_issued_key_verifies_to_its_claims(service: KeyService) -> None:
    issued = await service.issue("Alice@Example.COM", "pro")

    claims = service.verify(issued.key)

    assert isinstance(issued, IssuedKey)
    assert issued.key.startswith(KEY_PREFIX)
    assert claims == ApiKey(
        key_id=issued.key_id,
        plan="pro",
        email=None,
        generation=0,
        issued_at=NOW,
        kid="a",
    )
    assert issued.email == await service.owner_email(claims) == "Alice@example.com"
    assert issued.created == datetime.datetime.fromtimestamp(NOW, tz=datetime.UTC)
    assert claims.issued == issued.created


@pytest.mark.anyio
async def test_each_issue_starts_a_new_lineage(service: KeyService) -> None:
    first = await service.issue("a@example.com", "starter")
    second = await service.issue("a@example.com", "starter")

    assert first.key_id != second.key_id
    assert len(bytes.fromhex(first.key_id)) * 8 >= 96


@pytest.mark.anyio
async def test_verify_reads_nothing_from_the_revocation_store() -> None:
    store = ExplodingStore()
    async with KeyService(make_signer(), store) as keys:
        issued = await keys.issue("a@example.com", "vip")
        for _ in range(3):
            assert keys.verify(issued.key).plan == "vip"


@pytest.mark.anyio
async def test_verify_before_start_is_a_programming_error() -> None:
    keys = KeyService(make_signer(), MemoryRevocationStore())
    issued = await keys.issue("a@example.com", "pro")

    with pytest.raises(RuntimeError):
        keys.verify(issued.key)


@pytest.mark.anyio
@pytest.mark.parametrize("plan", ["free", "basic", "", None, 3])
async def test_unknown_plan_is_rejected_naming_the_field(service: KeyService, plan: object) -> None:
    with pytest.raises(InvalidRequestError) as info:
        await service.issue("a@example.com", plan)  # type: ignore[arg-type]

    assert [e.field for e in info.value.errors] == ["plan"]


@pytest.mark.anyio
async def test_plan_is_case_insensitive(service: KeyService) -> None:
    issued = await service.issue("a@example.com", "Business")

    assert issued.plan == "business"


@pytest.mark.anyio
async def test_regenerate_invalidates_the_old_key_and_keeps_the_lineage(
    service: KeyService, clock: Clock
) -> None:
    old = await service.issue("a@example.com", "business")
    clock.now += 60

    new = await service.regenerate(old.key)

    assert (new.key_id, new.plan, new.email) == (old.key_id, old.plan, old.email)
    assert new.generation == old.generation + 1
    assert new.created > old.created
    assert service.verify(new.key).generation == 1
    with pytest.raises(InvalidKeyError) as info:
        service.verify(old.key)
    assert info.value.reason == "revoked"


@pytest.mark.anyio
async def test_regenerating_within_the_same_second_still_invalidates_the_old_key(
    service: KeyService,
) -> None:
    old = await service.issue("a@example.com", "pro")

    new = await service.regenerate(old.key)

    with pytest.raises(InvalidKeyError):
        service.verify(old.key)
    assert service.verify(new.key).key_id == old.key_id


@pytest.mark.anyio
async def test_regenerating_the_same_old_key_twice_fails(service: KeyService) -> None:
    old = await service.issue("a@example.com", "pro")
    await service.regenerate(old.key)

    with pytest.raises(InvalidKeyError):
        await service.regenerate(old.key)


@pytest.mark.anyio
async def test_concurrent_regenerations_of_one_key_yield_exactly_one_new_key(
    service: KeyService,
) -> None:
    old = await service.issue("a@example.com", "pro")
    results: list[IssuedKey | InvalidKeyError] = []

    async def attempt() -> None:
        try:
            results.append(await service.regenerate(old.key))
        except InvalidKeyError as exc:
            results.append(exc)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            for _ in range(5):
                tg.start_soon(attempt)

    winners = [r for r in results if isinstance(r, IssuedKey)]
    assert len(winners) == 1
    assert service.verify(winners[0].key).generation == 1


@pytest.mark.anyio
async def test_a_regenerated_key_can_itself_be_regenerated(service: KeyService) -> None:
    first = await service.issue("a@example.com", "pro")
    second = await service.regenerate(first.key)

    third = await service.regenerate(second.key)

    assert third.generation == 2
    for stale in (first, second):
        with pytest.raises(InvalidKeyError):
            service.verify(stale.key)
    assert service.verify(third.key).key_id == first.key_id


@pytest.mark.anyio
async def test_regenerating_an_invalid_key_fails(service: KeyService) -> None:
    with pytest.raises(InvalidKeyError):
        await service.regenerate("sk_live_nope.nope")


@pytest.mark.anyio
async def test_failed_revocation_leaves_the_old_key_valid() -> None:
    class FailingStore(MemoryRevocationStore):
        async def revoke(self, key_id: str, *, before: int) -> bool:
            raise OSError

    async with KeyService(make_signer(), FailingStore()) as keys:
        old = await keys.issue("a@example.com", "pro")
        with pytest.raises(OSError):  # noqa: PT011 - the store's own error propagates
            await keys.regenerate(old.key)

        assert keys.verify(old.key).generation == 0


def _issue_and_verify(email: str, plan: str) -> tuple[IssuedKey, ApiKey, str | None]:
    async def run() -> tuple[IssuedKey, ApiKey, str | None]:
        async with KeyService(make_signer(), MemoryRevocationStore()) as keys:
            issued = await keys.issue(email, plan)
            claims = keys.verify(issued.key)
            return issued, claims, await keys.owner_email(claims)

    # Run on a private thread: a session-scoped async fixture may own this thread's loop.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, run).result()


@settings(max_examples=150, deadline=None)
@given(email=EMAILS, plan=st.sampled_from(PLANS))
def test_any_valid_email_and_plan_round_trip(email: str, plan: str) -> None:
    issued, claims, owner = _issue_and_verify(email, plan)

    local, _, domain = email.rpartition("@")
    assert owner == issued.email == f"{local}@{domain.lower()}"
    assert claims.email is None
    assert claims.plan == issued.plan == plan
    assert claims.key_id == issued.key_id
    assert KEY_CHARS.fullmatch(issued.key)
    assert issued.key.count(".") == 1
