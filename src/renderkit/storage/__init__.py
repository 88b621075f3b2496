"""Storage backends: where rendered files are kept.

Every backend satisfies the :class:`Storage` protocol. :class:`MemoryStorage` and
:class:`LocalStorage` need nothing beyond renderkit's dependencies; :class:`S3Storage` needs
the ``s3`` extra and is imported on first access, so importing this package never imports
aioboto3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderkit.storage._protocol import Storage, StoredObject, check_key
from renderkit.storage.local import LocalStorage
from renderkit.storage.memory import MemoryStorage

if TYPE_CHECKING:
    from renderkit.storage.s3 import S3Storage

__all__ = [
    "LocalStorage",
    "MemoryStorage",
    "S3Storage",
    "Storage",
    "StoredObject",
    "check_key",
]


def __getattr__(name: str) -> Any:
    if name == "S3Storage":
        from renderkit.storage.s3 import S3Storage

        return S3Storage
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted({*globals(), "S3Storage"})
