"""How often the egress proxy looks a host up: once per browser context, never shared.

A context's door remembers the address it vetted for each host, so the page's further
connections there need no lookup; a capture that checked its URL before taking the context
hands the door that answer, so the page's host is looked up once, not twice. The name used
here exists only in the test's resolver and answers 127.0.0.1, an allowed network.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator, Iterator
from typing import Any

import attrs
import pytest

from renderkit import screenshot
from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser._egress import EgressProxy
from renderkit.core.netpolicy import UrlPolicy
from tests._server import LocalServer, serve

pytestmark = pytest.mark.anyio

ALLOWED = UrlPolicy(allow_networks=("127.0.0.0/8",))


@attrs.define
class Lookups:
    """The hosts looked up; each lookup answers the next of ``answers`` (127.0.0.1 once
    they run out)."""

    hosts: list[str] = attrs.Factory(list)
    answers: list[str] = attrs.Factory(list)


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> Lookups:
    seen = Lookups()

    async def resolve(self: UrlPolicy, host: str, url: str, field: str | None) -> list[Any]:
        seen.hosts.append(host)
        return [ipaddress.ip_address(seen.answers.pop(0) if seen.answers else "127.0.0.1")]

    monkeypatch.setattr(UrlPolicy, "_resolve", resolve)
    return seen


@pytest.fixture
def site() -> Iterator[LocalServer]:
    with serve() as server:
        server.routes["/"] = (200, "text/html", b"<!doctype html><p>page</p>")
        yield server


@pytest.fixture
async def proxy(lookups: Lookups) -> AsyncIterator[EgressProxy]:
    """A started egress proxy for the allowed networks, its lookups seen by ``lookups``."""
    started = EgressProxy(ALLOWED)
    await started.start()
    try:
        yield started
    finally:
        await started.aclose()


async def _get(proxy_port: int, site: LocalServer, host: str = "page.test") -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy_port)
    target = f"http://{host}:{site.port}/"
    writer.write(f"GET {target} HTTP/1.1\r\nHost: {host}:{site.port}\r\n\r\n".encode())
    await writer.drain()
    async with asyncio.timeout(5):
        reply = await reader.read()
    writer.close()
    return reply.split(b"\r\n", 1)[0]


async def test_a_door_looks_a_host_up_once_for_all_its_contexts_connections(
    lookups: Lookups, site: LocalServer, proxy: EgressProxy
) -> None:
    door = await proxy.door()
    statuses = [await _get(door.port, site) for _ in range(3)]
    assert statuses == [b"HTTP/1.0 200 OK"] * 3
    assert lookups.hosts == ["page.test"]
    assert site.hits == ["/"] * 3


async def test_another_context_and_the_browsers_own_listener_look_the_host_up_themselves(
    lookups: Lookups, site: LocalServer, proxy: EgressProxy
) -> None:
    first, second = await proxy.door(), await proxy.door()
    await _get(first.port, site)
    await _get(second.port, site)  # nothing one context vetted serves another
    await _get(proxy.port, site)
    await _get(proxy.port, site)  # the browser's own traffic: every request looked up
    assert lookups.hosts == ["page.test"] * 4
    assert site.hits == ["/"] * 4


async def test_a_door_connects_to_the_address_it_vetted_first_whatever_the_name_answers_later(
    lookups: Lookups, site: LocalServer, proxy: EgressProxy
) -> None:
    # A rebinding name: allowed first, then a private address the policy refuses. The door
    # keeps connecting to the vetted address; a new context's door refuses the new answer.
    lookups.answers.extend(["127.0.0.1", "10.1.2.3"])
    door = await proxy.door()
    kept = [await _get(door.port, site) for _ in range(2)]
    other = await proxy.door()
    refused = await _get(other.port, site)
    assert kept == [b"HTTP/1.0 200 OK"] * 2
    assert refused == b"HTTP/1.1 403 Forbidden"
    assert other.refused_since(0) == ["page.test"]


async def test_a_refused_host_is_not_remembered_and_is_looked_up_again(
    lookups: Lookups, site: LocalServer, proxy: EgressProxy
) -> None:
    lookups.answers.extend(["10.1.2.3", "127.0.0.1"])
    door = await proxy.door()
    statuses = [await _get(door.port, site) for _ in range(2)]
    assert statuses == [b"HTTP/1.1 403 Forbidden", b"HTTP/1.0 200 OK"]
    assert lookups.hosts == ["page.test"] * 2


async def test_a_door_told_the_vetted_address_of_its_pages_host_looks_nothing_up(
    lookups: Lookups, site: LocalServer, proxy: EgressProxy
) -> None:
    door = await proxy.door()
    door.remember(f"http://Page.Test.:{site.port}/path", [ipaddress.ip_address("127.0.0.1")])
    status = await _get(door.port, site)
    assert status == b"HTTP/1.0 200 OK"
    assert lookups.hosts == []


@pytest.mark.browser
async def test_a_screenshot_of_a_named_host_looks_the_name_up_once(
    lookups: Lookups, site: LocalServer
) -> None:
    config = BrowserConfig(slots=1, spare_contexts=1, allow_networks=("127.0.0.0/8",))
    async with ChromiumPool(config) as pool:
        result = await screenshot({"url": f"http://page.test:{site.port}/"}, browser=pool)
    assert result.http_status == 200
    # The check before the capture; the page's request went to the address it vetted.
    assert lookups.hosts == ["page.test"]
    assert site.hits == ["/"]
