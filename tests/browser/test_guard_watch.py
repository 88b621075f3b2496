"""A watched page (behind the egress proxy, not intercepted), with its events played by hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest

from renderkit.browser._guard import PageGuard
from renderkit.core.netpolicy import UrlPolicy

pytestmark = pytest.mark.anyio

MAIN_FRAME = object()
SUBFRAME = object()


@attrs.define
class FakeRequest:
    url: str
    frame: object = MAIN_FRAME
    navigation: bool = True

    def is_navigation_request(self) -> bool:
        return self.navigation


@attrs.define
class FakeResponse:
    request: FakeRequest
    headers: dict[str, str] = attrs.Factory(dict)

    @property
    def url(self) -> str:
        return self.request.url


@attrs.define
class FakePage:
    """Keeps the listeners the guard registers, to fire them as Playwright would."""

    main_frame: object = MAIN_FRAME
    listeners: dict[str, list[Callable[[Any], None]]] = attrs.Factory(dict)

    def on(self, event: str, listener: Callable[[Any], None]) -> None:
        self.listeners.setdefault(event, []).append(listener)

    def fire(self, event: str, payload: object) -> None:
        for listener in self.listeners.get(event, []):
            listener(payload)


def _watched() -> tuple[PageGuard, FakePage]:
    page = FakePage()
    guard = PageGuard(policy=UrlPolicy(), page=page)  # type: ignore[arg-type]
    guard.watch()
    return guard, page


async def test_a_navigation_the_proxy_answered_as_refused_is_reported() -> None:
    guard, page = _watched()
    refused = FakeRequest("http://10.0.0.1/admin")
    page.fire("response", FakeResponse(refused, {"x-renderkit-blocked": "1"}))
    assert await guard.refused_navigation() == "http://10.0.0.1/admin"
    assert not guard.intercepting


async def test_a_frame_or_a_subresource_refused_by_the_proxy_is_no_navigation_of_the_page() -> None:
    guard, page = _watched()
    blocked = {"x-renderkit-blocked": "1"}
    page.fire("response", FakeResponse(FakeRequest("http://10.0.0.1/", frame=SUBFRAME), blocked))
    page.fire("response", FakeResponse(FakeRequest("http://10.0.0.1/a", navigation=False), blocked))
    page.fire("requestfailed", FakeRequest("https://10.0.0.1/", frame=SUBFRAME))
    assert await guard.refused_navigation() is None


async def test_a_failed_navigation_counts_only_when_the_policy_refuses_its_address() -> None:
    guard, page = _watched()
    page.fire("requestfailed", FakeRequest("https://93.184.216.34:9/"))
    assert await guard.refused_navigation() is None
    page.fire("requestfailed", FakeRequest("https://10.0.0.1/"))
    page.fire("requestfailed", FakeRequest("https://93.184.216.34/"))
    assert await guard.refused_navigation() == "https://10.0.0.1/"


async def test_only_the_newest_failed_navigations_are_judged() -> None:
    guard, page = _watched()
    page.fire("requestfailed", FakeRequest("https://10.0.0.1/"))
    for n in range(100):
        page.fire("requestfailed", FakeRequest(f"https://93.184.216.34/{n}"))
    assert len(guard.failed_navigations) < 100
    assert await guard.refused_navigation() is None


async def test_a_new_capture_forgets_the_last_ones_navigations() -> None:
    guard, page = _watched()
    page.fire("requestfailed", FakeRequest("https://10.0.0.1/"))
    page.fire(
        "response", FakeResponse(FakeRequest("http://10.0.0.2/"), {"x-renderkit-blocked": "1"})
    )
    guard.forget_navigations()
    assert await guard.refused_navigation() is None
