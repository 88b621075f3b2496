"""One meaning per rate-limit header, on a 200, a burst 429 and a monthly 429 alike.

``X-RateLimit-*`` is always the monthly quota of the call's metric; ``RateLimit-Policy`` and
``RateLimit`` a fixed-window limit (the burst limit); ``Retry-After`` is on every 429.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .conftest import issue_key

pytestmark = pytest.mark.anyio

IMAGE = {"template": "og-card", "data": {"title": "Headers"}, "cache": False}
BURST_POLICY = '"burst_per_minute";q=2;w=60'
_WINDOW = re.compile(r'^"burst_per_minute";r=(\d+);t=(\d+)$')
_MONTHLY = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")
_WINDOW_HEADERS = ("RateLimit-Policy", "RateLimit")


def window(response: Any) -> tuple[int, int]:
    """``RateLimit``'s remaining and seconds to reset."""
    match = _WINDOW.match(response.headers["ratelimit"])
    assert match, response.headers.get("ratelimit")
    return int(match[1]), int(match[2])


async def call(client: AsyncTestClient[Any], key: str) -> Any:
    return await client.post("/api/image", json=IMAGE, headers={"X-SVC-Key": key})


async def test_a_200_a_burst_429_and_a_monthly_429_give_each_header_one_meaning(
    make_settings: Callable[..., Settings],
) -> None:
    plans = {"starter": {"images": 1, "burst_per_minute": 2}}
    app = create_app(make_settings(plans=plans), browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        ok = await call(client, key)
        monthly = await call(client, key)  # burst 2/2 used; the monthly quota of 1 refuses
        burst = await call(client, key)  # the burst refuses before the quota is checked

    assert ok.status_code == 200, ok.text
    # X-RateLimit-*: the monthly images quota, after this call.
    assert [ok.headers[h] for h in _MONTHLY[:2]] == ["1", "0"]
    assert re.fullmatch(r"\d{4}-\d\d-01T00:00:00Z", ok.headers["x-ratelimit-reset"])
    # RateLimit-*: the burst window, after this call.
    assert ok.headers["ratelimit-policy"] == BURST_POLICY
    assert window(ok)[0] == 1 and 0 <= window(ok)[1] <= 60
    assert "retry-after" not in ok.headers

    assert monthly.status_code == 429 and monthly.json()["code"] == "QUOTA_EXCEEDED"
    # The same monthly quota, by value: same limit and reset, nothing remaining.
    assert [monthly.headers[h] for h in _MONTHLY] == ["1", "0", ok.headers["x-ratelimit-reset"]]
    assert monthly.json()["retry_at"] == ok.headers["x-ratelimit-reset"]
    assert int(monthly.headers["retry-after"]) > 60  # until next month, not the minute
    assert "ratelimit-policy" not in monthly.headers

    assert burst.status_code == 429 and burst.json()["code"] == "RATE_LIMITED"
    # The same burst policy, by value, now spent; X-RateLimit (the monthly quota) is absent.
    assert burst.headers["ratelimit-policy"] == BURST_POLICY
    assert window(burst) == (0, int(burst.headers["retry-after"]))
    assert 1 <= int(burst.headers["retry-after"]) <= 60
    assert not any(h in burst.headers for h in _MONTHLY)


async def test_a_call_with_no_monthly_limit_never_reports_its_burst_as_x_ratelimit(
    make_settings: Callable[..., Settings],
) -> None:
    plans = {"starter": {"images": None, "burst_per_minute": 2}}
    app = create_app(make_settings(plans=plans), browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        ok = await call(client, await issue_key(client))

    assert ok.status_code == 200, ok.text
    assert ok.headers["ratelimit-policy"] == BURST_POLICY
    assert not any(h in ok.headers for h in _MONTHLY)


async def test_browsers_may_read_every_rate_limit_header(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(cors_origins=("https://app.example",))
    app = create_app(settings, browser=FakeBrowser(), mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        response = await client.post(
            "/api/image",
            json=IMAGE,
            headers={"X-SVC-Key": key, "Origin": "https://app.example"},
        )

    exposed = {
        h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")
    }
    assert {*_MONTHLY, "ratelimit-policy", "ratelimit", "retry-after"} <= exposed


async def test_the_api_reference_describes_each_rate_limit_header_once_and_where_it_is_sent(
    client: AsyncTestClient[Any],
) -> None:
    document = (await client.get("/openapi.json")).json()

    described = document["components"]["headers"]
    monthly = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
    assert set(described) == {*monthly, *_WINDOW_HEADERS, "Retry-After"}
    assert "monthly quota" in described["X-RateLimit-Limit"]["description"]
    assert "burst" in described["RateLimit-Policy"]["description"]
    image = document["paths"]["/api/image"]["post"]["responses"]
    refs = {name: ref["$ref"] for name, ref in image["200"]["headers"].items()}
    assert refs == {
        name: f"#/components/headers/{name}" for name in described if name != "Retry-After"
    }
    assert set(image["429"]["headers"]) == set(described)


async def test_a_free_cache_hit_reports_the_burst_window_and_no_monthly_quota(
    make_settings: Callable[..., Settings],
) -> None:
    plans = {"starter": {"images": 5, "burst_per_minute": 2}}
    app = create_app(make_settings(plans=plans), browser=FakeBrowser(), mailer=MemoryMailer())
    cached = {**IMAGE, "cache": True}
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        miss = await client.post("/api/image", json=cached, headers={"X-SVC-Key": key})
        hit = await client.post("/api/image", json=cached, headers={"X-SVC-Key": key})

    assert (miss.headers["x-cache"], hit.headers["x-cache"]) == ("MISS", "HIT")
    assert miss.headers["x-ratelimit-limit"] == "5"
    assert hit.headers["ratelimit-policy"] == BURST_POLICY
    assert window(hit)[0] == 0  # the hit counted against the burst window
    assert not any(h in hit.headers for h in _MONTHLY)
