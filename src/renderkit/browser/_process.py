"""Launching a local Chromium that the pool then drives over the DevTools protocol.

The pool owns the process (rather than letting Playwright launch it) so that a hung browser
can be killed outright, and so that local and remote (``connect_over_cdp``) modes share one
code path.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import attrs

from renderkit.browser._account import (
    BrowserAccount,
    browser_environment,
    current_user,
    profile_parent,
    resolve,
)
from renderkit.browser._warden import OWNER_VARIABLE, WARDEN_SCRIPT, owner_marker, reap_orphans
from renderkit.core.errors import BrowserUnavailableError

__all__ = [
    "BEGIN_FRAME_CONTROL",
    "CARD_TILES",
    "UNLIMITED_FRAMES",
    "ChromiumProcess",
    "chromium_args",
    "launch_chromium",
]

#: Seconds a killed Chromium gets to be reaped before the pool stops waiting for it.
_REAP_SECONDS = 5.0

logger = logging.getLogger("renderkit.browser")

# Flags for a quiet, deterministic headless browser on a server. Background networking is
# off because a renderer must not phone home (and on closed networks those connections fail
# noisily). --font-render-hinting=slight fixes the glyph shapes rather than leaving them to the
# machine's fontconfig: the headless shell obeys it, and "slight" is what new-headless
# Chromium (which ignores the flag) drew every card and PDF with, so both binaries render the
# same pixels (checked against the reference cards in tests/image/test_looks.py).
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
    # only through a proxy (none speaks UDP here), so it gets no route at all. Chromium 156
    # honours only the first spelling (measured: STUN still left with the "force" one alone);
    # the second is kept for builds that read it.
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-breakpad",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--metrics-recording-only",
    "--mute-audio",
    "--no-first-run",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--force-color-profile=srgb",
    "--font-render-hinting=slight",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)

#: Draw a frame when one is asked for rather than on the next 60 Hz tick (see
#: ``BrowserConfig.frame_rate_limit``): a capture waits for a fresh frame.
UNLIMITED_FRAMES = "--disable-frame-rate-limit"

#: Frames drawn only when a page made with ``enableBeginFrameControl`` asks for one
#: (``HeadlessExperimental.beginFrame``), every compositor stage (raster, image decodes) run
#: before the draw. Browser-wide: a page made without begin-frame control then never answers
#: ``Page.captureScreenshot``, so only a browser of warm template pages gets these.
BEGIN_FRAME_CONTROL = ("--enable-begin-frame-control", "--run-all-compositor-stages-before-draw")

#: Raster tiles of 2048x768 instead of 256 px squares, for a browser of warm template pages:
#: a 1200x630 card is drawn from 2 tiles rather than 16 (4 rather than 50 at 2x). The display
#: compositor's software renderer pays for every tile it draws, and the renderer for every
#: tile it rasters; a card never scrolls, so small tiles buy nothing. Measured (issue #30,
#: og-cards one at a time, interleaved): 5-9% less wall and CPU time per card at 1x and 2x;
#: one tile per card was slower at 2x (its raster no longer shared between threads). 2048
#: wide leaves no seam down a card at 1.5x, where a zoomed begin-frame page and an emulated
#: capture would otherwise round differently along it (tests/browser/test_split.py).
#: Browser-wide, so only template browsers get it: a stranger's page scrolls.
CARD_TILES = ("--default-tile-width=2048", "--default-tile-height=768")


# Each browser context a pool opens is a new window of the new headless mode, and used for
# one page: the spare renderer kept for its next navigation, and the omnibox popups (WebUI
# pages of a window's toolbar, which headless never shows) each started a renderer of their
# own. Measured on Chromium 156: 3 renderers per context with them, 1 without, and the
# browser process's work per screenshot from 260 to 150 ms of CPU.
_DISABLED_FEATURES = (
    "Translate",
    "MediaRouter",
    "OptimizationHints",
    "AcceptCHFrame",
    "SpareRendererForSitePerProcess",
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
    "WebUIOmniboxFullPopup",
)


def chromium_args(
    user_data_dir: str,
    *,
    extra: Sequence[str] = (),
    sandbox: bool,
    local_network_checks: bool = True,
) -> list[str]:
    """The command-line flags for a pool-managed Chromium.

    ``local_network_checks=False`` turns off Chromium's own public-to-local request block,
    for pools whose policy allows private networks: a document renderkit fetched for the
    page (one carrying a screenshot's credentials) has no address Chromium knows and counts
    as public, so its requests to a private origin would otherwise fail.
    """
    disabled = [
        *_DISABLED_FEATURES,
        *(() if local_network_checks else ("LocalNetworkAccessChecks",)),
    ]
    # One flag: Chromium keeps only the last --disable-features it is given.
    args = [
        *_BASE_ARGS,
        f"--disable-features={','.join(disabled)}",
        f"--user-data-dir={user_data_dir}",
    ]
    if not sandbox:
        args.append("--no-sandbox")
    args.extend(extra)
    args.append("about:blank")
    return args


@attrs.define(kw_only=True)
class ChromiumProcess:
    """A running Chromium and the DevTools WebSocket URL to reach it."""

    #: The warden (``_warden``): Chromium is its child, leading its own process group.
    process: asyncio.subprocess.Process
    ws_url: str
    user_data_dir: Path
    #: Whether Chromium's own sandbox is on (no ``--no-sandbox``).
    sandboxed: bool
    #: The account Chromium runs as.
    user: str
    #: The server's end of the warden's lifeline pipe; closing it stops the browser.
    lifeline: int = -1

    #: The Chromium browser process's pid, also its process group's id (0 until known).
    pid: int = 0

    def _kill_group(self) -> None:
        if self.pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)

    def kill_now(self) -> None:
        """SIGKILL the browser and every helper in its process group, without waiting.

        For a browser that no longer answers: a stopped or deadlocked process would sit
        through the SIGTERM grace period of :meth:`kill` for nothing.
        """
        self._kill_group()

    async def kill(self) -> None:
        """Stop the browser and every helper, then the warden, and remove the profile.

        The profile is thrown away, so there is nothing for a graceful shutdown to save.
        """
        # Helpers (zygote, renderers) share the browser's process group; none may outlive it.
        self._kill_group()
        if self.process.returncode is None:
            # asyncio.timeout, not wait_for, which on 3.11 can swallow the caller's
            # cancellation; a SIGKILLed process is reaped at once, but never waited on for ever.
            try:
                self.process.send_signal(signal.SIGTERM)
                async with asyncio.timeout(2):
                    await self.process.wait()
            except (TimeoutError, ProcessLookupError):
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(_REAP_SECONDS):
                        await self.process.wait()
        if self.lifeline >= 0:
            os.close(self.lifeline)
            self.lifeline = -1
        await asyncio.to_thread(shutil.rmtree, self.user_data_dir, True)


class _ExitedAtStart(BrowserUnavailableError):
    """Chromium exited before opening DevTools (an unusable sandbox, typically)."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


async def launch_chromium(
    executable: str,
    *,
    extra_args: Sequence[str] = (),
    timeout: float = 30.0,
    user: str | int | None = "nobody",
    sandbox: bool = True,
    local_network_checks: bool = True,
) -> ChromiumProcess:
    """Start Chromium with a fresh profile and wait for its DevTools endpoint.

    As root, Chromium runs as ``user`` (through ``setpriv``) with its sandbox on; if it
    exits at once with the sandbox (no user namespaces, say), it is started once more
    without the sandbox, still as ``user``. ``user=None`` keeps root, where Chromium only
    runs with ``--no-sandbox``; so does a machine without ``setpriv``. Each is logged.

    Args:
        executable: the Chromium binary.
        extra_args: more flags.
        timeout: seconds allowed for the DevTools endpoint to appear.
        user: the account to run as when we are root (name or uid); ignored otherwise.
        sandbox: try the sandbox first; False goes straight to ``--no-sandbox`` (a
            relaunch on a machine where the sandbox already failed).
        local_network_checks: keep Chromium's public-to-local request block (see
            :func:`chromium_args`).

    Raises:
        BrowserUnavailableError: the executable is missing, exits, or does not open its
            DevTools endpoint within ``timeout`` seconds.
        ConfigurationError: ``user`` names no account on this machine.
    """
    found = shutil.which(executable)
    if found is None:
        msg = f"Chromium not found ({Path(executable).name}); run `renderkit doctor`"
        raise BrowserUnavailableError(msg)
    # Browsers of a server that died (kill -9 of the warden too) go before a new one starts.
    await asyncio.to_thread(reap_orphans)
    euid = os.geteuid()
    account = resolve(user, euid=euid)
    setpriv = shutil.which("setpriv") if account is not None else None
    if account is not None and setpriv is None:
        logger.warning("setpriv (util-linux) not found: Chromium runs as root without its sandbox")
        account = None
    if euid == 0 and account is None:
        logger.warning("Chromium runs as root, so without its sandbox (browser user: %s)", user)
        sandbox = False
    launch = functools.partial(
        _start,
        [*account.launcher(setpriv), found] if account and setpriv else [found],
        extra_args=extra_args,
        local_network_checks=local_network_checks,
        timeout=timeout,
        account=account,
        user=account.name if account is not None else current_user(euid),
    )
    if sandbox:
        try:
            return await launch(sandbox=True)
        except _ExitedAtStart as exc:
            logger.warning(
                "Chromium exited at start with its sandbox on (%s); "
                "starting it without the sandbox, still unprivileged",
                exc.reason,
            )
    return await launch(sandbox=False)


async def _start(
    command: list[str],
    *,
    extra_args: Sequence[str],
    local_network_checks: bool,
    timeout: float,
    account: BrowserAccount | None,
    user: str,
    sandbox: bool,
) -> ChromiumProcess:
    profile = Path(tempfile.mkdtemp(prefix="renderkit-chromium-", dir=profile_parent(account)))
    if account is not None:
        os.chown(profile, account.uid, account.gid)
    log_path = profile / "chromium.log"
    args = chromium_args(
        str(profile),
        extra=extra_args,
        sandbox=sandbox,
        local_network_checks=local_network_checks,
    )
    env = browser_environment(os.environ, home=profile)
    env[OWNER_VARIABLE] = owner_marker(os.getpid()) or ""
    # The warden keeps the read end; the write end is not inheritable (os.pipe), so no
    # other child of the server holds it open past the server's death.
    lifeline_read, lifeline = os.pipe()
    try:
        with log_path.open("wb") as log:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-I",
                "-S",
                "-c",
                WARDEN_SCRIPT,
                str(lifeline_read),
                str(profile),
                *command,
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=log,
                env=env,
                pass_fds=(lifeline_read,),
                # Away from the server's terminal and signals; Chromium gets its own group.
                start_new_session=True,
            )
    except BaseException:
        os.close(lifeline)
        raise
    finally:
        os.close(lifeline_read)
    started = ChromiumProcess(
        process=process,
        ws_url="",
        user_data_dir=profile,
        sandboxed=sandbox,
        user=user,
        lifeline=lifeline,
    )
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.returncode is not None:
            break
        if port_file.exists():
            lines = port_file.read_text().split()
            if len(lines) >= 2:
                started.ws_url = f"ws://127.0.0.1:{lines[0]}{lines[1]}"
                started.pid = _child_of(process.pid)
                logger.info(
                    "chromium started pid=%s user=%s sandbox=%s", started.pid, user, sandbox
                )
                return started
        await asyncio.sleep(0.02)
    tail = log_path.read_text(errors="replace")[-2000:] if log_path.exists() else ""
    logger.error("chromium failed to start: %s", tail)
    exited = process.returncode is not None
    await started.kill()
    msg = "Chromium did not start (see the renderkit.browser log)"
    if exited:
        raise _ExitedAtStart(msg, reason=_reason(tail))
    raise BrowserUnavailableError(msg)


def _child_of(pid: int) -> int:
    """The warden's one child, Chromium (0 if it is already gone)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int(children.read_text().split()[0])
    return 0


def _reason(log_tail: str) -> str:
    lines = [line for line in log_tail.splitlines() if line.strip()]
    about_sandbox = [line for line in lines if "sandbox" in line.lower()]
    return (about_sandbox or lines or ["no output"])[-1][-300:]
