"""Chromium never outlives the process that launched it, and leftovers are reaped at start.

Chromium does not notice its parent dying: a server killed with SIGKILL used to leave the
browser, its zygotes and renderers running under pid 1. ``prctl(PR_SET_PDEATHSIG)`` cannot
be set on Chromium itself (the kernel clears it when ``setpriv`` switches to the browser
account, and it fires when the *thread* that forked exits, not the process), so the pool
starts Chromium under a small warden instead:

- the warden forks Chromium into a new process group, which all its helpers join (the
  warden, which stays as the server's account, is not in it);
- it holds the read end of a pipe whose only write end stays with the server, which the
  kernel closes when the server dies however it dies; on that EOF, on SIGTERM, or when
  Chromium exits, the warden SIGKILLs that whole group and exits; on the first two it also
  removes the browser's throwaway profile (a server killed with SIGKILL never gets to: each
  left one in the temporary directory, its cookies and cache included);
- every process of the tree carries :data:`OWNER_VARIABLE` in its environment (inherited
  down to the renderers), naming the server by pid and start time.

:func:`reap_orphans` kills, at launch, any process carrying that variable whose server is
gone (no such pid, or a pid reused by a newer process): provably a browser of ours that
outlived its owner (a warden killed with SIGKILL by the OOM killer, say). Processes of a
live server, this one or another on the machine, are left alone.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from pathlib import Path

__all__ = ["OWNER_VARIABLE", "WARDEN_SCRIPT", "owner_marker", "reap_orphans"]

logger = logging.getLogger("renderkit.browser")

#: The environment variable marking every process of a pool-launched Chromium tree.
OWNER_VARIABLE = "RENDERKIT_BROWSER_OWNER"

# Run as ``python -I -S -c WARDEN_SCRIPT <fd> <profile> <command...>``: standard library
# only, and no site packages (fast to start, nothing of the server's imported).
WARDEN_SCRIPT = """
import os, select, shutil, signal, sys
fd = int(sys.argv[1])
profile = sys.argv[2]
child = os.fork()
if child == 0:
    os.setpgid(0, 0)
    os.close(fd)
    try:
        os.execv(sys.argv[3], sys.argv[3:])
    finally:
        os._exit(127)
try:
    os.setpgid(child, child)  # also here, so stop() finds the group either way
except OSError:
    pass  # the child already did (and exec'd)
def stop(*_, remove=True):
    try:
        os.killpg(child, signal.SIGKILL)
    except OSError:
        pass
    if remove:
        try:
            os.waitpid(child, 0)  # dead: nothing of the browser writes to the profile now
        except OSError:
            pass
        shutil.rmtree(profile, ignore_errors=True)
    os._exit(0)
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, stop)
while True:
    ready, _, _ = select.select([fd], [], [], 0.2)
    if ready and not os.read(fd, 1):
        stop()
    if os.waitpid(child, os.WNOHANG)[0]:
        # Chromium exited on its own: the server is alive, reads its log from the profile,
        # and removes it.
        stop(remove=False)
"""


def owner_marker(pid: int) -> str | None:
    """The value of :data:`OWNER_VARIABLE` for the process ``pid`` (None if it is gone)."""
    started = _start_time(pid)
    return None if started is None else f"{pid}:{started}"


def reap_orphans(proc: Path = Path("/proc")) -> int:
    """SIGKILL every process marked as a pool's browser whose owner is gone; how many.

    Processes we may not read (another account's, when not root) are skipped.
    """
    killed = 0
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        marker = _marker_of(entry)
        if marker is None or _owner_alive(marker, proc):
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(int(entry.name), signal.SIGKILL)
            killed += 1
    if killed:
        logger.warning("killed %d browser process(es) left by a server that died", killed)
    return killed


def _marker_of(entry: Path) -> str | None:
    try:
        environ = (entry / "environ").read_bytes()
    except OSError:
        return None
    prefix = f"{OWNER_VARIABLE}=".encode()
    for item in environ.split(b"\0"):
        if item.startswith(prefix):
            return item[len(prefix) :].decode(errors="replace")
    return None


def _owner_alive(marker: str, proc: Path) -> bool:
    pid, _, started = marker.partition(":")
    if not pid.isdigit():
        return True  # not a marker we wrote: not provably ours
    return _start_time(int(pid), proc) == started


def _start_time(pid: int, proc: Path = Path("/proc")) -> str | None:
    """The process's start time in clock ticks since boot (stat field 22), or None."""
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its end.
    return stat[stat.rindex(")") + 2 :].split()[19]
