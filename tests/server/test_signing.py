"""The one signing helper, and the three wire formats built on it staying byte-for-byte the same.

The known tokens below were produced by the code before the helper existed (each scheme with
its own HMAC and base64), from the same fixed secrets and inputs; the version 2 API keys (no
e-mail) by the helper when they were introduced.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from renderkit_server import signing
from renderkit_server.errors import HttpProblem
from renderkit_server.files import FileSigner
from renderkit_server.keys import ApiKey, KeySigner
from renderkit_server.keys.tokens import SIGNING_PURPOSE
from renderkit_server.mcp.sessions import McpSessions
from tests.server.keys.v1keys import sign_v1

SINGLE = "wire-format-test-secret"
ROTATED = "old:first-secret-value,new:second-secret-value"
FILE_KEY = "images/2026/06/abc.png"
EXPIRES = 4_102_444_800  # 2100-01-01
SESSION_BODY = "2025-06-18.AAECAwQFBgcICQoLDA0ODw"

# secret -> (API key (version 1, with an e-mail), file URL signature, MCP session id)
KNOWN = {
    SINGLE: (
        "sk_live_AQARIjNEVWZ3iJmqu8zd7v8BAAAAAwAAAABoTuGAAmsxYWxpY2VAZXhhbXBsZS5jb20"
        ".dyMDFJ_yh46e8s_XvC8oPQ",
        "m_Ka7fVzD86M9kD3JD4Btl-6T8s",
        f"{SESSION_BODY}.g7R_v_t3pmjqr_bGaQXCTP-B",
    ),
    ROTATED: (
        "sk_live_AQARIjNEVWZ3iJmqu8zd7v8BAAAAAwAAAABoTuGAA29sZGFsaWNlQGV4YW1wbGUuY29t"
        ".RFM7C2dyF89TvL1B8wL4AQ",
        "BeHc-OQTi6S3PRWtEOAwUGIhYIg",
        f"{SESSION_BODY}.UVmqI3ed1nYtmNn8DldPHs4F",
    ),
}
# secret -> the same claims as a version 2 key (no e-mail), as first signed by this helper.
KNOWN_V2 = {
    SINGLE: "sk_live_AgARIjNEVWZ3iJmqu8zd7v8BAAAAAwAAAABoTuGAAmsx.VlFGOEubjdCTn9STrT0nqA",
    ROTATED: "sk_live_AgARIjNEVWZ3iJmqu8zd7v8BAAAAAwAAAABoTuGAA29sZA.zNVIWF9oGzPT_A8cc9VX-w",
}
EMAIL = "alice@example.com"


def _claims(kid: str, *, email: str | None = None) -> ApiKey:
    return ApiKey(
        key_id="00112233445566778899aabbccddeeff",
        plan="pro",
        email=email,
        generation=3,
        issued_at=1_750_000_000,
        kid=kid,
    )


@pytest.mark.parametrize("secret", [SINGLE, ROTATED])
def test_api_keys_signed_before_the_helper_still_verify_and_are_signed_identically(
    secret: str,
) -> None:
    known_key = KNOWN[secret][0]
    signer = KeySigner.from_secret(secret)
    kid = signer.current_kid
    keys, _ = signing.key_ring(secret, SIGNING_PURPOSE)

    assert signer.verify(known_key) == _claims(kid, email=EMAIL)
    assert sign_v1(_claims(kid), email=EMAIL, kid=kid, secret=keys[kid]) == known_key


@pytest.mark.parametrize("secret", [SINGLE, ROTATED])
def test_new_api_keys_keep_their_version_2_wire_format(secret: str) -> None:
    signer = KeySigner.from_secret(secret)
    kid = signer.current_kid

    assert signer.sign(_claims(kid, email=EMAIL)) == KNOWN_V2[secret]
    assert signer.verify(KNOWN_V2[secret]) == _claims(kid)


@pytest.mark.parametrize("secret", [SINGLE, ROTATED])
def test_file_urls_signed_before_the_helper_still_verify_and_are_signed_identically(
    secret: str,
) -> None:
    known_signature = KNOWN[secret][1]
    signer = attrs.evolve(FileSigner.from_secret(secret), clock=lambda: 1_750_000_000.0)

    assert signer.signature(FILE_KEY, EXPIRES) == known_signature
    assert signer.check(FILE_KEY, str(EXPIRES), known_signature) == EXPIRES


@pytest.mark.anyio
@pytest.mark.parametrize("secret", [SINGLE, ROTATED])
async def test_mcp_session_ids_minted_before_the_helper_are_still_live(secret: str) -> None:
    sessions = McpSessions.from_secret(secret)

    assert await sessions.version(KNOWN[secret][2]) == "2025-06-18"


@pytest.mark.anyio
async def test_a_session_id_minted_now_is_live_until_ended() -> None:
    sessions = McpSessions.from_secret(SINGLE)
    session_id = sessions.mint("2025-06-18")

    assert await sessions.version(session_id) == "2025-06-18"
    assert await sessions.end(session_id) is True
    assert await sessions.version(session_id) is None


@pytest.mark.anyio
async def test_a_token_of_one_kind_does_not_verify_as_another() -> None:
    files = FileSigner.from_secret(SINGLE)
    session_mac = KNOWN[SINGLE][2].rsplit(".", 1)[1]

    assert await McpSessions.from_secret(ROTATED).version(KNOWN[SINGLE][2]) is None
    with pytest.raises(HttpProblem) as info:
        files.check(FILE_KEY, str(EXPIRES), session_mac)
    assert info.value.status == 403


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
    key = signing.current_key(SINGLE, FileSigner.PURPOSE)

    assert signing.verify(key, f"file:{FILE_KEY}:{EXPIRES}", signature, size=20) is False


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
