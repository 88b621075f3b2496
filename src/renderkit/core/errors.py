"""The renderkit exception tree.

Every error the library raises derives from :class:`RenderkitError`::

    RenderkitError(Exception)
    ├── ConfigurationError(RenderkitError, ValueError)   bad settings given by the operator
    ├── InvalidRequestError(RenderkitError, ValueError)  bad input; .errors names each field
    ├── RenderError                                      the browser could not produce output
    │   ├── BlockedUrlError                              a URL policy refused an address
    │   ├── NavigationError                              .url, .status
    │   └── RenderTimeoutError(RenderError, TimeoutError)
    ├── BrowserBusyError                                 the render queue is full; try later
    │   └── TenantBusyError                              one tenant's own allowance is full
    ├── BrowserUnavailableError                          Chromium could not be launched/reached,
    │                                                    or died mid-render; .retry_after
    ├── WorkersBusyError                                 a CPU worker pool's queue is full
    │                                                    (.pool, .retry_after)
    ├── StorageError
    │   ├── ObjectNotFoundError(StorageError, LookupError)  .key
    │   ├── StorageUnavailableError
    │   └── StorageFullError                             no space left (ENOSPC, quota)
    ├── ProviderError                                    an external provider failed (.status)
    │   └── ProviderUnavailableError
    ├── MissingDependencyError(RenderkitError, ImportError)
    ├── JobCancelledError                                a server job was cancelled (.job_id)
    ├── JobTimeoutError(RenderkitError, TimeoutError)    a job did not finish in the wait
    ├── WebhookVerificationError(RenderkitError, ValueError)  a webhook's signature is wrong
    └── ApiError                                         a hosted API refused a call (client
        └── RateLimitError                               only: .status, .code); over quota or
                                                         burst rate (.retry_after)

Messages are public: the server returns them to clients and MCP agents, so they never contain
credentials, signed URLs or filesystem paths. Context travels as attributes instead.
HTTP statuses are assigned only by ``renderkit_server``.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

__all__ = [
    "ApiError",
    "AuthenticationError",
    "BlockedUrlError",
    "BrowserBusyError",
    "BrowserUnavailableError",
    "ConfigurationError",
    "FieldError",
    "InvalidRequestError",
    "JobCancelledError",
    "JobTimeoutError",
    "MissingDependencyError",
    "NavigationError",
    "ObjectNotFoundError",
    "ProviderError",
    "ProviderUnavailableError",
    "RateLimitError",
    "RenderError",
    "RenderTimeoutError",
    "RenderkitError",
    "ServerUnreachableError",
    "StorageError",
    "StorageFullError",
    "StorageUnavailableError",
    "TenantBusyError",
    "WebhookVerificationError",
    "WorkersBusyError",
]


class RenderkitError(Exception):
    """Root of every error raised by renderkit."""


class ConfigurationError(RenderkitError, ValueError):
    """A backend or setting was configured wrongly by the operator."""


@attrs.frozen(kw_only=True)
class FieldError:
    """One problem with one request field.

    Attributes:
        field: dotted path of the field, e.g. ``data.brand_color`` or ``items[3].quantity``.
        message: what is wrong, without the field name (``must be a string``).
        missing: True when the field was required and absent.
        unknown: True when no variant of the request defines the field (often a misspelling).
        suggestion: for an unknown field, the known field it most resembles, if any.
    """

    field: str
    message: str
    missing: bool = False
    unknown: bool = False
    suggestion: str | None = None

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class InvalidRequestError(RenderkitError, ValueError):
    """The request is invalid; ``errors`` lists every offending field."""

    def __init__(self, errors: Iterable[FieldError]) -> None:
        self.errors: tuple[FieldError, ...] = tuple(errors)
        super().__init__("; ".join(str(e) for e in self.errors) or "invalid request")

    @classmethod
    def single(cls, field: str, message: str, *, missing: bool = False) -> InvalidRequestError:
        """Build the error for one field."""
        return cls([FieldError(field=field, message=message, missing=missing)])

    @property
    def missing(self) -> bool:
        """True when every problem is a missing required field."""
        return all(e.missing for e in self.errors)


class RenderError(RenderkitError):
    """The browser could not produce the requested output."""


class BlockedUrlError(RenderError):
    """A URL was refused by the network policy (private address, forbidden scheme...).

    ``private`` is true when the only objection is that the address is not public, which
    ``allow_private_network`` would lift: callers can then name their own switch for it.
    """

    def __init__(
        self, message: str, *, url: str, field: str | None = None, private: bool = False
    ) -> None:
        super().__init__(message)
        self.url = url
        self.field = field
        self.private = private


class NavigationError(RenderError):
    """A page could not be loaded."""

    def __init__(self, message: str, *, url: str, status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.status = status


class RenderTimeoutError(RenderError, TimeoutError):
    """A render did not finish within its time limit."""

    def __init__(self, message: str, *, timeout: float) -> None:
        super().__init__(message)
        self.timeout = timeout


class BrowserBusyError(RenderkitError):
    """Every browser slot is busy and the wait queue is full; retry later."""

    def __init__(self, message: str, *, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TenantBusyError(BrowserBusyError):
    """The caller (a tenant of a shared pool) has its whole allowance running and waiting.

    Unlike :class:`BrowserBusyError`, retrying sooner than its own renders finish does not
    help: the pool is not full, this tenant's share of it is.
    """


class BrowserUnavailableError(RenderkitError):
    """Chromium could not be launched or reached, or died during the render."""

    def __init__(self, message: str, *, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class WorkersBusyError(RenderkitError):
    """Every worker of a CPU pool (OCR, audio encoding, PDF) is busy and its queue is full.

    Like :class:`BrowserBusyError`, the machine is at capacity: retrying after
    ``retry_after`` seconds may succeed. ``pool`` names the pool (``ocr``, ``audio``...).
    """

    def __init__(self, message: str, *, pool: str, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.pool = pool
        self.retry_after = retry_after


class StorageError(RenderkitError):
    """A storage backend failed."""


class ObjectNotFoundError(StorageError, LookupError):
    """No object is stored under ``key``."""

    def __init__(self, message: str, *, key: str) -> None:
        super().__init__(message)
        self.key = key


class StorageUnavailableError(StorageError):
    """The storage backend could not be reached or refused the operation."""


class StorageFullError(StorageError):
    """The storage backend has no space left for the object (disk full, quota exhausted)."""


class ProviderError(RenderkitError):
    """An external provider (speech, LLM...) failed; ``status`` is its HTTP status if any."""

    def __init__(self, message: str, *, provider: str, status: int | None = None) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status


class ProviderUnavailableError(ProviderError):
    """An external provider could not be reached, or is overloaded, after retries."""


class MissingDependencyError(RenderkitError, ImportError):
    """An optional dependency is not installed; the message says which extra to install."""


class ApiError(RenderkitError):
    """A renderkit server answered with an error no other exception describes.

    Raised by :mod:`renderkit.client` only, e.g. for a missing or revoked key (401, 403).

    Attributes:
        status: the HTTP status.
        code: the envelope's machine-readable code (``UNAUTHORIZED``...).
    """

    def __init__(self, message: str, *, status: int, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class AuthenticationError(ApiError):
    """The server refused the API key (401): missing, unknown, expired or revoked."""


class ServerUnreachableError(ProviderUnavailableError, ConnectionError):
    """A renderkit server could not be reached (refused, unresolvable, timed out) after the
    client's retries; also a :class:`ConnectionError`, which is what it is to callers that
    catch the builtin."""


class RateLimitError(ApiError):
    """The key is over its monthly quota or its burst rate (429); retry after ``retry_after``
    seconds (None when the server did not say)."""

    def __init__(
        self, message: str, *, status: int, code: str, retry_after: float | None = None
    ) -> None:
        super().__init__(message, status=status, code=code)
        self.retry_after = retry_after


class JobCancelledError(RenderkitError):
    """A server job asked for its result was cancelled (``DELETE``), so it has none."""

    def __init__(self, message: str, *, job_id: str) -> None:
        super().__init__(message)
        self.job_id = job_id


class JobTimeoutError(RenderkitError, TimeoutError):
    """A server job had not finished when the caller's wait ran out; it keeps running."""

    def __init__(self, message: str, *, job_id: str, timeout: float) -> None:
        super().__init__(message)
        self.job_id = job_id
        self.timeout = timeout


class WebhookVerificationError(RenderkitError, ValueError):
    """A webhook's signature headers are missing, stale or do not match the secret: the
    request did not come from the server (or was replayed), and must be refused."""
