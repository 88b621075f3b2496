"""Who a locally launched Chromium runs as: never root when we can help it.

Chromium's sandbox refuses to run as root, so a server running as root (as containers
commonly do) would otherwise launch the browser as root with ``--no-sandbox``: one renderer
exploit away from the whole machine. Instead the browser is started through ``setpriv``
(util-linux) as an unprivileged account, where its user-namespace sandbox works, with an
environment that carries none of the server's secrets.
"""

from __future__ import annotations

import pwd
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

import attrs

from renderkit.core.errors import ConfigurationError

__all__ = ["BrowserAccount", "browser_environment", "current_user", "profile_parent", "resolve"]

# Passed through to the browser: they decide its locale, time zone and fonts, which renders
# depend on. Everything else (API keys, cloud credentials) stays with the server.
_PASSED_THROUGH = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "FONTCONFIG_FILE")
_PATH = "/usr/local/bin:/usr/bin:/bin"


@attrs.frozen(kw_only=True)
class BrowserAccount:
    """An unprivileged account to run Chromium as."""

    name: str
    uid: int
    gid: int

    def launcher(self, setpriv: str) -> list[str]:
        """The ``setpriv`` prefix that runs a command as this account, with no way back."""
        return [
            setpriv,
            f"--reuid={self.uid}",
            f"--regid={self.gid}",
            "--clear-groups",
            "--no-new-privs",
            "--",
        ]


def resolve(user: str | int | None, *, euid: int) -> BrowserAccount | None:
    """The account to switch to, or None to run as the current user.

    Switching needs root: a non-root server runs Chromium as itself (sandboxed). ``None``,
    ``"root"`` and ``0`` keep root, the explicit opt-out.

    Raises:
        ConfigurationError: ``user`` names no account on this machine.
    """
    if euid != 0 or user is None:
        return None
    try:
        entry = pwd.getpwuid(user) if isinstance(user, int) else pwd.getpwnam(user)
    except KeyError:
        if isinstance(user, int):
            # A bare uid without a passwd entry (common in containers) is fine as it is.
            return None if user == 0 else BrowserAccount(name=str(user), uid=user, gid=user)
        msg = f"browser user: no account named {user!r} on this machine"
        raise ConfigurationError(msg) from None
    if entry.pw_uid == 0:
        return None
    return BrowserAccount(name=entry.pw_name, uid=entry.pw_uid, gid=entry.pw_gid)


def current_user(euid: int) -> str:
    """The name of the account we run as (its uid when it has no name)."""
    try:
        return pwd.getpwuid(euid).pw_name
    except KeyError:
        return str(euid)


def browser_environment(environ: Mapping[str, str], *, home: Path) -> dict[str, str]:
    """The environment Chromium starts with: locale and fonts from ``environ``, HOME in its
    profile, and nothing else."""
    env = {name: environ[name] for name in _PASSED_THROUGH if name in environ}
    env.update(PATH=_PATH, HOME=str(home))
    return env


def profile_parent(account: BrowserAccount | None) -> str | None:
    """Where to create a profile ``account`` can reach (None: the default temp directory).

    A private ``TMPDIR`` (mode 0700, owned by root) would hide the profile from the browser
    account, so profiles then go to ``/tmp``, which every account may traverse.
    """
    default = Path(tempfile.gettempdir())
    if account is None or all(_traversable(p) for p in (default, *default.parents)):
        return None
    return "/tmp"  # a fresh mkdtemp directory (mode 0700) is made inside it


def _traversable(path: Path) -> bool:
    try:
        return bool(path.stat().st_mode & stat.S_IXOTH)
    except OSError:
        return False
