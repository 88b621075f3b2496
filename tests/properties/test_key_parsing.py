"""Property: whatever string arrives as an API key (or in the key headers), verification
fails only with InvalidKeyError, the server's 401."""

from __future__ import annotations

import contextlib
import secrets

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderkit_server import signing
from renderkit_server.auth import extract_key
from renderkit_server.keys import (
    ApiKey,
    InvalidKeyError,
    KeyService,
    KeySigner,
    MemoryRevocationStore,
)
from renderkit_server.keys.tokens import KEY_PREFIX

SIGNER = KeySigner({"a": secrets.token_bytes(32)}, "a")
VALID = SIGNER.sign(
    ApiKey(key_id="00" * 16, plan="pro", email="a@example.com", generation=0, issued_at=1, kid="a")
)
B64_TEXT = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

#: Arbitrary text, key-shaped text, valid base64url payloads of random bytes, and a real key
#: with one character changed.
KEYS = (
    st.text(max_size=200)
    | st.builds(lambda a, b: f"{KEY_PREFIX}{a}.{b}", B64_TEXT, B64_TEXT)
    | st.builds(
        lambda raw, mac: f"{KEY_PREFIX}{signing.b64encode(raw)}.{mac}",
        st.binary(max_size=120),
        B64_TEXT,
    )
    | st.builds(
        lambda i, c: VALID[:i] + c + VALID[i + 1 :],
        st.integers(min_value=0, max_value=len(VALID) - 1),
        st.characters(),
    )
    | st.text(min_size=1000, max_size=3000)
)


@settings(max_examples=300, deadline=500)
@given(key=KEYS)
def test_any_string_is_a_valid_key_or_an_invalid_key_error(key: str) -> None:
    try:
        claims = SIGNER.verify(key)
    except InvalidKeyError as exc:
        message = str(exc)
    else:
        assert key == VALID and claims.plan == "pro"
        return
    assert message == "invalid API key"  # generic: never echoes the key


@pytest.mark.anyio
async def test_the_key_service_refuses_arbitrary_strings_with_invalid_key_errors() -> None:
    async with KeyService(SIGNER, MemoryRevocationStore()) as service:

        @settings(max_examples=100, deadline=500)
        @given(key=KEYS)
        def check(key: str) -> None:
            with contextlib.suppress(InvalidKeyError):
                service.verify(key)

        check()


HEADER_VALUES = st.text(max_size=80) | st.builds(lambda k: f"Bearer {k}", KEYS)


@settings(max_examples=200, deadline=500)
@given(
    headers=st.dictionaries(
        st.sampled_from(["authorization", "x-svc-key", "x-api-key", "cookie"]),
        HEADER_VALUES,
        max_size=3,
    )
)
def test_key_headers_yield_a_key_none_or_an_invalid_key_error(headers: dict[str, str]) -> None:
    try:
        key = extract_key(headers)
    except InvalidKeyError:
        return
    assert key is None or isinstance(key, str)
