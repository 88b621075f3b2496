"""Developer tasks: `nox -s tests`, `nox -s lint`, `nox -s docs`, `nox -s bench`, `nox -s soak`,
`nox -s adversarial`, `nox -s eval`.

Sessions reuse the project's .venv (created by scripts/bootstrap.sh), because Chromium and
the other system tools are installed machine-wide, not per virtualenv. `nox -s extras` is the
exception: it proves each extra in a virtualenv of its own.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["lint", "tests"]

PY = ".venv/bin/python"
UV = ".venv/bin/uv"

#: What `nox -s extras` installs on its own, by the name scripts/smoke_extras.py checks.
EXTRAS = {
    "bare": "",
    "server": "server",
    "server-redis": "server,redis",
    "ocr": "ocr",
    "s3": "s3",
    "audio": "audio",
    "neural-speech": "neural-speech",
    "sign": "sign",
}


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite (pass pytest arguments after --)."""
    session.run(PY, "-m", "pytest", *session.posargs, external=True)


@nox.session
def extras(session: nox.Session) -> None:
    """Each extra installed alone in a fresh virtualenv from constraints.txt, then used.

    CI installs `.[dev]`, which hides a module importing what only another extra brings.
    Here the wheel (as shipped: package data included) goes into one new venv per entry
    of EXTRAS with that extra alone, and scripts/smoke_extras.py imports its modules, runs
    `renderkit --help` and makes one real call with it. uv's cache makes a re-run
    offline. `nox -s extras -- ocr s3` checks only those.
    """
    unknown = sorted(set(session.posargs) - set(EXTRAS))
    if unknown:
        session.error(f"unknown extras {unknown}; choose from {sorted(EXTRAS)}")
    # The venv under test must import the wheel, never this checkout's src/.
    env = {"PYTHONPATH": "", "UV_PYTHON_DOWNLOADS": "never"}
    python = os.path.realpath(PY)
    failed = []
    with tempfile.TemporaryDirectory(prefix="renderkit-extras-") as tmp:
        session.run(UV, "build", "-q", "--wheel", "--out-dir", tmp, external=True, env=env)
        (wheel,) = Path(tmp).glob("renderkit-*.whl")
        for name in session.posargs or EXTRAS:
            started = time.monotonic()
            venv = Path(tmp) / name
            spec = f"{wheel}[{EXTRAS[name]}]" if EXTRAS[name] else str(wheel)
            install = [UV, "pip", "install", "-q", "--python", str(venv / "bin" / "python")]
            check = [str(venv / "bin" / "python"), "scripts/smoke_extras.py", name]
            try:
                session.run(UV, "venv", "-q", "--python", python, str(venv), external=True, env=env)
                session.run(*install, "-c", "constraints.txt", spec, external=True, env=env)
                session.run(
                    *check, "--moto-server", ".venv/bin/moto_server", external=True, env=env
                )
            except nox.command.CommandFailed:
                failed.append(name)  # go on: one run shows every extra that is broken
            session.log(f"{name}: installed and checked in {time.monotonic() - started:.1f} s")
    if failed:
        session.error(f"extras that do not work on their own: {', '.join(failed)}")


@nox.session
def constraints(session: nox.Session) -> None:
    """Re-pin constraints.txt: every package of every extra, for Python 3.11 on Linux.

    Keeps the current pins and adds what pyproject.toml newly asks for;
    `nox -s constraints -- --upgrade` moves everything to the newest allowed release,
    `-- --upgrade-package NAME` one package. Bootstrap, CI and the Dockerfile install from
    the file.
    """
    session.run(
        UV,
        "pip",
        "compile",
        "pyproject.toml",
        "--extra",
        "dev",
        "--python-version",
        "3.11",
        "--python-platform",
        "x86_64-unknown-linux-gnu",
        "--custom-compile-command",
        "nox -s constraints",
        "-q",
        "-o",
        "constraints.txt",
        *session.posargs,
        external=True,
    )


@nox.session
def lint(session: nox.Session) -> None:
    """ruff lint and format check, then mypy --strict over src/ (what CI runs first)."""
    session.run("bash", "scripts/bootstrap.sh", "lint", external=True)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation site into site/ with warnings as errors (what CI runs).

    `nox -s docs -- serve` serves it on http://127.0.0.1:8000 with live reload instead."""
    if session.posargs[:1] == ["serve"]:
        session.run(".venv/bin/mkdocs", "serve", *session.posargs[1:], external=True)
    else:
        session.run("bash", "scripts/bootstrap.sh", "docs", *session.posargs, external=True)


@nox.session
def bench(session: nox.Session) -> None:
    """Every benchmark under bench/, each against its peer in the same run.

    The Python peers (Typst, MarkItDown, pymupdf4llm) come from the `bench` extra, pinned by
    constraints.txt; the npm peers install themselves under .tools/ on first use."""
    session.run(
        PY, "-m", "pip", "install", "-q", "-c", "constraints.txt", "-e", ".[bench]", external=True
    )
    for script in sorted(Path("bench").glob("bench_*.py")):
        session.run(PY, str(script), *session.posargs, external=True)


@nox.session(name="mcp-clients")
def mcp_clients(session: nox.Session) -> None:
    """The MCP endpoint against the Inspector CLI and the official conformance suite.

    Installs Node 22 and both tools from the npm registry under .tools/ on first use."""
    session.run(PY, "scripts/mcp_clients.py", external=True)


