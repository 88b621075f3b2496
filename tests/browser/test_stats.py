"""Browser stats: totals over members, and endpoints that never show their credentials."""

from __future__ import annotations

import pytest

from renderkit.browser import BrowserConfig, BrowserStats, ChromiumPool, MemberStats
from renderkit.browser import redact_endpoint as redact


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("ws://10.0.0.5:3000?token=s3cret", "ws://10.0.0.5:3000?token=***"),
        (
            "wss://u:s3cret@browsers.example:443/chromium?token=s3cret&launch={}",
            "wss://***@browsers.example:443/chromium?token=***&launch=***",
        ),
        ("http://127.0.0.1:9222", "http://127.0.0.1:9222"),
        ("ws://[::1]:9222/devtools/browser/abc", "ws://[::1]:9222/devtools/browser/abc"),
        ("ws://host:1/?s3cret", "ws://host:1/?***"),
        ("ws://host:1/?a=1&&s3cret&b=", "ws://host:1/?a=***&***&b=***"),
        ("ws://host:99999/?token=s3cret", "<unparseable endpoint>"),
    ],
)
def test_endpoints_are_shown_without_credentials_or_query_values(url: str, shown: str) -> None:
    assert redact(url) == shown
    assert "s3cret" not in redact(url)


def test_totals_count_slots_of_healthy_members_and_load_of_all() -> None:
    stats = BrowserStats(
        members=(
            MemberStats(endpoint="a", healthy=True, slots=2, busy=2, queued=1),
            MemberStats(endpoint="b", healthy=False, slots=3, busy=1, queued=0),
        ),
        waiting=4,
    )
    assert (stats.slots, stats.busy, stats.queued, stats.healthy) == (2, 3, 5, 1)


def test_a_pool_reports_itself_as_one_member_with_its_endpoint_redacted() -> None:
    pool = ChromiumPool(BrowserConfig(cdp_url="ws://10.0.0.5:3000?token=s3cret", slots=3))
    stats = pool.stats()
    assert stats.members == (
        MemberStats(
            endpoint="ws://10.0.0.5:3000?token=***", healthy=False, slots=3, busy=0, queued=0
        ),
    )
    assert ChromiumPool().stats().members[0].endpoint == "local"
