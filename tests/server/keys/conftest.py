"""Shared signers, clocks and strategies for the key tests."""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import AsyncIterator

import pytest
from hypothesis import strategies as st

from renderkit_server.keys import KeyService, KeySigner, MemoryRevocationStore
from renderkit_server.keys.emails import ENCODED_WORD

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


# Dot-atom local parts and LDH domains: the grammar normalize_email accepts, less the
# encoded-word opener "=?" it refuses (mail headers would decode it).
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
EMAILS = st.one_of(
    st.builds(lambda local, domain: f"{local}@{domain}", _locals, _domains),
    st.emails(),
).filter(lambda e: len(e.rpartition("@")[0]) <= 64 and len(e) <= 254 and ENCODED_WORD not in e)
