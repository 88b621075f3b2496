"""API keys: self-validating signed tokens, their owners and their regeneration.

Modules:

- ``tokens``: the key format (claims, binary record, HMAC signer) and ``InvalidKeyError``.
- ``emails``: the e-mail syntax accepted for owners and its normalised spelling.
- where regenerations are recorded is :mod:`renderkit_server.state.revocations` (its
  protocol and memory/SQLite stores are re-exported here for the key service's callers);
- where each lineage's owner e-mail is kept (keys carry none) is
  :mod:`renderkit_server.state.key_owners`;
- ``url_secrets``: ``UrlSecrets``, recording each key's URL-signing secret;
- ``service``: ``KeyService``, issuing, verifying and regenerating keys.
- ``routes``: ``POST /api/keys/generate`` and ``/api/keys/regenerate``; imported by the app,
  not here: its handlers use the quotas and the mailer, which this package does not need.

Reading the key from request headers is :mod:`renderkit_server.auth`'s job.
"""

from renderkit_server.keys.emails import normalize_email
from renderkit_server.keys.service import KeyService
from renderkit_server.keys.tokens import (
    KEY_PREFIX,
    PLANS,
    ApiKey,
    InvalidKeyError,
    InvalidKeyReason,
    IssuedKey,
    KeySigner,
    fingerprint,
)
from renderkit_server.state.revocations import (
    MemoryRevocationStore,
    RevocationFeed,
    RevocationStore,
    SqliteRevocationStore,
)

__all__ = [
    "KEY_PREFIX",
    "PLANS",
    "ApiKey",
    "InvalidKeyError",
    "InvalidKeyReason",
    "IssuedKey",
    "KeyService",
    "KeySigner",
    "MemoryRevocationStore",
    "RevocationFeed",
    "RevocationStore",
    "SqliteRevocationStore",
    "fingerprint",
    "normalize_email",
]
