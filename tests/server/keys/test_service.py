from __future__ import annotations

import concurrent.futures
import datetime
import re
import secrets
import sqlite3
import string
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderkit import (
    ConfigurationError,
    InvalidRequestError,
    RenderkitError,
    StorageUnavailableError,
)
from renderkit_server.keys.service import (
    KEY_PREFIX,
    PLANS,
    ApiKey,
    InvalidKeyError,
    IssuedKey,
    KeyService,
    KeySigner,
    MemoryRevocationStore,
    RevocationStore,
    SqliteRevocationStore,
    extract_key,
    fingerprint,
    normalize_email,
)

SECRET_A = secrets.token_bytes(32)
SECRET_B = secrets.token_bytes(32)
KEY_CHARS = re.compile(r"[A-Za-z0-9_.-]+")
NOW = 1_750_000_000


class Clock:
    def __init__(self, now: float = NOW) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_signer(current: str = "a", **extra: bytes) -> KeySigner:
    return KeySigner({"a": SECRET_A, **extra}, current)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def service(clock: Clock) -> AsyncIterator[KeyService]:
    async with KeyService(make_signer(), MemoryRevocationStore(), clock=clock) as keys:
        yield keys


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


# --- issue / verify -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_issued_key_verifies_to_its_claims(service: KeyService) -> None:
    issued = await service.issue("Alice@Example.COM", "pro")

    claims = service.verify(issued.key)

    assert isinstance(issued, IssuedKey)
    assert issued.key.startswith(KEY_PREFIX)
    assert claims == ApiKey(
        key_id=issued.key_id,
        plan="pro",
        email="Alice@example.com",
        generation=0,
        issued_at=NOW,
        kid="a",
    )
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


def test_stores_satisfy_the_revocation_store_protocol(tmp_path: Path) -> None:
    assert isinstance(MemoryRevocationStore(), RevocationStore)
    assert isinstance(SqliteRevocationStore(tmp_path / "r.db"), RevocationStore)


@pytest.mark.anyio
@pytest.mark.parametrize(
    "key",
    [
        "",
        "sk_live_",
        "sk_live_abc",
        "sk_live_.abc",
        "sk_test_AAAA.AAAA",
        "sk_live_AAAA.AAAA",
        "sk_live_" + "A" * 2000 + ".AAAA",
        "Bearer sk_live_AAAA.AAAA",
        "sk_live_AA AA.AAAA",
    ],
)
async def test_malformed_keys_are_rejected(service: KeyService, key: str) -> None:
    with pytest.raises(InvalidKeyError) as info:
        service.verify(key)

    assert info.value.reason == "malformed"


@pytest.mark.anyio
async def test_non_string_key_is_rejected(service: KeyService) -> None:
    with pytest.raises(InvalidKeyError):
        service.verify(b"sk_live_AAAA.AAAA")  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_key_signed_with_another_secret_is_rejected(service: KeyService) -> None:
    forger = KeyService(KeySigner({"a": SECRET_B}, "a"), MemoryRevocationStore())
    forged = await forger.issue("a@example.com", "vip")

    with pytest.raises(InvalidKeyError) as info:
        service.verify(forged.key)

    assert info.value.reason == "bad_signature"


@pytest.mark.anyio
async def test_invalid_key_error_never_echoes_the_key(service: KeyService) -> None:
    issued = await service.issue("a@example.com", "pro")
    tampered = issued.key[:-1] + ("A" if issued.key[-1] != "A" else "B")

    with pytest.raises(InvalidKeyError) as info:
        service.verify(tampered)

    assert isinstance(info.value, RenderkitError)
    assert tampered not in str(info.value)
    assert tampered not in repr(info.value)
    assert issued.key[len(KEY_PREFIX) : len(KEY_PREFIX) + 8] not in str(info.value)


@pytest.mark.anyio
async def test_issued_key_repr_hides_the_key(service: KeyService) -> None:
    issued = await service.issue("a@example.com", "pro")

    assert issued.key not in repr(issued)
    assert issued.key_id in repr(issued)


def test_fingerprint_is_short_stable_and_does_not_contain_the_key() -> None:
    key = KEY_PREFIX + "x" * 40 + ".abc"

    assert fingerprint(key) == fingerprint(key)
    assert fingerprint(key) != fingerprint(key + "d")
    assert re.fullmatch(r"[0-9a-f]{12}", fingerprint(key))
    assert KeyService.fingerprint(key) == fingerprint(key)


