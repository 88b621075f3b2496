"""The client address: the TCP peer unless a trusted proxy says otherwise."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from renderkit import ConfigurationError
from renderkit_server.clientaddr import PRIVATE_NETWORKS, TrustedProxies, client_address

PROXY = TrustedProxies(["10.0.0.0/8", "2001:db8:ff::/48"])


def test_an_untrusted_peer_is_the_client_whatever_its_headers_say() -> None:
    assert client_address("203.0.113.9", ["198.51.100.1"], PROXY) == "203.0.113.9"
    assert client_address("127.0.0.1", ["198.51.100.1"], TrustedProxies()) == "127.0.0.1"


def test_behind_a_trusted_proxy_the_right_most_untrusted_hop_is_the_client() -> None:
    # The client wrote 1.1.1.1; the first proxy appended 198.51.100.7, the real client.
    header = ["1.1.1.1, 198.51.100.7, 10.0.0.2"]
    assert client_address("10.0.0.1", header, PROXY) == "198.51.100.7"


def test_several_forwarded_for_headers_are_read_as_one_list_in_order() -> None:
    headers = ["6.6.6.6", "198.51.100.7", "10.0.0.3"]
    assert client_address("10.0.0.1", headers, PROXY) == "198.51.100.7"


def test_a_malformed_hop_stops_the_walk_at_the_last_trusted_hop() -> None:
    assert client_address("10.0.0.1", ["198.51.100.7, garbage, 10.0.0.2"], PROXY) == "10.0.0.2"
    assert client_address("10.0.0.1", ["198.51.100.7, "], PROXY) == "10.0.0.1"


def test_a_trusted_peer_without_the_header_is_the_client() -> None:
    assert client_address("10.0.0.1", [], PROXY) == "10.0.0.1"


def test_when_every_hop_is_trusted_the_left_most_hop_is_the_client() -> None:
    assert client_address("10.0.0.1", ["10.9.9.9, 10.0.0.2"], PROXY) == "10.9.9.9"


def test_ports_brackets_and_ipv4_mapped_peers_are_understood() -> None:
    assert client_address("10.0.0.1", ["198.51.100.7:4711"], PROXY) == "198.51.100.7"
    assert client_address("10.0.0.1", ["[2001:db8::5]:443"], PROXY) == "2001:db8::5"
    assert client_address("::ffff:10.0.0.1", ["198.51.100.7"], PROXY) == "198.51.100.7"
    assert client_address("2001:db8:ff::1", ["2001:db8::5"], PROXY) == "2001:db8::5"


def test_a_peer_that_is_no_ip_address_is_returned_as_is() -> None:
    assert client_address("testclient", ["198.51.100.7"], PROXY) == "testclient"
    assert client_address(None, ["198.51.100.7"], PROXY) == "unknown"


def test_the_private_ranges_alias_trusts_loopback_and_private_networks() -> None:
    proxies = TrustedProxies(PRIVATE_NETWORKS)
    assert client_address("127.0.0.1", ["198.51.100.7"], proxies) == "198.51.100.7"
    assert client_address("192.168.1.2", ["198.51.100.7, 172.16.0.9"], proxies) == "198.51.100.7"
    assert client_address("198.51.100.8", ["1.1.1.1"], proxies) == "198.51.100.8"


def test_a_trusted_proxy_entry_that_is_no_network_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        TrustedProxies(["10.0.0.0/33"])


@given(st.lists(st.text(max_size=30), max_size=5))
def test_a_client_behind_a_trusted_proxy_can_never_choose_an_address_the_proxy_did_not_see(
    client_written: list[str],
) -> None:
    # Whatever the client prepends, the proxy-appended hop (or the proxy itself) wins.
    header = [", ".join([*client_written, "198.51.100.7"])]
    assert client_address("10.0.0.1", header, PROXY) == "198.51.100.7"
