"""The usage statement of one key and the operator's export of every key, in plan units.

Both read the committed counters, the ledger :meth:`QuotaTicket.commit
<renderkit_server.quotas.QuotaTicket.commit>` writes: what a caller sees is exactly what
it is charged. Calls still running hold leases; the statement shows them apart as
``in_flight``, and ``remaining`` leaves them out (they count against the quota until they
end).

Amounts are in plan units: one image, one PDF, one character..., and ``audio_minutes`` in
minutes with three decimals (the store counts milliseconds).
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from renderkit import InvalidRequestError
from renderkit.core.times import isoformat_z
from renderkit_server.quotas import METERING_UNITS, METRICS, QuotaService
from renderkit_server.state.usage import UsageStore

__all__ = ["EXPORT_FORMATS", "check_month", "export_csv", "export_json", "key_statement"]

#: What ``format`` an export may ask for.
EXPORT_FORMATS: tuple[str, ...] = ("json", "csv")

#: The CSV columns of an export, one row per key and metric.
CSV_COLUMNS: tuple[str, ...] = ("period", "key_id", "metric", "used")

_MONTH = re.compile(r"[0-9]{4}-(0[1-9]|1[0-2])")


def check_month(month: str) -> str:
    """Return ``month`` if it names a month as ``YYYY-MM`` (an accounting period).

    Raises:
        InvalidRequestError: it does not.
    """
    if not _MONTH.fullmatch(month):
        raise InvalidRequestError.single("month", "must be a month as YYYY-MM, e.g. 2026-11")
    return month


def _plan_units(metric: str, amount: int) -> int | float:
    unit = METERING_UNITS.get(metric, 1)
    return amount if unit == 1 else round(amount / unit, 3)


async def key_statement(quotas: QuotaService, api_key_id: str, plan: str) -> dict[str, Any]:
    """The current month of one key: per metric, used, in flight, limit and remaining.

    Every metric of the plans is listed, unused ones at 0; ``limit`` and ``remaining`` are
    ``null`` when the plan does not limit the metric.

    Raises:
        ConfigurationError: the plan is not in the table.
        StorageUnavailableError: the usage store failed.
    """
    limits = quotas.limits(plan)
    used = await quotas.usage(api_key_id)
    held = await quotas.in_flight(api_key_id)
    metrics: dict[str, dict[str, Any]] = {}
    for metric in METRICS:
        limit = limits.monthly_limit(metric)
        spent = used.get(metric, 0) + held.get(metric, 0)
        unit = METERING_UNITS[metric]
        metrics[metric] = {
            "used": _plan_units(metric, used.get(metric, 0)),
            "in_flight": _plan_units(metric, held.get(metric, 0)),
            "limit": limit,
            # Rounded down like the X-RateLimit-Remaining header of a call.
            "remaining": None if limit is None else max(limit * unit - spent, 0) // unit,
        }
    return {
        "period": quotas.period(),
        "plan": plan,
        "reset_at": isoformat_z(quotas.period_reset_at()),
        "metrics": metrics,
    }


async def export_json(store: UsageStore, period: str) -> dict[str, Any]:
    """Every key's committed usage in ``period``: ``{"period", "keys": {key_id: {metric:
    used}}}``, keys sorted, amounts in plan units.

    Raises:
        StorageUnavailableError: the usage store failed.
    """
    found = await store.export(check_month(period))
    keys = {
        key_id: {metric: _plan_units(metric, found[key_id][metric]) for metric in sorted(used)}
        for key_id, used in sorted(found.items())
    }
    return {"period": period, "keys": keys}


async def export_csv(store: UsageStore, period: str) -> str:
    """The same as :func:`export_json`, as CSV with a header row (:data:`CSV_COLUMNS`).

    Raises:
        StorageUnavailableError: the usage store failed.
    """
    report = await export_json(store, period)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for key_id, used in report["keys"].items():
        for metric, amount in used.items():
            writer.writerow((period, key_id, metric, amount))
    return out.getvalue()
