"""Launching a local Chromium that the pool then drives over the DevTools protocol.

The pool owns the process (rather than letting Playwright launch it) so that a hung browser
can be killed outright, and so that local and remote (``connect_over_cdp``) modes share one
code path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import attrs

from renderkit.core.errors import BrowserUnavailableError

__all__ = ["ChromiumProcess", "chromium_args", "launch_chromium"]

logger = logging.getLogger("renderkit.browser")

# Flags for a quiet, deterministic headless browser on a server. Background networking is
# off because a renderer must not phone home (and on closed networks those connections fail
# noisily); --font-render-hinting=none gives the same glyph shapes on every machine.
_BASE_ARGS = (
    "--headless=new",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--disable-quic",
    # WebRTC sends STUN/TURN over UDP around the egress proxy; with this policy it uses UDP
    # only through a proxy (none speaks UDP here), so it gets no route at all. The "force"
    # spelling is what older Chromium builds read; 156 reads only the other one.
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-breakpad",
    "--disable-features=Translate,MediaRouter,OptimizationHints,AcceptCHFrame",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--metrics-recording-only",
    "--mute-audio",
    "--no-first-run",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--force-color-profile=srgb",
    "--font-render-hinting=none",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


def chromium_args(user_data_dir: str, *, extra: Sequence[str] = (), as_root: bool) -> list[str]:
    """The command-line flags for a pool-managed Chromium."""
    args = [*_BASE_ARGS, f"--user-data-dir={user_data_dir}"]
    if as_root:
        # Chromium's sandbox cannot run as root; containers commonly run as root.
        args.append("--no-sandbox")
    args.extend(extra)
    args.append("about:blank")
    return args


@attrs.define(kw_only=True)
class ChromiumProcess:
    """A running Chromium and the DevTools WebSocket URL to reach it."""

    process: asyncio.subprocess.Process
    ws_url: str
    user_data_dir: Path

    async def kill(self) -> None:
        """Stop the process (SIGKILL after a short grace period) and remove its profile."""
        if self.process.returncode is None:
            try:
                self.process.send_signal(signal.SIGTERM)
                await asyncio.wait_for(self.process.wait(), 2)
            except (TimeoutError, ProcessLookupError):
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                await self.process.wait()
        await asyncio.to_thread(shutil.rmtree, self.user_data_dir, True)


async def launch_chromium(
    executable: str, *, extra_args: Sequence[str] = (), timeout: float = 30.0
) -> ChromiumProcess:
    """Start Chromium with a fresh profile and wait for its DevTools endpoint.

    Raises:
        BrowserUnavailableError: the executable is missing, exits, or does not open its
            DevTools endpoint within ``timeout`` seconds.
    """
    if shutil.which(executable) is None:
        msg = f"Chromium not found ({Path(executable).name}); run `renderkit doctor`"
        raise BrowserUnavailableError(msg)
    profile = Path(tempfile.mkdtemp(prefix="renderkit-chromium-"))
    log_path = profile / "chromium.log"
    args = chromium_args(str(profile), extra=extra_args, as_root=os.geteuid() == 0)
    with log_path.open("wb") as log:
        process = await asyncio.create_subprocess_exec(
            executable,
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.returncode is not None:
            break
        if port_file.exists():
            lines = port_file.read_text().split()
            if len(lines) >= 2:
                ws_url = f"ws://127.0.0.1:{lines[0]}{lines[1]}"
                logger.info("chromium started pid=%s", process.pid)
                return ChromiumProcess(process=process, ws_url=ws_url, user_data_dir=profile)
        await asyncio.sleep(0.02)
    tail = log_path.read_text(errors="replace")[-2000:] if log_path.exists() else ""
    logger.error("chromium failed to start: %s", tail)
    failed = ChromiumProcess(process=process, ws_url="", user_data_dir=profile)
    await failed.kill()
    msg = "Chromium did not start (see the renderkit.browser log)"
    raise BrowserUnavailableError(msg)
