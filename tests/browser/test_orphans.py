"""Chromium never outlives the server that launched it, and a new pool reaps leftovers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from renderkit.browser import BrowserConfig, ChromiumPool
from renderkit.browser._warden import OWNER_VARIABLE, owner_marker

from ._owners import command_line, in_group, marked_by

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

_OWNER = """
import asyncio, os, sys
from renderkit import render_image
from renderkit.browser import BrowserConfig, ChromiumPool

async def main():
    pool = ChromiumPool(BrowserConfig(slots=1))
    await pool.__aenter__()
    await render_image({"template": "og-card", "data": {"title": "x"}}, browser=pool)
    await render_image({"template": "custom", "html": "<p>x</p>"}, browser=pool)
    # Both browsers of the pool: the template browser and the page browser.
    print(pool.browser_pid, pool.page_browser_pid, flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def _profile_of(browser_pid: int) -> Path:
    arguments = command_line(browser_pid)
    prefix = "--user-data-dir="
    return Path(next(a for a in arguments if a.startswith(prefix))[len(prefix) :])


def test_no_browser_process_or_profile_survives_its_server_killed_with_sigkill() -> None:
    env = {**os.environ, "PYTHONPATH": str(Path("src").resolve())}
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert owner.stdout is not None
        browser_pids = [int(pid) for pid in owner.stdout.readline().split()]
        assert len(set(browser_pids)) == 2
        marked = marked_by(owner.pid)
        assert set(browser_pids) <= set(marked)
        assert len(marked) >= 4  # each browser and its warden
        for browser_pid in browser_pids:
            # A browser leads its group: itself and its helpers.
            assert len(in_group(browser_pid)) > 2
        profiles = [_profile_of(pid) for pid in browser_pids]
        assert all((profile / "Default").is_dir() for profile in profiles)
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=5)
        deadline = time.monotonic() + 5
        while (
            left := marked_by(owner.pid) + [p for pid in browser_pids for p in in_group(pid)]
        ) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert left == []
        # The profile (cookies, cache, the log) goes with the browser.
        while any(p.exists() for p in profiles) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [p for p in profiles if p.exists()] == []
    finally:
        owner.kill()
        owner.wait(timeout=5)
        if owner.stdout is not None:
            owner.stdout.close()


async def test_a_starting_pool_kills_what_a_dead_predecessor_left_and_nothing_else() -> None:
    dead = subprocess.Popen(["sleep", "30"])
    dead_marker = owner_marker(dead.pid)
    dead.kill()
    dead.wait(timeout=5)
    assert dead_marker is not None
    leftover = subprocess.Popen(["sleep", "60"], env={OWNER_VARIABLE: dead_marker})
    living = subprocess.Popen(
        ["sleep", "60"], env={OWNER_VARIABLE: owner_marker(os.getpid()) or ""}
    )
    try:
        async with ChromiumPool(BrowserConfig(slots=1)) as pool:
            assert pool.browser_pid is not None
            assert leftover.wait(timeout=5) == -signal.SIGKILL
            assert living.poll() is None
    finally:
        for process in (leftover, living):
            process.kill()
            process.wait(timeout=5)
