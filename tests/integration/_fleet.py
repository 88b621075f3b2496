"""Start the parts of a multi-replica deployment on 127.0.0.1, and stop them without leaks.

Shared by ``tests/integration`` and ``bench/bench_fleet.py``: a remote Chromium
(``--remote-debugging-port``), a Browserless 2.x installed from npm into a cache that
survives between runs, and ``renderkit serve`` replicas. Every process is started in its own
session so that stopping it also stops what it started (Chromium's zygote and renderers,
Browserless's browsers). Logs go to files, shown when something does not start.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
BROWSERLESS_PACKAGE = "@browserless.io/browserless"
BROWSERLESS_VERSION = "2.42.0"
_BROWSERLESS_ENTRY = Path("node_modules/@browserless.io/browserless/build/index.js")
SRC = Path(__file__).resolve().parents[2] / "src"


class BrowserlessUnavailableError(RuntimeError):
    """npm (or its registry) cannot be reached, so Browserless cannot be installed here."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cache_dir() -> Path:
    """Where slow installs are kept between runs: ``$RENDERKIT_TEST_CACHE`` or ~/.cache."""
    configured = os.environ.get("RENDERKIT_TEST_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "renderkit-test"


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status < 500)
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except OSError:
        return False


def _tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class Process:
    """A child process in its own session, logging to a file."""

    def __init__(
        self,
        name: str,
        command: list[str],
        *,
        log: Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=dict(env) if env is not None else None,
                cwd=cwd,
                start_new_session=True,
            )

    def wait_until(self, ready: Callable[[], bool], *, timeout: float) -> None:
        """Poll ``ready`` until it holds; raise with the log's tail if the process dies first.

        Raises:
            RuntimeError: the process exited, or ``ready`` did not hold within ``timeout``.
        """
        deadline = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None:
                msg = f"{self.name} exited with status {self.proc.returncode}:\n{_tail(self.log)}"
                raise RuntimeError(msg)
            if time.monotonic() > deadline:
                self.stop()
                msg = f"{self.name} not ready within {timeout} s:\n{_tail(self.log)}"
                raise RuntimeError(msg)
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL the whole session at once (a crash, as far as its clients can tell)."""
        self._signal_group(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self, *, grace: float = 10.0) -> None:
        """SIGTERM the session, SIGKILL whatever is left after ``grace`` seconds."""
        if self.proc.poll() is None:
            self._signal_group(signal.SIGTERM)
            with suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=grace)
        # Children (renderers, browsers) may outlive a leader that exited on SIGTERM.
        self._signal_group(signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.wait(timeout=10)

    def _signal_group(self, sig: signal.Signals) -> None:
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)


# -- a plain remote Chromium -------------------------------------------------------------


class RemoteChromium:
    """``chromium --remote-debugging-port`` on a fixed port, so it can be killed and restarted."""

    def __init__(self, work: Path, *, executable: str = CHROMIUM) -> None:
        self.port = free_port()
        self.work = work
        self.executable = executable
        self.process: Process | None = None

    @property
    def url(self) -> str:
        """The endpoint renderkit connects to (``RENDERKIT_BROWSER_CDP_URL``)."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Launch it and wait until its DevTools endpoint answers."""
        profile = self.work / f"profile-{time.monotonic_ns()}"
        command = [
            self.executable,
            "--headless",
            "--remote-debugging-address=127.0.0.1",
            f"--remote-debugging-port={self.port}",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "about:blank",
        ]
        if os.geteuid() == 0:
            # A test fixture as root: Chromium refuses to run sandboxed as root. renderkit's own
            # pool runs it as an unprivileged user instead (RENDERKIT_BROWSER_USER).
            command.insert(1, "--no-sandbox")
        self.process = Process("chromium", command, log=self.work / "chromium.log")
        self.process.wait_until(lambda: _http_ok(f"{self.url}/json/version"), timeout=30)

    def kill(self) -> None:
        """SIGKILL the browser and all its processes."""
        if self.process is not None:
            self.process.kill()
            self.process = None

    def stop(self) -> None:
        """Stop it if it runs."""
        if self.process is not None:
            self.process.stop(grace=5)
            self.process = None


# -- Browserless from npm ----------------------------------------------------------------


