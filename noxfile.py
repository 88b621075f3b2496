"""Developer tasks: `nox -s tests`, `nox -s lint`, `nox -s bench`.

Sessions reuse the project's .venv (created by scripts/bootstrap.sh), because Chromium and
the other system tools are installed machine-wide, not per virtualenv.
"""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["lint", "tests"]

PY = ".venv/bin/python"


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (pass pytest arguments after --)."""
    session.run(PY, "-m", "pytest", *session.posargs, external=True)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff lint and format check."""
    session.run(PY, "-m", "ruff", "check", "src", "tests", "bench", external=True)
    session.run(PY, "-m", "ruff", "format", "--check", "src", "tests", "bench", external=True)


@nox.session
def bench(session: nox.Session) -> None:
    """Every benchmark under bench/, each against its peer in the same run."""
    for script in sorted(__import__("pathlib").Path("bench").glob("bench_*.py")):
        session.run(PY, str(script), *session.posargs, external=True)
