"""``GET /api/usage`` (a key's month) and ``GET /api/admin/usage`` (the operator's export).

Both are also served under ``/v1``. The key holder's view needs the key, like any call; the
export needs the operator's admin token and is left out of the public OpenAPI document.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get
from litestar.di import NamedDependency
from litestar.types import ControllerRouterHandler

from renderkit import InvalidRequestError
from renderkit_server.auth import authenticate, require_admin
from renderkit_server.keys import KeyService
from renderkit_server.quotas import QuotaService
from renderkit_server.settings import Settings
from renderkit_server.state.usage import UsageStore
from renderkit_server.usage.report import (
    EXPORT_FORMATS,
    check_month,
    export_csv,
    export_json,
    key_statement,
)

__all__ = ["ROUTES", "usage_export", "usage_statement"]


@get(["/api/usage", "/v1/usage"], summary="This month's usage of the calling key")
async def usage_statement(
    request: Request[Any, Any, Any],
    keys: NamedDependency[KeyService],
    quotas: NamedDependency[QuotaService],
) -> dict[str, Any]:
    """What the calling key used this month and what is left, per metric."""
    api_key = authenticate(request, keys)
    return await key_statement(quotas, api_key.key_id, api_key.plan)


@get(["/api/admin/usage", "/v1/admin/usage"], include_in_schema=False)
async def usage_export(
    request: Request[Any, Any, Any],
    usage: NamedDependency[UsageStore],
    settings: NamedDependency[Settings],
) -> Response[Any]:
    """Every key lineage's committed usage in one month, as JSON or CSV (admin token).

    Query: ``month`` (``YYYY-MM``, required) and ``format`` (``json`` or ``csv``).
    """
    require_admin(request.headers, settings.admin_token)
    # Read by hand, after the token check: a caller without it learns nothing, not even
    # which parameters exist.
    month = check_month(request.query_params.get("month", ""))
    export_format = request.query_params.get("format", "json")
    if export_format not in EXPORT_FORMATS:
        raise InvalidRequestError.single("format", "must be json or csv")
    if export_format == "csv":
        text = await export_csv(usage, month)
        disposition = f'attachment; filename="renderkit-usage-{month}.csv"'
        return Response(
            text,
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": disposition},
        )
    return Response(await export_json(usage, month))


#: What the app mounts for usage.
ROUTES: tuple[ControllerRouterHandler, ...] = (usage_statement, usage_export)
