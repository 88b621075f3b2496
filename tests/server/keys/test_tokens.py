from __future__ import annotations

import re
import string

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderkit import ConfigurationError, RenderkitError
from renderkit_server.keys import (
    KEY_PREFIX,
    PLANS,
    ApiKey,
    InvalidKeyError,
    KeyService,
    KeySigner,
    MemoryRevocationStore,
    fingerprint,
    normalize_email,
)

from .conftest import EMAILS, KEY_CHARS, SECRET_A, SECRET_B, Clock, make_signer


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


_signer = make_signer(b=SECRET_B)


@st.composite
def _claims(draw: st.DrawFn) -> ApiKey:
    return ApiKey(
        key_id=draw(st.binary(min_size=16, max_size=16)).hex(),
        plan=draw(st.sampled_from(PLANS)),
        email=normalize_email(draw(EMAILS)),
        generation=draw(st.integers(0, 2**32 - 1)),
        issued_at=draw(st.integers(0, 2**63)),
        kid="a",
    )


@settings(max_examples=200)
@given(claims=_claims())
def test_signed_keys_use_only_url_safe_characters_and_round_trip(claims: ApiKey) -> None:
    key = _signer.sign(claims)

    assert KEY_CHARS.fullmatch(key)
    assert _signer.verify(key) == attrs.evolve(claims, email=None)


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
