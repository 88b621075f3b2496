"""Idempotent POSTs: a request sent again with the same ``Idempotency-Key`` gets the first
answer instead of new work (and a new charge).

The rules follow the IETF draft "The Idempotency-Key HTTP Header Field"
(draft-ietf-httpapi-idempotency-key-header) and Stripe's API; docs/server.md
("Idempotent requests") states them for users.

* :mod:`.keys`: the header's value, the request's fingerprint, the entry's name (pure);
* :mod:`.service`: :class:`Idempotency`, the claim / run / store cycle over the
  :mod:`~renderkit_server.state.idempotency` store, used by REST and the MCP tools alike;
* :mod:`.http`: :func:`idempotent`, what a POST handler wraps around its work.
"""

from __future__ import annotations

from renderkit_server.idempotency.http import REPLAYED_HEADER, idempotent
from renderkit_server.idempotency.keys import (
    HEADER,
    canonical_fingerprint,
    entry_key,
    fingerprint_body,
    parse_key,
)
from renderkit_server.idempotency.service import STORED_STATUSES, Answered, Idempotency

__all__ = [
    "HEADER",
    "REPLAYED_HEADER",
    "STORED_STATUSES",
    "Answered",
    "Idempotency",
    "canonical_fingerprint",
    "entry_key",
    "fingerprint_body",
    "idempotent",
    "parse_key",
]
