"""Quotas and usage stores.

Placeholder re-exports for the names the app and services import; helper H4's package
``__init__`` replaces this file.
"""

from renderkit_server.quotas.service import (
    QuotaExceededError,
    QuotaService,
    RateLimitedError,
    plans_from_mapping,
)
from renderkit_server.quotas.stores import SqliteUsageStore, UsageStore

__all__ = [
    "QuotaExceededError",
    "QuotaService",
    "RateLimitedError",
    "SqliteUsageStore",
    "UsageStore",
    "plans_from_mapping",
]
