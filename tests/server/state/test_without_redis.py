"""``pip install 'renderkit[server]'`` has no ``redis``: the server must import, build and
answer without it, and ask for it only when ``RENDERKIT_REDIS_URL`` is set."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

# Makes every ``import redis...`` fail, as on an install without the package.
_NO_REDIS = """
import sys

class _NoRedis:
    def find_spec(self, name, path=None, target=None):
        if name == "redis" or name.startswith("redis."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NoRedis())
for name in [m for m in sys.modules if m == "redis" or m.startswith("redis.")]:
    del sys.modules[name]
"""


def _run(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = _NO_REDIS + textwrap.dedent(body)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_the_app_builds_and_answers_health_without_the_redis_package(tmp_path: Path) -> None:
    result = _run(
        """
        from pathlib import Path

        from litestar.testing import TestClient
        from renderkit.testing import FakeBrowser
        from renderkit_server.app import create_app
        from renderkit_server.settings import Settings

        settings = Settings(data_dir=Path(sys.argv[1]), secret="test-secret-that-is-long-enough")
        with TestClient(create_app(settings, browser=FakeBrowser())) as client:
            response = client.get("/api/health")
        print(response.status_code)
        print(sorted(m for m in sys.modules if m == "redis" or m.startswith("redis.")))
        try:
            import redis
        except ImportError:
            print("redis blocked")
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:3] == ["200", "[]", "redis blocked"]


def test_a_redis_url_without_the_package_names_the_missing_dependency(tmp_path: Path) -> None:
    result = _run(
        """
        from pathlib import Path

        from renderkit import MissingDependencyError
        from renderkit_server.settings import Settings
        from renderkit_server.state.build import build_shared_state

        settings = Settings(data_dir=Path(sys.argv[1]), redis_url="redis://127.0.0.1:1/0")
        try:
            build_shared_state(settings)
        except MissingDependencyError as exc:
            print("missing:", exc)
        """,
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("missing:")
    assert "pip install" in result.stdout
