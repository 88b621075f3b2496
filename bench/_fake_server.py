"""Serve create_app with an in-memory browser, for server-overhead benchmarks.

    python bench/_fake_server.py PORT DATA_DIR [peer]

`peer` serves a bare ASGI app answering the same health JSON: the ceiling for this server
stack on this machine.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import uvicorn

from renderkit.testing import FakeBrowser
from renderkit_server.app import create_app
from renderkit_server.settings import Settings


async def bare_app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = json.dumps(
        {"status": "ok", "version": "1.0.0", "uptime_seconds": 1, "services": {}}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    port, data_dir = int(sys.argv[1]), Path(sys.argv[2])
    if len(sys.argv) > 3 and sys.argv[3] == "peer":
        app = bare_app
    else:
        settings = Settings(
            data_dir=data_dir,
            admin_token="bench-admin-token-0123456789",
            plans={
                "starter": {
                    "images": None,
                    "burst_per_minute": None,
                    "jobs_active": None,
                    "batch_size": None,
                }
            },
            # bench_jobs.py names the queue's backend this way (unset: the embedded queue).
            redis_url=os.environ.get("RENDERKIT_REDIS_URL") or None,
            # Both job workers may render at once, as the 2 sync clients bench_jobs.py
            # compares them with (a server keeps half of its slots for sync calls).
            jobs_browser_share=100,
        )
        app = create_app(settings, browser=FakeBrowser())
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
