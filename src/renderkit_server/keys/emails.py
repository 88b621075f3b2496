"""E-mail addresses of key owners: the syntax accepted and the one normalised spelling.

Keys carry their owner's address and the server e-mails keys to it, so the accepted grammar
is deliberately narrow: an RFC 5322 dot-atom local part (no quoted strings, spaces or CR/LF,
which could inject mail headers, and no RFC 2047 encoded word, which a mail library decodes
into the header: ``=?utf-8?q?a=40evil.example=2C_?=@x.com`` became ``To: a@evil.example,
@x.com``) and an IDNA domain of at least two labels.
"""

from __future__ import annotations

import re

from renderkit import InvalidRequestError

__all__ = ["ENCODED_WORD", "normalize_email"]

#: What opens an RFC 2047 encoded word; atext allows both characters, headers decode it.
ENCODED_WORD = "=?"

_EMAIL = "email"
_MAX_EMAIL = 254
_MAX_LOCAL = 64
# RFC 5322 dot-atom of atext: no quoted local parts, no spaces, no CR/LF (header injection).
_LOCAL_RE = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
_LABEL_RE = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


def normalize_email(email: object) -> str:
    """Check the syntax of an e-mail address and return its normalised form.

    The local part must be an RFC 5322 dot-atom (no quoted strings, ASCII only) and is kept
    as given; the domain is IDNA-encoded and lower-cased and needs at least two labels.
    Surrounding whitespace is removed.

    Args:
        email: the address as received.

    Returns:
        The normalised address, at most 254 characters.

    Raises:
        InvalidRequestError: for field ``email``.
    """
    if not isinstance(email, str):
        msg = "must be a string"
        raise InvalidRequestError.single(_EMAIL, msg)
    email = email.strip()
    if not email:
        msg = "must not be empty"
        raise InvalidRequestError.single(_EMAIL, msg, missing=True)
    local, at, domain = email.rpartition("@")
    if not at or len(local) > _MAX_LOCAL or not _LOCAL_RE.fullmatch(local):
        msg = "must be a valid e-mail address"
        raise InvalidRequestError.single(_EMAIL, msg)
    if ENCODED_WORD in local:
        msg = f"must not contain {ENCODED_WORD!r} (an encoded word, which mail headers decode)"
        raise InvalidRequestError.single(_EMAIL, msg)
    domain = _normalize_domain(domain)
    email = f"{local}@{domain}"
    if len(email) > _MAX_EMAIL:
        msg = f"must be at most {_MAX_EMAIL} characters"
        raise InvalidRequestError.single(_EMAIL, msg)
    return email


def _normalize_domain(domain: str) -> str:
    domain = domain.removesuffix(".")
    if not domain.isascii():
        try:
            domain = domain.encode("idna").decode("ascii")
        except UnicodeError:
            msg = "must have a valid domain"
            raise InvalidRequestError.single(_EMAIL, msg) from None
    domain = domain.lower()
    labels = domain.split(".")
    if (
        len(labels) < 2
        or not all(_LABEL_RE.fullmatch(label) for label in labels)
        or labels[-1].isdigit()  # an IP address or a numeric TLD, neither takes mail here
    ):
        msg = "must have a valid domain"
        raise InvalidRequestError.single(_EMAIL, msg)
    return domain
