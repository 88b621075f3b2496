"""``GET /api/usage`` for a key holder and the operator's export, from the charging ledger."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import AsyncIterator, Callable

import pytest
from litestar.testing import AsyncTestClient

from renderkit import RenderError
from renderkit.image.signed_url import public_key_id
from renderkit.testing import FakeBrowser, FakeExtractor, FakeSpeechProvider
from renderkit.testing._fake_browser import RecordedRender
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.operations import OPERATIONS
from renderkit_server.settings import Settings

from .conftest import ADMIN, issue_key
from .test_operations import PAYLOADS

pytestmark = pytest.mark.anyio

IMAGE = {"template": "og-card", "data": {"title": "Usage"}, "scale": 1}
PDF = {"template": "invoice", "data": {"invoice_number": "U-1"}}


def lineage(key: str) -> str:
    return public_key_id(key).partition(".")[0]


class FailOnDemand:
    """A FakeBrowser handler failing every render while ``failing`` is set."""

    def __init__(self) -> None:
        self.failing = False

    def __call__(self, render: RecordedRender) -> None:
        if self.failing:
            msg = "the browser crashed"
            raise RenderError(msg)


@pytest.fixture
def breaker() -> FailOnDemand:
    return FailOnDemand()


@pytest.fixture
async def client(
    make_settings: Callable[..., Settings], breaker: FailOnDemand
) -> AsyncIterator[AsyncTestClient]:
    app = create_app(make_settings(), browser=FakeBrowser(breaker), mailer=MemoryMailer())
    async with AsyncTestClient(app) as test_client:
        yield test_client


async def _calls(client: AsyncTestClient, key: str) -> None:
    """Two images and one PDF, all different (a render cache hit would be free)."""
    headers = {"X-SVC-Key": key}
    second = {**IMAGE, "data": {"title": f"Usage of {key[-6:]}"}}
    for body, path in ((IMAGE, "/api/image"), (second, "/v1/image"), (PDF, "/api/pdf-gen")):
        response = await client.post(path, json=body, headers=headers)
        assert response.status_code == 200, response.text


async def test_usage_without_a_key_is_401(client: AsyncTestClient) -> None:
    for path in ("/api/usage", "/v1/usage"):
        response = await client.get(path)
        assert response.status_code == 401
        assert response.json()["code"] == "UNAUTHORIZED"


async def test_usage_reports_what_the_keys_calls_were_charged_and_what_is_left(
    client: AsyncTestClient,
) -> None:
    key = await issue_key(client)
    await _calls(client, key)

    response = await client.get("/api/usage", headers={"Authorization": f"Bearer {key}"})

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["plan"] == "starter"
    assert re.fullmatch(r"[0-9]{4}-[0-9]{2}", body["period"])
    assert body["reset_at"].endswith("-01T00:00:00Z")
    assert body["metrics"]["images"] == {
        "used": 2,
        "in_flight": 0,
        "limit": 5000,
        "remaining": 4998,
    }
    assert body["metrics"]["pdfs"]["used"] == 1
    assert body["metrics"]["audio_minutes"] == {
        "used": 0,
        "in_flight": 0,
        "limit": 60,
        "remaining": 60,
    }
    assert (await client.get("/v1/usage", headers={"X-SVC-Key": key})).json() == body


async def test_a_failed_call_does_not_appear_in_usage(
    client: AsyncTestClient, breaker: FailOnDemand
) -> None:
    key = await issue_key(client)
    await _calls(client, key)

    breaker.failing = True
    fresh = {**IMAGE, "data": {"title": "never rendered"}}
    failed = await client.post("/api/image", json=fresh, headers={"X-SVC-Key": key})
    breaker.failing = False

    assert failed.status_code >= 500
    body = (await client.get("/api/usage", headers={"X-SVC-Key": key})).json()
    assert body["metrics"]["images"] == {
        "used": 2,
        "in_flight": 0,
        "limit": 5000,
        "remaining": 4998,
    }


@pytest.mark.parametrize("name", list(OPERATIONS))
async def test_every_operation_commits_its_charge_and_leaves_nothing_in_flight(
    make_settings: Callable[..., Settings], name: str
) -> None:
    app = create_app(
        make_settings(),
        browser=FakeBrowser(),
        mailer=MemoryMailer(),
        speech=FakeSpeechProvider(),
        extractor=FakeExtractor({"total": 24.0}, document_type="receipt"),
    )
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        done = await client.post(f"/api/{name}", json=PAYLOADS[name], headers={"X-SVC-Key": key})
        assert done.status_code == 200, done.text

        metrics = (await client.get("/api/usage", headers={"X-SVC-Key": key})).json()["metrics"]

    metric = OPERATIONS[name].metric
    assert metrics[metric]["used"] == done.json()["credits_used"] > 0
    assert all(m["in_flight"] == 0 for m in metrics.values())
    if name == "audio":  # leased at the estimate, committed at the measured length
        measured = round(done.json()["duration_seconds"] / 60, 3)
        assert metrics["audio_minutes"]["used"] == pytest.approx(measured, abs=0.001)


async def test_the_admin_export_needs_the_admin_token(client: AsyncTestClient) -> None:
    key = await issue_key(client)
    for headers in ({}, {"Authorization": f"Bearer {key}"}, {"Authorization": "Bearer nope"}):
        response = await client.get("/api/admin/usage?month=2026-11", headers=headers)
        assert response.status_code == 401


async def test_the_admin_export_lists_every_key_lineage_as_json_and_csv(
    client: AsyncTestClient,
) -> None:
    first = await issue_key(client, email="one@example.com")
    second = await issue_key(client, email="two@example.com")
    await _calls(client, first)
    own = {**IMAGE, "data": {"title": "the second key's own"}}
    ok = await client.post("/api/image", json=own, headers={"X-SVC-Key": second})
    assert ok.status_code == 200
    admin = {"Authorization": f"Bearer {ADMIN}"}
    month = (await client.get("/api/usage", headers={"X-SVC-Key": first})).json()["period"]

    as_json = await client.get(f"/api/admin/usage?month={month}", headers=admin)
    as_csv = await client.get(f"/v1/admin/usage?month={month}&format=csv", headers=admin)

    assert as_json.status_code == 200, as_json.text
    assert as_json.json() == {
        "period": month,
        "keys": {
            lineage(first): {"images": 2, "pdfs": 1},
            lineage(second): {"images": 1},
        },
    }
    assert as_csv.status_code == 200, as_csv.text
    assert as_csv.headers["content-type"].startswith("text/csv")
    assert "attachment" in as_csv.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
    assert sorted((r["key_id"], r["metric"], r["used"], r["period"]) for r in rows) == sorted(
        [
            (lineage(first), "images", "2", month),
            (lineage(first), "pdfs", "1", month),
            (lineage(second), "images", "1", month),
        ]
    )


@pytest.mark.parametrize("query", ["month=2026-13", "month=26-11", "month=2026-11&format=xml"])
async def test_a_bad_month_or_format_is_400(client: AsyncTestClient, query: str) -> None:
    response = await client.get(
        f"/api/admin/usage?{query}", headers={"Authorization": f"Bearer {ADMIN}"}
    )
    assert response.status_code == 400