@nox.session
def fuzz(session: nox.Session) -> None:
    """Fuzz the HTTP API from its own OpenAPI document with schemathesis.

    Runs against create_app with an in-memory browser (the contract, not Chromium, is under
    test). keys/regenerate is excluded: it would revoke the key the fuzzer authenticates with.
    parse and audio run without the "schema-valid data is accepted" check (see below).
    """
    import json
    import socket
    import subprocess
    import tempfile
    import time
    import urllib.request

    session.run(PY, "-m", "pip", "install", "-q", "schemathesis>=4", external=True)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data_dir:
        server = subprocess.Popen([PY, "bench/_fake_server.py", str(port), data_dir])
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"{base}/api/health", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            request = urllib.request.Request(
                f"{base}/api/keys/generate",
                data=json.dumps({"email": "fuzz@example.com"}).encode(),
                headers={"Content-Type": "application/json"},
            )
            key = json.load(urllib.request.urlopen(request))["key"]
            common = ["-H", f"X-SVC-Key: {key}", "--max-examples", "200", *session.posargs]
            run = [".venv/bin/schemathesis", "run", f"{base}/openapi.json"]
            session.run(
                *run,
                "--checks",
                "all",
                "--exclude-path-regex",
                "regenerate|parse|audio",
                *common,
                external=True,
            )
            # Some valid-looking bodies are rightly refused, which no schema can state: a
            # parse file must be a real document of its mimeType, and which voice_ids exist
            # depends on the deployment's speech provider. That one check is left out there.
            session.run(
                *run,
                "--checks",
                "all",
                "--exclude-checks",
                "positive_data_acceptance",
                "--include-path-regex",
                "parse|audio",
                *common,
                external=True,
            )
        finally:
            server.terminate()
            server.wait()


@nox.session
def soak(session: nox.Session) -> None:
    """20 concurrent clients for 5 minutes against the real server on loopback.

    Mixes image, PDF, screenshot of a local page, audio and parse; prints latencies, errors,
    the process tree's RSS and browser process counts, and fails on an unexpected error, RSS
    growth over 10% after warm-up or a leaked process. Options after -- go to
    scripts/soak.py, e.g. nox -s soak -- --duration 30
    """
    session.run(PY, "scripts/soak.py", *session.posargs, external=True, env={"PYTHONPATH": "src"})


@nox.session
def adversarial(session: nox.Session) -> None:
    """Hostile documents and JSON bodies against a real `renderkit serve` on 127.0.0.1.

    tests/adversarial: every named hostile document, N Hypothesis-mutated PDFs and images
    (`-- --examples N`, 500 unless given; the test run in CI uses 30) and the hostile JSON
    shapes; other arguments after -- go to pytest.
    """
    args = list(session.posargs)
    examples = "500"
    if "--examples" in args:
        at = args.index("--examples")
        examples = args[at + 1]
        del args[at : at + 2]
    env = {
        "PYTHONPATH": "src",
        "RENDERKIT_ADVERSARIAL_EXAMPLES": examples,
        "RENDERKIT_REQUIRE_BROWSER": "1",
    }
    session.run(PY, "-m", "pytest", "tests/adversarial", "-q", *args, external=True, env=env)


@nox.session(name="eval-parse")
def eval_parse(session: nox.Session) -> None:
    """The full parse evaluation over every dev source (see docs/parsing.md, "Measuring").

    Per-source and per-field P/R/F1, the odd/even halves check, the calibration table and
    parse times. Options after -- go to scripts/eval_parse.py, e.g.
    nox -s eval-parse -- --cache /tmp/ocrcache --json /tmp/figures.json
    """
    args = list(session.posargs)
    if not args or args[0].startswith("-"):
        args.insert(0, "../shared/eval/parse-dev")
    session.run(PY, "scripts/eval_parse.py", *args, external=True)


#: The synthetic validation set: this seed, 100 invoices and 100 receipts, photos on. Every
#: synthetic document is a function of (seed, kind, index), so training on any other seed
#: never sees one of these (docs/parsing.md, "Measuring").
SYNTH_VALIDATION = {"seed": "9001", "count": "100"}


@nox.session(name="eval")
def eval_all(session: nox.Session) -> None:
    """Dev set (when it is beside the checkout) and the synthetic validation set, one JSON.

    Builds the synthetic validation set on first use in <tmp>/renderkit-synth-val-9001 (about a
    minute), keeps OCR in <tmp>/renderkit-ocr-dev and <tmp>/renderkit-ocr-synth, and writes
    <tmp>/renderkit-eval.json. Options after -- go to scripts/eval_parse.py, e.g.
    nox -s eval -- --no-embedded-xml --json /tmp/eval-noxml.json
    """
    tmp = Path(tempfile.gettempdir())
    seed, count = SYNTH_VALIDATION["seed"], SYNTH_VALIDATION["count"]
    synthetic = tmp / f"renderkit-synth-val-{seed}"
    env = {"PYTHONPATH": "src"}  # a worktree measures its own code, not the editable install's
    for kind in ("invoice", "receipt"):
        if not (synthetic / f"synth-{kind}s" / "manifest.json").exists():
            build = ["--kind", kind, "--count", count, "--seed", seed, "--out", str(synthetic)]
            session.run(PY, "scripts/synth_docs.py", *build, "--photos", external=True, env=env)
    dev = Path(os.environ.get("RENDERKIT_PARSE_DEV_SET") or "../shared/eval/parse-dev")
    args = list(session.posargs)
    if "--json" not in args:
        args += ["--json", str(tmp / "renderkit-eval.json")]
    if (dev / "index.json").exists():
        args = [str(dev), "--cache", str(tmp / "renderkit-ocr-dev"), *args]
    else:
        session.log(f"no dev set at {dev}: the synthetic validation set only")
    args += ["--synthetic", str(synthetic), "--synthetic-cache", str(tmp / "renderkit-ocr-synth")]
    session.run(PY, "scripts/eval_parse.py", *args, external=True, env=env)
