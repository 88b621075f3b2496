"""The request guard on its own, with in-memory routes standing in for Playwright's."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from renderkit.browser._adblock import Blocklist
from renderkit.browser._guard import PageGuard
from renderkit.core.netpolicy import UrlPolicy

pytestmark = pytest.mark.anyio

MAIN_FRAME = object()
SUBFRAME = object()


@attrs.define
class FakePage:
    main_frame: object = MAIN_FRAME


@attrs.define
class FakeRequest:
    url: str
    frame: object = MAIN_FRAME
    navigation: bool = False

    def is_navigation_request(self) -> bool:
        return self.navigation


@attrs.define
class FakeRoute:
    """Records what the guard decided: ``continue`` or ``abort:<reason>``."""

    request: FakeRequest
    outcome: str | None = None

    async def abort(self, reason: str) -> None:
        self.outcome = f"abort:{reason}"

    async def continue_(self) -> None:
        self.outcome = "continue"


@attrs.define
class FakeWebSocket:
    url: str
    outcome: str | None = None

    async def close(self) -> None:
        self.outcome = "closed"

    def connect_to_server(self) -> None:
        self.outcome = "connected"


def _guard(policy: UrlPolicy | None = None, **options: Any) -> PageGuard:
    page: Any = FakePage()
    return PageGuard(policy=policy or UrlPolicy(), page=page, **options)


async def _route(guard: PageGuard, request: FakeRequest) -> str | None:
    route = FakeRoute(request)
    await guard.route(route)  # type: ignore[arg-type]
    return route.outcome


async def test_a_request_to_a_public_address_goes_through() -> None:
    guard = _guard()
    assert await _route(guard, FakeRequest("https://93.184.216.34/logo.png")) == "continue"
    assert guard.blocked == []


async def test_a_request_to_a_private_address_is_aborted_and_recorded() -> None:
    guard = _guard()
    url = "http://169.254.169.254/latest/meta-data/"
    assert await _route(guard, FakeRequest(url)) == "abort:blockedbyclient"
    assert await _route(guard, FakeRequest("file:///etc/passwd")) == "abort:blockedbyclient"
    assert guard.blocked == [url, "file:///etc/passwd"]


async def test_a_document_may_not_navigate_its_own_page_but_its_frames_may_load() -> None:
    guard = _guard(document=True)
    frame = FakeRequest("https://93.184.216.34/embed", frame=SUBFRAME, navigation=True)
    assert await _route(guard, frame) == "continue"
    away = FakeRequest("https://93.184.216.34/elsewhere", navigation=True)
    assert await _route(guard, away) == "abort:blockedbyclient"
    assert guard.navigated_to == "https://93.184.216.34/elsewhere"


async def test_a_page_that_is_not_a_document_navigates_freely() -> None:
    guard = _guard()
    away = FakeRequest("https://93.184.216.34/next", navigation=True)
    assert await _route(guard, away) == "continue"
    assert guard.navigated_to is None


async def test_ad_hosts_are_blocked_only_when_the_screenshot_asked() -> None:
    ads = Blocklist(frozenset({"ads.example"}), third_party=frozenset({"track.example"}))
    # Names that resolve nowhere: a policy allowing every network lets them past DNS.
    anywhere = UrlPolicy(allow_private=True)
    banner = FakeRequest("https://cdn.ads.example/banner.js")
    pixel = FakeRequest("https://track.example/pixel")
    assert await _route(_guard(anywhere), banner) == "continue"
    guard = _guard(anywhere, adblock=ads, page_host="news.example")
    assert await _route(guard, banner) == "abort:blockedbyclient"
    assert await _route(guard, pixel) == "abort:blockedbyclient"
    first_party = _guard(anywhere, adblock=ads, page_host="www.track.example")
    assert await _route(first_party, pixel) == "continue"
    assert guard.ads_blocked == 2
    assert guard.blocked == []  # ads are not policy refusals


async def test_websockets_get_the_same_policy() -> None:
    guard = _guard()
    private = FakeWebSocket("ws://127.0.0.1:9222/devtools/browser")
    public = FakeWebSocket("wss://93.184.216.34/live")
    await guard.websocket(private)  # type: ignore[arg-type]
    await guard.websocket(public)  # type: ignore[arg-type]
    assert (private.outcome, public.outcome) == ("closed", "connected")
    assert guard.blocked == [private.url]
