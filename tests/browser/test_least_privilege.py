"""A server running as root launches Chromium unprivileged, with its sandbox on."""

from __future__ import annotations

import asyncio
import logging
import os
import pwd
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from renderkit import ConfigurationError
from renderkit._doctor import _chromium, _sandbox
from renderkit.browser import BrowserConfig, Capture, ChromiumPool
from renderkit.browser._account import browser_environment, resolve
from renderkit.browser._process import chromium_args

from ..conftest import CHROMIUM, open_image
from ._owners import command_line, in_group

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to switch users")
GREEN = "<body style='margin:0;background:rgb(0,255,0)'></body>"


def _uids(pid: int) -> list[int]:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return [int(n) for n in line.split()[1:]]
    raise AssertionError(f"no Uid line for {pid}")


def _environ(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


def _profile(pid: int) -> Path:
    (flag,) = [a for a in command_line(pid) if a.startswith("--user-data-dir=")]
    return Path(flag.split("=", 1)[1])


async def _render_works(pool: ChromiumPool) -> None:
    png = await pool.capture_document(GREEN, Capture(width=40, height=30))
    assert open_image(png).convert("RGB").getpixel((20, 15)) == (0, 255, 0)


def _unprivileged_namespaces() -> bool:
    """Whether nobody may create user namespaces here, which Chromium's sandbox needs (a
    container's seccomp profile often forbids it)."""
    probe = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--no-new-privs"]
    probe += ["unshare", "--user", "--pid", "--fork", "true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@as_root
@pytest.mark.anyio
@pytest.mark.browser
async def test_as_root_every_browser_process_runs_unprivileged_with_the_sandbox() -> None:
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        await _render_works(pool)
        pid = pool.browser_pid
        assert pid is not None
        if _unprivileged_namespaces():
            assert "--no-sandbox" not in command_line(pid)
            assert pool.sandboxed is True
        else:
            assert pool.sandboxed is False  # the logged fallback, still unprivileged
        members = in_group(pid)
        assert pid in members and len(members) > 1
        for member in members:
            assert 0 not in _uids(member), f"process {member} has a root uid"
        assert set(_uids(pid)) == {pwd.getpwnam("nobody").pw_uid}
        assert pool.browser_user == "nobody"


@as_root
@pytest.mark.anyio
@pytest.mark.browser
async def test_closing_the_pool_stops_the_unprivileged_browser_and_removes_its_profile() -> None:
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        await _render_works(pool)
        pid = pool.browser_pid
        assert pid is not None
        profile = _profile(pid)
        assert profile.stat().st_uid == pwd.getpwnam("nobody").pw_uid
    for _ in range(100):
        if not in_group(pid):
            break
        await asyncio.sleep(0.05)
    assert in_group(pid) == []
    assert not profile.exists()


@as_root
@pytest.mark.anyio
@pytest.mark.browser
async def test_opting_out_keeps_root_without_the_sandbox_and_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="renderkit.browser"):
        async with ChromiumPool(BrowserConfig(slots=1, user=None)) as pool:
            await _render_works(pool)
            pid = pool.browser_pid
            assert pid is not None
            assert _uids(pid)[0] == 0
            assert "--no-sandbox" in command_line(pid)
            assert pool.sandboxed is False
            assert pool.browser_user == "root"
    assert any("without its sandbox" in r.getMessage() for r in caplog.records)


@pytest.fixture
def sandbox_refusing_chromium() -> Iterator[str]:
    """A Chromium that dies at once unless started with --no-sandbox, like one on a kernel
    without user namespaces."""
    folder = Path(tempfile.mkdtemp(prefix="rk-test-"))
    folder.chmod(0o755)  # the browser account must reach it
    script = folder / "chromium"
    script.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" --no-sandbox "*) exec ' + CHROMIUM + ' "$@";; esac\n'
        'echo "FATAL: No usable sandbox!" >&2\nexit 1\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    yield str(script)
    script.unlink()
    folder.rmdir()


