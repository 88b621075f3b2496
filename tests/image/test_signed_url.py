"""Signed render-by-URL links built by the library (the server side is in tests/server)."""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import struct
from urllib.parse import parse_qsl, urlsplit

import pytest

from renderkit import InvalidRequestError, sign_image_url
from renderkit.image.signed_url import canonical_query, public_key_id, signature, url_secret

LINEAGE = bytes(range(16))


def make_key(generation: int = 3, email: str = "owner@example.com") -> str:
    payload = struct.pack(">B16sBIQB", 1, LINEAGE, 0, generation, 1_700_000_000, 2) + b"k1"
    text = base64.urlsafe_b64encode(payload + email.encode()).rstrip(b"=").decode()
    return f"sk_live_{text}.c2lnbmF0dXJl"


def test_the_url_names_the_key_by_lineage_and_generation_and_never_carries_the_key() -> None:
    key = make_key()
    url = sign_image_url("https://r.example/", key, "og-card", {"title": "Hi & bye"})
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    assert parts.path == "/api/image/og-card.png"
    assert params["kid"] == f"{LINEAGE.hex()}.3" == public_key_id(key)
    assert params["title"] == "Hi & bye"
    assert key not in url and "owner" not in url and "example.com" not in parts.query


def test_the_sig_is_an_hmac_of_file_name_and_canonical_query_under_the_derived_secret() -> None:
    key = make_key()
    url = sign_image_url("https://r.example", key, "og-card", {"title": "A", "subtitle": "B"})
    params = dict(parse_qsl(urlsplit(url).query))
    secret = hmac.new(key.encode(), b"renderkit url-signing v1", hashlib.sha256).digest()
    assert secret == url_secret(key)
    message = f"og-card.png?{canonical_query(params)}".encode()
    mac = base64.urlsafe_b64encode(hmac.new(secret, message, hashlib.sha256).digest())
    assert params["sig"] == mac.rstrip(b"=").decode()
    assert signature(secret, "og-card", "webp", canonical_query(params)) != params["sig"]


def test_the_canonical_query_sorts_names_drops_sig_and_percent_encodes_everything() -> None:
    params = {"title": "a b/c", "kid": "x.1", "sig": "zzz", "exp": "5"}
    assert canonical_query(params) == "exp=5&kid=x.1&title=a%20b%2Fc"


def test_expiry_width_and_nested_data_become_signed_parameters() -> None:
    expires = datetime.datetime(2030, 1, 1, tzinfo=datetime.UTC)
    url = sign_image_url(
        "https://r.example",
        make_key(),
        "og-card",
        {"title": "T", "extra": {"a": 1}},
        format="jpg",
        expires=expires,
        width=600,
    )
    params = dict(parse_qsl(urlsplit(url).query))
    assert urlsplit(url).path.endswith("/og-card.jpeg")
    assert params["exp"] == str(int(expires.timestamp()))
    assert params["width"] == "600"
    assert params["extra.a"] == "1"


def test_a_string_that_is_not_a_key_is_refused_naming_the_key() -> None:
    with pytest.raises(InvalidRequestError, match="key"):
        sign_image_url("https://r.example", "not-a-key", "og-card", {})
    with pytest.raises(InvalidRequestError, match="format"):
        sign_image_url("https://r.example", make_key(), "og-card", {}, format="gif")
