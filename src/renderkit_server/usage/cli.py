"""``renderkit usage export``: the operator's monthly export, read straight from the ledger.

It opens the usage store the server's settings describe (``RENDERKIT_DATA_DIR``'s SQLite
file, or ``RENDERKIT_REDIS_URL``), so it runs beside a live server or after it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from renderkit_server.settings import Settings
from renderkit_server.state.build import build_shared_state
from renderkit_server.usage.report import export_csv, export_json

__all__ = ["export_usage"]


async def export_usage(*, month: str, fmt: str, environ: Mapping[str, str] | None = None) -> str:
    """Every key lineage's committed usage in ``month`` as CSV or (indented) JSON text.

    Args:
        month: the accounting period, ``YYYY-MM``.
        fmt: ``csv`` or ``json``.
        environ: the ``RENDERKIT_*`` variables; the process environment when omitted.

    Raises:
        InvalidRequestError: ``month`` is not ``YYYY-MM``.
        ConfigurationError: the settings are invalid.
        StorageUnavailableError: the usage store cannot be read.
    """
    settings = Settings.from_env(environ)
    state = build_shared_state(settings)
    try:
        if fmt == "csv":
            return await export_csv(state.usage, month)
        return json.dumps(await export_json(state.usage, month), indent=2) + "\n"
    finally:
        await state.aclose()