@pytest.mark.anyio
@pytest.mark.browser
async def test_an_unusable_sandbox_falls_back_to_no_sandbox_still_unprivileged(
    sandbox_refusing_chromium: str, caplog: pytest.LogCaptureFixture
) -> None:
    config = BrowserConfig(slots=1, executable_path=sandbox_refusing_chromium)
    with caplog.at_level(logging.WARNING, logger="renderkit.browser"):
        async with ChromiumPool(config) as pool:
            await _render_works(pool)
            pid = pool.browser_pid
            assert pid is not None
            assert pool.sandboxed is False
            assert "--no-sandbox" in command_line(pid)
            if os.geteuid() == 0:
                assert pool.browser_user == "nobody"
                assert 0 not in _uids(pid)
    assert any("No usable sandbox" in r.getMessage() for r in caplog.records)


@as_root
@pytest.mark.anyio
@pytest.mark.browser
async def test_the_browser_environment_carries_none_of_the_servers_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RENDERKIT_SECRET", "do-not-leak")
    async with ChromiumPool(BrowserConfig(slots=1)) as pool:
        pid = pool.browser_pid
        assert pid is not None
        environ = _environ(pid)
    assert not any(b"do-not-leak" in item for item in environ)
    (home,) = [item for item in environ if item.startswith(b"HOME=")]
    assert Path(home.decode().split("=", 1)[1]).name.startswith("renderkit-chromium-")


def test_root_switches_to_the_named_account() -> None:
    account = resolve("nobody", euid=0)
    assert account is not None
    assert (account.uid, account.name) == (pwd.getpwnam("nobody").pw_uid, "nobody")


@pytest.mark.parametrize("user", [None, "root", 0])
def test_root_keeps_root_only_when_asked(user: str | int | None) -> None:
    assert resolve(user, euid=0) is None


def test_a_non_root_process_never_switches_accounts() -> None:
    assert resolve("nobody", euid=1000) is None


def test_an_unknown_account_name_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        resolve("no-such-renderkit-user", euid=0)


def test_a_bare_uid_without_an_account_is_used_as_it_is() -> None:
    uid = 4_000_123
    with pytest.raises(KeyError):
        pwd.getpwuid(uid)
    account = resolve(uid, euid=0)
    assert account is not None
    assert (account.uid, account.gid) == (uid, uid)


def test_the_browser_environment_keeps_locale_and_drops_everything_else() -> None:
    env = browser_environment(
        {"LANG": "C.UTF-8", "TZ": "UTC", "AWS_SECRET_ACCESS_KEY": "x", "HOME": "/root"},
        home=Path("/tmp/p"),
    )
    assert env == {"LANG": "C.UTF-8", "TZ": "UTC", "HOME": "/tmp/p", "PATH": env["PATH"]}


def test_no_sandbox_flag_only_when_the_sandbox_is_off() -> None:
    assert "--no-sandbox" in chromium_args("/p", sandbox=False)
    assert "--no-sandbox" not in chromium_args("/p", sandbox=True)
    assert "--webrtc-ip-handling-policy=disable_non_proxied_udp" in chromium_args(
        "/p", sandbox=True
    )


@pytest.mark.anyio
@pytest.mark.browser
async def test_doctor_reports_the_browser_account_and_sandbox() -> None:
    checks = {c.name: c for c in await _chromium(CHROMIUM)}
    sandbox = checks["browser sandbox"]
    if os.geteuid() == 0:
        assert sandbox.ok is _unprivileged_namespaces()
        assert sandbox.detail.endswith("running as nobody")


def test_doctor_explains_a_browser_running_as_root_without_its_sandbox() -> None:
    check = _sandbox(sandboxed=False, user="root")
    assert (check.ok, check.required) == (False, False)
    assert "setpriv" in check.hint