def install_browserless(cache: Path) -> Path:
    """Install Browserless into ``cache`` once (about 1.5 min, 584 MB); return its npm root.

    Raises:
        BrowserlessUnavailableError: npm is missing or its registry does not answer.
        RuntimeError: npm answered but the install failed.
    """
    root = cache / f"browserless-{BROWSERLESS_VERSION}"
    if (root / _BROWSERLESS_ENTRY).exists():
        return root
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        msg = "node and npm are not installed (Debian packages nodejs and npm)"
        raise BrowserlessUnavailableError(msg)
    spec = f"{BROWSERLESS_PACKAGE}@{BROWSERLESS_VERSION}"
    try:
        subprocess.run([npm, "view", spec, "version"], check=True, capture_output=True, timeout=60)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        msg = f"the npm registry does not answer for {spec}"
        raise BrowserlessUnavailableError(msg) from exc
    # Install beside the final place and rename it: an interrupted install is never taken
    # for a complete one.
    partial = cache / f"browserless-{BROWSERLESS_VERSION}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    (partial / "package.json").write_text('{"name": "renderkit-browserless", "private": true}')
    env = {
        **os.environ,
        # Debian's Chromium is used; nothing may download a browser.
        "PUPPETEER_SKIP_DOWNLOAD": "1",
        "PUPPETEER_SKIP_CHROMIUM_DOWNLOAD": "1",
        "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
    }
    result = subprocess.run(
        [npm, "install", spec, "--no-audit", "--no-fund"],
        cwd=partial,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if result.returncode != 0 or not (partial / _BROWSERLESS_ENTRY).exists():
        msg = f"npm install {spec} failed:\n{result.stderr[-2000:]}"
        raise RuntimeError(msg)
    shutil.rmtree(root, ignore_errors=True)
    partial.rename(root)
    return root


def _prepare_browserless(root: Path, executable: str) -> tuple[Path, Path]:
    """The routes folder and Playwright browsers folder Browserless needs (see the notes)."""
    browsers = json.loads((root / "node_modules/playwright-core/browsers.json").read_text())
    revision = next(b["revision"] for b in browsers["browsers"] if b["name"] == "chromium")
    # Its Chromium backend asks playwright-core where Chromium is: point that at Debian's.
    pw_browsers = root / "pw-browsers"
    chrome = pw_browsers / f"chromium-{revision}" / "chrome-linux64" / "chrome"
    chrome.parent.mkdir(parents=True, exist_ok=True)
    if not chrome.is_symlink():
        chrome.symlink_to(executable)
    # Only the routes it has a browser for, or start-up fails on the missing ones.
    routes = root / "bl-routes"
    routes.mkdir(exist_ok=True)
    built = root / "node_modules/@browserless.io/browserless/build/routes"
    for name in ("chromium", "management"):
        link = routes / name
        if not link.is_symlink():
            link.symlink_to(built / name)
    return routes, pw_browsers


class Browserless:
    """A running Browserless 2.x; :attr:`url` is what renderkit connects to."""

    def __init__(self, root: Path, work: Path, *, concurrent: int = 4) -> None:
        self.port = free_port()
        self.token = "integration-browserless-token"
        routes, pw_browsers = _prepare_browserless(root, CHROMIUM)
        (work / "bl-data").mkdir(parents=True, exist_ok=True)  # it refuses a missing one
        env = {
            **os.environ,
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "TOKEN": self.token,
            "CONCURRENT": str(concurrent),
            "QUEUED": "20",
            "TIMEOUT": "120000",
            "DATA_DIR": str(work / "bl-data"),
            "ROUTES": str(routes),
            "PLAYWRIGHT_BROWSERS_PATH": str(pw_browsers),
        }
        # Started from the npm root: a management route reads node_modules relative to cwd.
        self.process = Process(
            "browserless",
            ["node", str(_BROWSERLESS_ENTRY)],
            log=work / "browserless.log",
            env=env,
            cwd=root,
        )
        self.process.wait_until(
            lambda: _http_ok(f"http://127.0.0.1:{self.port}/active?token={self.token}"),
            timeout=60,
        )

    @property
    def url(self) -> str:
        """The CDP endpoint, token included."""
        return f"ws://127.0.0.1:{self.port}?token={self.token}"

    def stop(self) -> None:
        """Stop Browserless and the browsers it launched."""
        self.process.stop(grace=5)


# -- renderkit replicas ------------------------------------------------------------------


class Replica:
    """One ``renderkit serve`` process; :attr:`url` is its base URL."""

    def __init__(self, name: str, work: Path, env: Mapping[str, str]) -> None:
        self.name = name
        self.port = free_port()
        data_dir = work / name
        data_dir.mkdir(parents=True, exist_ok=True)
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("RENDERKIT_")}
        full_env = {
            **inherited,
            "PYTHONPATH": str(SRC),
            "RENDERKIT_DATA_DIR": str(data_dir),
            **env,
        }
        command = [sys.executable, "-m", "renderkit.cli", "serve", "--port", str(self.port)]
        self.process = Process(
            f"replica {name}", command, log=work / f"replica-{name}.log", env=full_env
        )
        self.process.wait_until(lambda: _http_ok(f"{self.url}/api/health"), timeout=60)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Graceful stop (in-flight requests finish), then anything left is killed."""
        self.process.stop(grace=15)


@contextmanager
def replicas(work: Path, envs: Mapping[str, Mapping[str, str]]) -> Iterator[list[Replica]]:
    """Start one replica per entry of ``envs`` (name -> its RENDERKIT_* variables)."""
    started: list[Replica] = []
    try:
        for name, env in envs.items():
            started.append(Replica(name, work, env))
        yield started
    finally:
        for replica in started:
            replica.stop()
