"""The one signing helper: HMAC-SHA256 MACs, per-purpose keys and base64url."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from renderkit_server import signing

SINGLE = "wire-format-test-secret"
ROTATED = "old:first-secret-value,new:second-secret-value"


def test_purposes_derive_different_keys_from_one_secret() -> None:
    keys = {signing.derive_key(SINGLE, purpose) for purpose in ("a", "b", "c")}

    assert len(keys) == 3
    assert all(len(key) == 32 for key in keys)


def test_key_ring_names_unnamed_secrets_by_position_and_makes_the_first_current() -> None:
    ring, current = signing.key_ring("alpha, beta ,", "p")

    assert current == "k1"
    assert ring == {"k1": signing.derive_key("alpha", "p"), "k2": signing.derive_key("beta", "p")}


def test_current_key_uses_the_first_entry_as_written() -> None:
    assert signing.current_key(ROTATED, "p") == signing.derive_key("old:first-secret-value", "p")


@pytest.mark.parametrize(
    "signature", ["", "AAAA", "é" * 27, "\ud800", "m_Ka7fVzD86M9kD3JD4Btl-6T8"]
)
def test_verify_refuses_any_other_signature_without_raising(signature: str) -> None:
    key = signing.current_key(SINGLE, "renderkit-files")

    assert signing.verify(key, "file:images/a.png:4102444800", signature, size=20) is False


def test_mac_is_truncated_to_the_requested_size() -> None:
    key = signing.derive_key(SINGLE, "p")

    assert len(signing.b64decode(signing.mac(key, "message", size=16))) == 16
    assert len(signing.b64decode(signing.mac(key, "message", size=32))) == 32


@given(data=st.binary(max_size=64))
def test_base64url_round_trips_without_padding(data: bytes) -> None:
    text = signing.b64encode(data)

    assert "=" not in text
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert signing.b64decode(text) == data


@pytest.mark.parametrize("text", ["AB", "A", "AA=", "A+B/"])
def test_base64url_decoding_refuses_non_canonical_text(text: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the documented error of b64decode
        signing.b64decode(text)
