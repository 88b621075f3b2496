"""No body stalls the server: a real uvicorn on 127.0.0.1 answers each hostile JSON body in
time linear in its size, and answers ``/api/health`` within 100 ms while it reads one.

Finding 1 of the adversarial review: 63 KiB of ``\\"`` sent to the unauthenticated key
route held every request for 35 s (the depth check was quadratic and ran on the event loop).
"""

from __future__ import annotations

import contextlib
import gc
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import attrs
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.mail import MemoryMailer
from renderkit_server.settings import Settings
from tests._hostile_json import fill, hostile_bodies
from tests._uvicorn import served_in_thread

ADMIN = "admin-token-for-stall-tests-0123456"
MIB = 1024 * 1024
LIMIT = 10 * MIB  # the default body limit
#: How long a body of n MB may take to be answered: linear, with room for a loaded machine.
BASE_SECONDS = 1.0
SECONDS_PER_MB = 1.0
HEALTH_SECONDS = 0.1
#: The worst tenth of the probes (at least one) may exceed HEALTH_SECONDS up to this: on a
#: loaded machine the operating system alone delays a thread by tens of milliseconds now and
#: then (measured at load 18 on two cores: 74 ms for a probe beside an 8-byte body, 80 ms for
#: an idle sleep loop). A stall lasts as long as the body's decoding: seconds.
OUTLIER_SECONDS = 0.5


@attrs.frozen
class Served:
    """The served app, a key for it, and a client made beforehand: building a client loads
    the CA bundle, which holds the GIL that this process shares with the server."""

    url: str
    key: str
    client: httpx.Client
    prober: httpx.Client


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A served app and a key for it."""
    settings_ = Settings(
        data_dir=Path(tmp_path_factory.mktemp("data")),
        admin_token=ADMIN,
        secret="stall-test-secret-long-enough-0123",
        key_issue_per_hour=1_000_000,
        max_body_bytes=LIMIT,
    )
    app = create_app(settings_, browser=FakeBrowser(), mailer=MemoryMailer())
    # The served app shares this process (and its GIL) with every earlier test's objects: a
    # full garbage collection set off by a big body would walk all of them, a pause of a
    # second late in the whole suite that a server process never has. Frozen, the collector
    # walks only what this module makes.
    gc.collect()
    gc.freeze()
    with (
        served_in_thread(app) as url,
        httpx.Client(base_url=url, timeout=120) as client,
        httpx.Client(base_url=url, timeout=10) as prober,
    ):
        response = client.post(
            "/api/keys/generate",
            json={"email": "stalls@example.com", "plan": "vip"},
            headers={"Authorization": f"Bearer {ADMIN}"},
        )
        assert response.status_code == 200, response.text
        try:
            yield Served(url, response.json()["key"], client, prober)
        finally:
            gc.unfreeze()


@contextlib.contextmanager
def health_probes(client: httpx.Client) -> Iterator[list[float]]:
    """Probe ``/api/health`` every 20 ms (at most 1,500 times) while the block runs; yields
    the latencies, filled in when the block ends."""
    latencies: list[float] = []
    stop = threading.Event()
    client.get("/api/health")  # connected before the body is sent

    def probe() -> None:
        for _ in range(1500):
            started = time.perf_counter()
            response = client.get("/api/health")
            latencies.append(time.perf_counter() - started)
            assert response.status_code == 200
            if stop.wait(0.02):
                return

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    try:
        yield latencies
    finally:
        stop.set()
        thread.join(15)


def _post(server: Served, path: str, body: bytes) -> tuple[int, float]:
    headers = {
        "X-SVC-Key": server.key,
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    started = time.perf_counter()
    response = server.client.post(path, content=body, headers=headers)
    return response.status_code, time.perf_counter() - started


def _assert_answered_quickly(server: Served, path: str, body: bytes) -> int:
    with health_probes(server.prober) as latencies:
        status, seconds = _post(server, path, body)
    allowed = BASE_SECONDS + SECONDS_PER_MB * len(body) / MIB
    assert status < 500, status
    assert seconds < allowed, f"{len(body)} bytes answered in {seconds:.2f} s"
    assert latencies, "no health probe was answered"
    ordered = sorted(latencies)
    outliers = max(1, len(ordered) // 10)
    usual, worst = ordered[:-outliers], ordered[-1]
    slow = [f"{seconds * 1000:.0f} ms" for seconds in usual if seconds >= HEALTH_SECONDS]
    assert not slow, f"/api/health took {', '.join(slow)} during the body"
    assert worst < OUTLIER_SECONDS, f"/api/health took {worst * 1000:.0f} ms during the body"
    return status


FINDING_1 = b'{"email": "' + b'\\"' * (63 * 1024 // 2) + b'"}'
FINDING_1_UNTERMINATED = b'{"email": "' + b'\\"' * (63 * 1024 // 2)


@pytest.mark.parametrize("body", [FINDING_1, FINDING_1_UNTERMINATED], ids=["closed", "open"])
def test_finding_1s_63_kib_of_escaped_quotes_is_answered_fast_and_health_stays_fast(
    server: Served, body: bytes
) -> None:
    status = _assert_answered_quickly(server, "/api/keys/generate", body)
    assert status == 400


#: Bodies at the body limit, each the worst case of one part of reading JSON.
LIMIT_BODIES = hostile_bodies(LIMIT)


@pytest.mark.parametrize("path", ["/api/keys/generate", "/api/mcp", "/api/image"])
def test_a_body_of_a_few_megabytes_of_escaped_quotes_is_answered_in_linear_time(
    server: Served, path: str
) -> None:
    _assert_answered_quickly(server, path, fill(b'\\"', 2 * MIB, head=b'"'))


@pytest.mark.parametrize("name", list(LIMIT_BODIES))
def test_a_hostile_body_at_the_size_limit_is_answered_in_linear_time(
    server: Served, name: str
) -> None:
    assert len(LIMIT_BODIES[name]) <= LIMIT
    status = _assert_answered_quickly(server, "/api/keys/generate", LIMIT_BODIES[name])
    assert status == 400


_PIECES = [b"[", b"]", b"{", b"}", b'"', b"\\", b'\\"', b",", b":", b"1", b"x", b"\xff", b" "]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    unit=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6).map(b"".join),
    size=st.sampled_from([64 * 1024 + 1, 512 * 1024, 2 * MIB]),
    head=st.sampled_from([b"", b'"', b'{"email": "', b"[" * 64, json.dumps({"a": 1}).encode()]),
    path=st.sampled_from(["/api/keys/generate", "/api/mcp"]),
)
def test_any_repeated_shape_is_answered_in_linear_time_with_health_fast(
    server: Served, unit: bytes, size: int, head: bytes, path: str
) -> None:
    _assert_answered_quickly(server, path, fill(unit, size, head=head))
