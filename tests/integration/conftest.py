"""The deployment under test: redis-server, a moto S3 server, Browserless, a remote Chromium
and two ``renderkit serve`` replicas sharing them, all on 127.0.0.1, started once a session.

Each replica's browser is a fleet of both remote browsers (``RENDERKIT_BROWSER_CDP_URL``
names the one it lists first: Browserless for A, the plain Chromium for B, and
``RENDERKIT_BROWSER_CDP_URLS`` adds the other), so either browser can die without stopping
either replica.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

from ..server._redis import redis_server, require_redis_server
from ._fleet import (
    Browserless,
    BrowserlessUnavailableError,
    RemoteChromium,
    Replica,
    cache_dir,
    install_browserless,
    replicas,
)

SECRET = "integration-secret-shared-by-every-replica-0123456789"
ADMIN = "integration-admin-token-0123456789"
#: The pro plan's monthly image quota in this deployment (the test spends it exactly).
PRO_IMAGES = 6
S3 = {"region": "us-east-1", "access_key_id": "testing-key-id", "secret": "testing-secret"}


@pytest.fixture(scope="session")
def fleet_work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fleet")


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    require_redis_server()
    with redis_server() as url:
        yield url


@pytest.fixture(scope="session")
def s3_bucket() -> Iterator[tuple[str, str]]:
    """(endpoint URL, bucket) of a moto S3 server in a thread of this process."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    bucket = f"renderkit-{uuid.uuid4().hex[:12]}"
    client: Any = boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name=S3["region"],
        aws_access_key_id=S3["access_key_id"],
        aws_secret_access_key=S3["secret"],
    )
    client.create_bucket(Bucket=bucket)
    yield endpoint, bucket
    server.stop()


@pytest.fixture(scope="session")
def browserless(fleet_work: Path) -> Iterator[Browserless]:
    try:
        root = install_browserless(cache_dir())
    except BrowserlessUnavailableError as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Browserless is required in CI: {exc}")
        pytest.skip(f"Browserless cannot be installed here: {exc}")
    server = Browserless(root, fleet_work)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chromium(fleet_work: Path) -> Iterator[RemoteChromium]:
    browser = RemoteChromium(fleet_work)
    browser.start()
    yield browser
    browser.stop()


def replica_env(
    *,
    redis_url: str,
    s3_bucket: tuple[str, str],
    cdp_url: str,
    cdp_urls: list[str],
    config: Path,
) -> dict[str, str]:
    """The RENDERKIT_* variables of one replica (docs/deploy.md's compose file matches)."""
    endpoint, bucket = s3_bucket
    return {
        "RENDERKIT_SECRET": SECRET,
        "RENDERKIT_ADMIN_TOKEN": ADMIN,
        "RENDERKIT_REDIS_URL": redis_url,
        "RENDERKIT_STORAGE": "s3",
        "RENDERKIT_S3_BUCKET": bucket,
        "RENDERKIT_S3_ENDPOINT_URL": endpoint,
        "RENDERKIT_S3_REGION": S3["region"],
        "RENDERKIT_S3_ACCESS_KEY_ID": S3["access_key_id"],
        "RENDERKIT_S3_SECRET_ACCESS_KEY": S3["secret"],
        "RENDERKIT_BROWSER_CDP_URL": cdp_url,
        "RENDERKIT_BROWSER_CDP_URLS": ",".join(cdp_urls),
        "RENDERKIT_BROWSER_SLOTS": "2",
        "RENDERKIT_BROWSER_TENANT_QUEUE": "16",
        # The tests' slow page is served on 127.0.0.1; nothing else private is reachable.
        "RENDERKIT_ALLOW_NETWORKS": "127.0.0.1/32",
        "RENDERKIT_CONFIG": str(config),
    }


@pytest.fixture(scope="session")
def fleet(
    fleet_work: Path,
    redis_url: str,
    s3_bucket: tuple[str, str],
    browserless: Browserless,
    chromium: RemoteChromium,
) -> Iterator[list[Replica]]:
    """Replicas A (on Browserless) and B (on the plain Chromium)."""
    config = fleet_work / "renderkit.toml"
    # Pro keys run any number of renders at once here, so only the quota limits them.
    config.write_text(
        f'[plans.pro]\nimages = {PRO_IMAGES}\nburst_per_minute = "unlimited"\n'
        'browser_inflight = "unlimited"\n'
    )
    both = [browserless.url, chromium.url]
    common = {"redis_url": redis_url, "s3_bucket": s3_bucket, "cdp_urls": both, "config": config}
    envs = {
        "a": replica_env(cdp_url=browserless.url, **common),
        "b": replica_env(cdp_url=chromium.url, **common),
    }
    with replicas(fleet_work, envs) as started:
        yield started
