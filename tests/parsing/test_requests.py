"""ParseRequest: building one from bytes checks its arguments like the constructor."""

from __future__ import annotations

import pytest

from renderkit import InvalidRequestError, ParseRequest


def test_parse_request_from_bytes_refuses_what_is_not_bytes_naming_file() -> None:
    with pytest.raises(InvalidRequestError) as info:
        ParseRequest.from_bytes("not bytes", "application/pdf")  # type: ignore[arg-type]
    assert [e.field for e in info.value.errors] == ["file"]
    with pytest.raises(InvalidRequestError) as schema:
        ParseRequest.from_bytes(b"%PDF", "application/pdf", schema=[1])  # type: ignore[arg-type]
    assert [e.field for e in schema.value.errors] == ["schema"]
