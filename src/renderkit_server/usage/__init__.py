"""What a key used this month, for its holder and for the operator.

* :mod:`.report`: the key's statement and the operator's export (JSON and CSV), both read
  from the ledger that charges (the committed counters of the usage store);
* :mod:`.routes`: ``GET /api/usage`` for a key holder, ``GET /api/admin/usage`` for the
  operator;
* :mod:`.cli`: ``renderkit usage export``.
"""

from __future__ import annotations

from renderkit_server.usage.report import (
    EXPORT_FORMATS,
    check_month,
    export_csv,
    export_json,
    key_statement,
)

__all__ = ["EXPORT_FORMATS", "check_month", "export_csv", "export_json", "key_statement"]
