"""The client's error table is the inverse of the server's: every envelope the server
builds from a library exception comes back as that exception (or the one sharing its code)."""

from __future__ import annotations

import httpx
import pytest

from renderkit import (
    ApiError,
    BrowserBusyError,
    FieldError,
    InvalidRequestError,
    RateLimitError,
    WorkersBusyError,
)
from renderkit.client._errors import error_from_response
from renderkit_server import app as _app  # registers the quota errors  # noqa: F401
from renderkit_server.errors import _TABLE, envelope


def _answer(exc: BaseException) -> httpx.Response:
    described = envelope(exc)
    assert described is not None
    status, body, headers = described
    return httpx.Response(status, json=body, headers=headers)


@pytest.mark.parametrize("exc_type", sorted(_TABLE, key=lambda t: t.__name__), ids=str)
def test_every_server_code_maps_back_to_its_exception(exc_type: type[BaseException]) -> None:
    status, code = _TABLE[exc_type]
    response = httpx.Response(status, json={"error": "boom", "code": code, "status": status})

    mapped = error_from_response(response)

    if exc_type is WorkersBusyError:  # shares OVERLOADED with a full browser pool
        assert isinstance(mapped, BrowserBusyError)
    elif status == 429 and exc_type.__module__.startswith("renderkit_server"):
        assert isinstance(mapped, RateLimitError) and mapped.code == code
    elif exc_type.__module__.startswith("renderkit_server") or code == "INTERNAL_ERROR":
        assert isinstance(mapped, ApiError) and (mapped.status, mapped.code) == (status, code)
    else:
        assert isinstance(mapped, exc_type), (code, mapped)
    assert "boom" in str(mapped)


def test_field_errors_come_back_with_their_fields_and_suggestions() -> None:
    exc = InvalidRequestError(
        [FieldError(field="qualty", message="is not a known field", suggestion="quality")]
    )

    mapped = error_from_response(_answer(exc))

    assert isinstance(mapped, InvalidRequestError)
    assert [(e.field, e.suggestion) for e in mapped.errors] == [("qualty", "quality")]


def test_a_429_without_a_known_code_is_a_rate_limit_error_with_retry_after() -> None:
    response = httpx.Response(429, json={"error": "slow down"}, headers={"Retry-After": "7"})

    mapped = error_from_response(response)

    assert isinstance(mapped, RateLimitError) and mapped.retry_after == 7.0


def test_a_non_json_error_is_an_api_error_with_its_status() -> None:
    mapped = error_from_response(httpx.Response(502, text="<html>bad gateway</html>"))

    assert isinstance(mapped, ApiError) and mapped.status == 502
