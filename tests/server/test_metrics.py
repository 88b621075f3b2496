"""GET /metrics: traffic moves the counters by exactly what was sent; multiprocess mode."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from litestar.testing import AsyncTestClient
from prometheus_client.parser import text_string_to_metric_families

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings

from .conftest import issue_key

pytestmark = pytest.mark.anyio

# cache: false: every call renders, so the render counters move by exactly the calls sent.
IMAGE = {"template": "og-card", "data": {"title": "Metrics"}, "cache": False}


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of an exposition, by name and labels."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(scraped: dict, name: str, **labels: str) -> float:
    return scraped.get((name, frozenset(labels.items())), 0.0)


async def test_requests_renders_and_rejections_move_by_exactly_the_traffic_sent(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(
        make_settings(plans={"starter": {"burst_per_minute": 3}}),
        browser=FakeBrowser(),
        mailer=MemoryMailer(),
    )
    async with AsyncTestClient(app) as client:
        key = await issue_key(client)
        before = samples((await client.get("/metrics")).text)
        statuses = []
        for _ in range(4):  # 3 within the burst limit, the 4th refused
            response = await client.post("/api/image", json=IMAGE, headers={"X-SVC-Key": key})
            statuses.append(response.status_code)
        bad = await client.post(
            "/v1/image", json={**IMAGE, "fullpage": 1}, headers={"X-SVC-Key": key}
        )
        await client.get("/files/images/nope.png")
        after = samples((await client.get("/metrics")).text)
    assert statuses == [200, 200, 200, 429]
    assert bad.status_code == 400  # refused before any quota is looked at

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    requests = "renderkit_http_requests_total"
    assert moved(requests, method="POST", route="/api/image", status="200") == 3
    assert moved(requests, method="POST", route="/api/image", status="429") == 1
    assert moved(requests, method="POST", route="/v1/image", status=str(bad.status_code)) == 1
    assert moved(requests, method="GET", route="/metrics", status="200") == 1
    latency = "renderkit_http_request_duration_seconds_count"
    assert moved(latency, method="POST", route="/api/image") == 4
    renders = "renderkit_renders_total"
    assert moved(renders, kind="image", backend="FakeBrowser", outcome="ok") == 3
    assert (
        moved("renderkit_render_duration_seconds_count", kind="image", backend="FakeBrowser") == 3
    )
    rejected = "renderkit_limit_rejections_total"
    assert moved(rejected, limit="rate", metric="burst_per_minute") == 1
    # No raw paths or keys as labels: the file request is labelled by its template.
    text = str(after)
    assert "nope.png" not in text and key not in text
    assert value(after, "renderkit_workers_max", pool="ocr") >= 1
    assert value(after, "renderkit_workers_queued", pool="audio") == 0


async def test_a_metrics_token_is_required_as_a_bearer_when_set(
    make_settings: Callable[..., Settings],
) -> None:
    app = create_app(
        make_settings(metrics_token="scrape-me"), browser=FakeBrowser(), mailer=MemoryMailer()
    )
    async with AsyncTestClient(app) as client:
        missing = await client.get("/metrics")
        wrong = await client.get("/metrics", headers={"Authorization": "Bearer nope"})
        right = await client.get("/metrics", headers={"Authorization": "Bearer scrape-me"})
    assert (missing.status_code, wrong.status_code, right.status_code) == (401, 401, 200)
    assert missing.json()["code"] == "UNAUTHORIZED"
    assert "scrape-me" not in missing.text
    assert right.headers["content-type"].startswith("text/plain; version=0.0.4")


def test_with_a_multiprocess_dir_one_scrape_reports_every_process(tmp_path: Path) -> None:
    """Two processes count requests into one PROMETHEUS_MULTIPROC_DIR; a third scrapes both."""
    shared = tmp_path / "prom"
    shared.mkdir()
    worker = textwrap.dedent(
        """
        import sys
        from renderkit_server.metrics import Metrics
        metrics = Metrics(multiprocess_dir=sys.argv[1])
        for _ in range(int(sys.argv[2])):
            metrics.observe_request("GET", "/api/health", 200, 0.01)
        metrics.workers_busy.labels("ocr").set(int(sys.argv[2]))
        if sys.argv[3] == "stop":
            metrics.close()  # a stopping worker's live gauges go
        """
    )
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared)}
    for count, end in ((2, "stay"), (3, "stay"), (5, "stop")):
        subprocess.run(
            [sys.executable, "-c", worker, str(shared), str(count), end],
            env=env,
            check=True,
            timeout=60,
        )
    scrape = (
        "import sys; from renderkit_server.metrics import Metrics; "
        "sys.stdout.write(Metrics(multiprocess_dir=sys.argv[1]).exposition().decode())"
    )
    out = subprocess.run(
        [sys.executable, "-c", scrape, str(shared)],
        env=env,
        check=True,
        timeout=60,
        capture_output=True,
        text=True,
    ).stdout
    scraped = samples(out)
    assert (
        value(
            scraped,
            "renderkit_http_requests_total",
            method="GET",
            route="/api/health",
            status="200",
        )
        == 10
    )
    # livesum: the gauges of the processes that did not stop, summed.
    assert value(scraped, "renderkit_workers_busy", pool="ocr") == 5
