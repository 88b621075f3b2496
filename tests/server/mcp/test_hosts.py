"""DNS-rebinding protection: the Host and Origin values the MCP endpoint answers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from renderkit_server.mcp.hosts import allowed_hosts, check_origin, host_allowed
from renderkit_server.mcp.protocol import INVALID_REQUEST, RpcError
from renderkit_server.settings import Settings


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:8000", "127.0.0.1:9", "[::1]", "[::1]:8000", "LOCALHOST"]
)
def test_loopback_hosts_are_always_served(host: str) -> None:
    assert host_allowed(host, [])


@pytest.mark.parametrize(
    ("host", "allowed", "served"),
    [
        ("api.example.com", ["api.example.com"], True),
        ("api.example.com:8443", ["api.example.com"], True),  # a name without port: any port
        ("api.example.com:8443", ["api.example.com:443"], False),  # a port pins the port
        ("api.example.com:443", ["api.example.com:443"], True),
        ("evil.example.com", ["api.example.com"], False),
        ("evil.example.com", ["*"], True),
        ("localhost.evil.example.com", [], False),
    ],
)
def test_other_hosts_are_served_only_when_configured(
    host: str, allowed: list[str], served: bool
) -> None:
    assert host_allowed(host, allowed) is served


def test_the_public_url_host_is_served_besides_the_configured_ones(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(
        mcp_allowed_hosts=("Agents.Example.com",), public_url="https://api.example.com:8443"
    )

    assert allowed_hosts(settings) == ["agents.example.com", "api.example.com:8443"]


def test_a_cors_origin_is_accepted_from_a_browser(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(cors_origins=("https://app.example.com",))

    check_origin({"host": "localhost", "origin": "https://app.example.com"}, settings)


@pytest.mark.parametrize(
    "headers",
    [
        {"host": "evil.example.com"},
        {"host": "localhost", "origin": "https://evil.example.com"},
        {"host": "localhost", "origin": "file://localhost"},  # only web origins name a host
    ],
)
def test_a_foreign_host_or_origin_is_refused_with_403(
    make_settings: Callable[..., Settings], headers: dict[str, str]
) -> None:
    with pytest.raises(RpcError) as info:
        check_origin(headers, make_settings())

    assert (info.value.code, info.value.http_status) == (INVALID_REQUEST, 403)