# --- validation -----------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    "email",
    [
        "",
        "   ",
        "plainaddress",
        "@example.com",
        "a@",
        "a@localhost",
        "a@127.0.0.1",
        "a..b@example.com",
        ".a@example.com",
        "a.@example.com",
        "a b@example.com",
        '"quoted"@example.com',
        "a@-example.com",
        "a@example-.com",
        "a@exa_mple.com",
        "a@example..com",
        "a@example.com\r\nBcc: victim@example.com",
        "x" * 65 + "@example.com",
        "a@" + "b" * 64 + ".com",
        "a@" + ".".join(["b" * 60] * 5) + ".com",
        "ünïcode@example.com",
        42,
        None,
    ],
)
async def test_invalid_email_is_rejected_naming_the_field(
    service: KeyService, email: object
) -> None:
    with pytest.raises(InvalidRequestError) as info:
        await service.issue(email, "pro")  # type: ignore[arg-type]

    assert [e.field for e in info.value.errors] == ["email"]


@pytest.mark.parametrize(
    ("email", "normalized"),
    [
        ("Alice@Example.COM", "Alice@example.com"),
        ("  bob@example.org  ", "bob@example.org"),
        ("c.d+tag@Sub.Example.co.uk.", "c.d+tag@sub.example.co.uk"),
        ("o'neil@example.com", "o'neil@example.com"),
        ("user@Bücher.example", "user@xn--bcher-kva.example"),
    ],
)
def test_email_is_normalised(email: str, normalized: str) -> None:
    assert normalize_email(email) == normalized


def test_email_of_254_characters_is_accepted_and_255_is_not() -> None:
    domain = ".".join(["d" * 63, "d" * 63, "d" * 63]) + ".com"  # 195 characters
    local = "l" * (254 - 1 - len(domain))

    assert len(normalize_email(f"{local}@{domain}")) == 254
    with pytest.raises(InvalidRequestError):
        normalize_email(f"{local}x@{domain}")


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


# --- secret rotation ------------------------------------------------------------------------


def test_signer_refuses_bad_configuration() -> None:
    with pytest.raises(ConfigurationError):
        KeySigner({"a": SECRET_A}, "b")
    with pytest.raises(ConfigurationError):
        KeySigner({"a": b"short"}, "a")
    with pytest.raises(ConfigurationError):
        KeySigner({"a b": SECRET_A}, "a b")
    with pytest.raises(ConfigurationError):
        KeySigner({"a": "not bytes" * 10}, "a")  # type: ignore[dict-item]


def test_signer_repr_shows_kids_but_not_secrets() -> None:
    signer = make_signer(b=SECRET_B)

    assert SECRET_A.hex() not in repr(signer)
    assert str(SECRET_A) not in repr(signer)
    assert "'b'" in repr(signer)


@pytest.mark.anyio
async def test_keys_of_a_previous_secret_verify_after_rotation(clock: Clock) -> None:
    async with KeyService(make_signer("a"), MemoryRevocationStore(), clock=clock) as old:
        old_key = await old.issue("a@example.com", "pro")

    rotated_signer = KeySigner({"a": SECRET_A, "b": SECRET_B}, "b")
    async with KeyService(rotated_signer, MemoryRevocationStore(), clock=clock) as rotated:
        new_key = await rotated.issue("a@example.com", "pro")

        assert rotated.verify(old_key.key).kid == "a"
        assert rotated.verify(new_key.key).kid == "b"


@pytest.mark.anyio
async def test_removing_a_secret_invalidates_its_keys(clock: Clock) -> None:
    async with KeyService(make_signer("a"), MemoryRevocationStore(), clock=clock) as old:
        old_key = await old.issue("a@example.com", "pro")

    async with KeyService(KeySigner({"b": SECRET_B}, "b"), MemoryRevocationStore()) as retired:
        with pytest.raises(InvalidKeyError) as info:
            retired.verify(old_key.key)

    assert info.value.reason == "unknown_kid"


# --- regeneration and revocation ------------------------------------------------------------


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
async def test_revocation_survives_a_restart_with_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "revocations.db"
    async with KeyService(make_signer(), SqliteRevocationStore(path)) as before_restart:
        old = await before_restart.issue("a@example.com", "pro")
        new = await before_restart.regenerate(old.key)

    async with KeyService(make_signer(), SqliteRevocationStore(path)) as after_restart:
        with pytest.raises(InvalidKeyError):
            after_restart.verify(old.key)
        assert after_restart.verify(new.key).generation == 1

    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()


