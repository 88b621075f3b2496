"""A version 1 key encoder: the layout keys had before they stopped carrying e-mail.

The server only decodes version 1 now (keys already issued keep working); tests sign one
here to prove it.
"""

from __future__ import annotations

import struct

from renderkit_server import signing
from renderkit_server.keys import KEY_PREFIX, PLANS, ApiKey

_HEADER = struct.Struct(">B16sBIQB")  # version, key id, plan, generation, issued_at, kid len


def sign_v1(claims: ApiKey, *, email: str, kid: str, secret: bytes) -> str:
    """``claims`` as a version 1 key carrying ``email``, signed with ``secret`` as ``kid``."""
    kid_bytes = kid.encode("ascii")
    header = _HEADER.pack(
        1,
        bytes.fromhex(claims.key_id),
        PLANS.index(claims.plan),
        claims.generation,
        claims.issued_at,
        len(kid_bytes),
    )
    text = signing.b64encode(header + kid_bytes + email.encode("utf-8"))
    return f"{KEY_PREFIX}{text}.{signing.mac(secret, KEY_PREFIX + text, size=16)}"
