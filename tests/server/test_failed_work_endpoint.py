"""Timed-out calls are free but spend the key's failed-work budget, then get 429."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from renderkit import RenderTimeoutError
from renderkit.testing import FakeBrowser, RecordedRender
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .conftest import issue_key

pytestmark = pytest.mark.anyio

HANG = {"template": "custom", "html": "<script>while(true){}</script>"}
TEMPLATE = {"template": "custom", "html": "<p>fine</p>"}


def _hang_on_scripts(render: RecordedRender) -> None:
    if "while(true)" in render.html:
        raise RenderTimeoutError("the document did not finish", timeout=50)


@pytest.fixture
async def served(make_settings: Callable[..., Settings]) -> AsyncIterator[AsyncTestClient[Any]]:
    browser = FakeBrowser(_hang_on_scripts)
    app = create_app(make_settings(), browser=browser, mailer=MemoryMailer())
    async with AsyncTestClient(app) as client:
        yield client


async def _usage(client: AsyncTestClient[Any], key: str) -> dict[str, int]:
    services: Any = client.app.state.services
    return await services.quotas.usage(services.keys.verify(key).key_id)


async def test_a_key_whose_calls_keep_timing_out_is_throttled_with_retry_after(
    served: AsyncTestClient[Any],
) -> None:
    attacker = await issue_key(served, email="a@example.com")
    other = await issue_key(served, email="b@example.com")
    headers = {"X-SVC-Key": attacker}
    # Starter: 120 s per hour; each timed-out call spends its 50 s timeout.
    statuses = [
        (await served.post("/api/pdf-gen", json=HANG, headers=headers)).status_code
        for _ in range(3)
    ]
    assert statuses == [504, 504, 504]
    refused = await served.post("/api/pdf-gen", json=HANG, headers=headers)
    assert refused.status_code == 429, refused.text
    assert refused.json()["code"] == "FAILED_WORK_EXHAUSTED"
    assert 1 <= int(refused.headers["Retry-After"]) <= 3600
    # Even a call that would succeed waits for the window: the key, not the page, is limited.
    assert (await served.post("/api/pdf-gen", json=TEMPLATE, headers=headers)).status_code == 429
    # Uncharged throughout, and another starter key is untouched.
    assert (await _usage(served, attacker)).get("pdfs", 0) == 0
    ok = await served.post("/api/pdf-gen", json=TEMPLATE, headers={"X-SVC-Key": other})
    assert ok.status_code == 200, ok.text