@pytest.mark.anyio
async def test_revocation_does_not_survive_a_restart_with_a_memory_store() -> None:
    async with KeyService(make_signer(), MemoryRevocationStore()) as first:
        old = await first.issue("a@example.com", "pro")
        await first.regenerate(old.key)

    async with KeyService(make_signer(), MemoryRevocationStore()) as second:
        assert second.verify(old.key).generation == 0


@pytest.mark.anyio
async def test_processes_sharing_a_sqlite_store_see_revocations_after_refresh(
    tmp_path: Path,
) -> None:
    path = tmp_path / "revocations.db"
    async with (
        KeyService(make_signer(), SqliteRevocationStore(path)) as worker_a,
        KeyService(make_signer(), SqliteRevocationStore(path)) as worker_b,
    ):
        old = await worker_a.issue("a@example.com", "pro")
        await worker_a.regenerate(old.key)
        assert worker_b.verify(old.key).generation == 0  # B's cache is stale until refresh

        await worker_b.refresh()

        with pytest.raises(InvalidKeyError):
            worker_b.verify(old.key)


@pytest.mark.anyio
async def test_a_key_cannot_be_regenerated_twice_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "revocations.db"
    async with (
        KeyService(make_signer(), SqliteRevocationStore(path)) as worker_a,
        KeyService(make_signer(), SqliteRevocationStore(path)) as worker_b,
    ):
        old = await worker_a.issue("a@example.com", "pro")
        await worker_a.regenerate(old.key)

        with pytest.raises(InvalidKeyError):
            await worker_b.regenerate(old.key)
        with pytest.raises(InvalidKeyError):
            worker_b.verify(old.key)


@pytest.mark.anyio
async def test_revocation_thresholds_only_grow(tmp_path: Path) -> None:
    for store in (MemoryRevocationStore(), SqliteRevocationStore(tmp_path / "r.db")):
        assert await store.revoke("k", before=2) is True
        assert await store.revoke("k", before=2) is False
        assert await store.revoke("k", before=1) is False
        assert await store.revoke("k", before=3) is True
        assert await store.load_all() == {"k": 3}
        await store.aclose()
        await store.aclose()


@pytest.mark.anyio
async def test_unreachable_sqlite_store_raises_storage_unavailable(tmp_path: Path) -> None:
    store = SqliteRevocationStore(tmp_path / "missing-dir" / "r.db")

    with pytest.raises(StorageUnavailableError) as info:
        await store.load_all()
    assert str(tmp_path) not in str(info.value)


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


# --- header extraction ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Authorization": "Bearer sk_live_a.b"}, "sk_live_a.b"),
        ({"authorization": "bearer sk_live_a.b"}, "sk_live_a.b"),
        ({"AUTHORIZATION": "BEARER   sk_live_a.b  "}, "sk_live_a.b"),
        ({"X-SVC-Key": "sk_live_a.b"}, "sk_live_a.b"),
        ({"x-svc-key": " sk_live_a.b "}, "sk_live_a.b"),
        ({"Authorization": "Bearer sk_live_a.b", "X-SVC-Key": "sk_live_a.b"}, "sk_live_a.b"),
        ({}, None),
        ({"X-SVC-Key": ""}, None),
        ({"Content-Type": "application/json"}, None),
    ],
)
def test_extract_key_reads_either_key_header(headers: dict[str, str], expected: str | None) -> None:
    assert extract_key(headers) == expected


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Basic dXNlcjpwYXNz", "X-SVC-Key": "sk_live_a.b"},
        {"Authorization": "sk_live_a.b"},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer   "},
        {"Authorization": "Bearer ", "X-SVC-Key": "sk_live_a.b"},
    ],
)
def test_extract_key_refuses_an_authorization_header_that_is_not_bearer(
    headers: dict[str, str],
) -> None:
    with pytest.raises(InvalidKeyError) as info:
        extract_key(headers)
    assert info.value.reason == "malformed"


def test_extract_key_rejects_two_different_keys() -> None:
    headers = {"Authorization": "Bearer sk_live_a.b", "X-SVC-Key": "sk_live_c.d"}

    with pytest.raises(InvalidKeyError) as info:
        extract_key(headers)

    assert info.value.reason == "conflicting_headers"
    assert "sk_live_a.b" not in str(info.value)
    assert "sk_live_c.d" not in str(info.value)


