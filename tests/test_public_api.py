"""Pins the public surface, like httpx's test_exported_members."""

from __future__ import annotations

import subprocess
import sys

import renderkit
import renderkit.browser
import renderkit.storage
import renderkit.sync


def test_every_exported_name_exists_once() -> None:
    for module in (renderkit, renderkit.browser, renderkit.storage, renderkit.sync):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
        assert len(set(module.__all__)) == len(module.__all__)


def test_every_error_derives_from_the_root() -> None:
    exported = [getattr(renderkit, n) for n in renderkit.__all__]
    errors = [e for e in exported if isinstance(e, type) and issubclass(e, BaseException)]
    assert len(errors) >= 14
    assert all(issubclass(e, renderkit.RenderkitError) for e in errors)


def test_importing_renderkit_starts_nothing_and_reads_no_environment() -> None:
    code = (
        "import os, sys\n"
        "class Env(dict):\n"
        "    def _check(self, k):\n"
        "        caller = sys._getframe(2).f_globals.get('__name__', '')\n"
        "        if caller.startswith('renderkit'): raise SystemExit(caller + ' read ' + k)\n"
        "    def __getitem__(self, k): self._check(k); return super().__getitem__(k)\n"
        "    def get(self, k, d=None): self._check(k); return super().get(k, d)\n"
        "os.environ = Env(os.environ)\n"
        "import renderkit, renderkit.browser, renderkit.storage\n"
        "assert 'playwright.async_api' in sys.modules\n"
        "assert 'aioboto3' not in sys.modules\n"
        "import threading; assert threading.active_count() == 1\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + result.stdout