# --- properties -----------------------------------------------------------------------------

# Dot-atom local parts and LDH domains: the grammar normalize_email accepts.
_ATEXT = string.ascii_letters + string.digits + "!#$%&'*+/=?^_`{|}~-"
_atoms = st.text(_ATEXT, min_size=1, max_size=10)
_locals = st.lists(_atoms, min_size=1, max_size=4).map(".".join).filter(lambda s: len(s) <= 64)
_labels = st.from_regex(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,20}[A-Za-z0-9])?", fullmatch=True)
_tlds = st.from_regex(r"[A-Za-z]{2,10}", fullmatch=True)
_domains = st.builds(
    lambda labels, tld: ".".join([*labels, tld]),
    st.lists(_labels, min_size=1, max_size=4),
    _tlds,
)
_emails = st.one_of(
    st.builds(lambda local, domain: f"{local}@{domain}", _locals, _domains),
    st.emails(),
).filter(lambda e: len(e.rpartition("@")[0]) <= 64 and len(e) <= 254)


def _issue_and_verify(email: str, plan: str) -> tuple[IssuedKey, ApiKey]:
    async def run() -> tuple[IssuedKey, ApiKey]:
        async with KeyService(make_signer(), MemoryRevocationStore()) as keys:
            issued = await keys.issue(email, plan)
            return issued, keys.verify(issued.key)

    # Run on a private thread: a session-scoped async fixture may own this thread's loop.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, run).result()


@settings(max_examples=150, deadline=None)
@given(email=_emails, plan=st.sampled_from(PLANS))
def test_any_valid_email_and_plan_round_trip(email: str, plan: str) -> None:
    issued, claims = _issue_and_verify(email, plan)

    local, _, domain = email.rpartition("@")
    assert claims.email == issued.email == f"{local}@{domain.lower()}"
    assert claims.plan == issued.plan == plan
    assert claims.key_id == issued.key_id
    assert KEY_CHARS.fullmatch(issued.key)
    assert issued.key.count(".") == 1


_signer = make_signer(b=SECRET_B)


@st.composite
def _claims(draw: st.DrawFn) -> ApiKey:
    return ApiKey(
        key_id=draw(st.binary(min_size=16, max_size=16)).hex(),
        plan=draw(st.sampled_from(PLANS)),
        email=normalize_email(draw(_emails)),
        generation=draw(st.integers(0, 2**32 - 1)),
        issued_at=draw(st.integers(0, 2**63)),
        kid="a",
    )


@settings(max_examples=200)
@given(claims=_claims())
def test_signed_keys_use_only_url_safe_characters_and_round_trip(claims: ApiKey) -> None:
    key = _signer.sign(claims)

    assert KEY_CHARS.fullmatch(key)
    assert _signer.verify(key) == claims


@settings(max_examples=300)
@given(claims=_claims(), data=st.data())
def test_any_single_character_change_breaks_the_key(claims: ApiKey, data: st.DataObject) -> None:
    key = _signer.sign(claims)
    index = data.draw(st.integers(0, len(key) - 1), label="index")
    replacement = data.draw(
        st.characters(codec="utf-8", exclude_characters=key[index]), label="replacement"
    )
    mutated = key[:index] + replacement + key[index + 1 :]

    with pytest.raises(InvalidKeyError):
        _signer.verify(mutated)


@settings(max_examples=200)
@given(claims=_claims(), data=st.data())
def test_any_single_base64_character_change_breaks_the_key(
    claims: ApiKey, data: st.DataObject
) -> None:
    # Same as above but restricted to the key alphabet, where a change is hardest to detect
    # (e.g. the unused low bits of the last base64 character).
    key = _signer.sign(claims)
    index = data.draw(st.integers(len(KEY_PREFIX), len(key) - 1), label="index")
    alphabet = string.ascii_letters + string.digits + "-_"
    replacement = data.draw(st.sampled_from(alphabet.replace(key[index], "")), label="char")
    mutated = key[:index] + replacement + key[index + 1 :]

    with pytest.raises(InvalidKeyError):
        _signer.verify(mutated)


@given(text=st.text(max_size=300))
def test_verifying_arbitrary_text_only_ever_raises_invalid_key_error(text: str) -> None:
    with pytest.raises(InvalidKeyError):
        _signer.verify(text)
