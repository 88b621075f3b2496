"""`renderkit doctor`: is this machine ready to render?"""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
import subprocess
from pathlib import Path

import attrs

from renderkit.browser import DEFAULT_CHROMIUM, BrowserConfig, ChromiumPool
from renderkit.core.errors import RenderkitError
from renderkit.speech.kokoro_assets import KokoroAssets

__all__ = ["Check", "run_checks"]

_APT = "apt-get update && apt-get install -y"


@attrs.frozen(kw_only=True)
class Check:
    """The outcome of one readiness check."""

    name: str
    ok: bool
    detail: str
    hint: str = ""
    required: bool = True


def _tool(name: str, binary: str, package: str, *, needed_for: str, version_arg: str) -> Check:
    path = shutil.which(binary)
    if path is None:
        return Check(
            name=name,
            ok=False,
            detail=f"{binary} not found (needed for {needed_for})",
            hint=f"{_APT} {package}",
            required=False,
        )
    try:
        out = subprocess.run(
            [path, version_arg], capture_output=True, text=True, timeout=10, check=False
        )
        first = (out.stdout or out.stderr).strip().splitlines()
        version = first[0] if first else "present"
    except (OSError, subprocess.TimeoutExpired):
        version = "present"
    return Check(name=name, ok=True, detail=version, required=False)


def _font(name: str, family: str, package: str) -> Check:
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return Check(name=name, ok=False, detail="fc-list not found", hint=f"{_APT} fontconfig")
    out = subprocess.run(
        [fc_list, f":family={family}", "family"], capture_output=True, text=True, check=False
    )
    found = bool(out.stdout.strip())
    return Check(
        name=name,
        ok=found,
        detail=family if found else f"{family} not installed",
        hint="" if found else f"{_APT} {package}",
    )


def _module(name: str, module: str, extra: str) -> Check:
    found = importlib.util.find_spec(module) is not None
    return Check(
        name=name,
        ok=found,
        detail="installed" if found else "not installed",
        hint="" if found else f"pip install 'renderkit[{extra}]'",
        required=False,
    )


def _rapidocr() -> Check:
    # Only looked up, not imported: loading onnxruntime takes a second.
    missing = [m for m in ("rapidocr", "onnxruntime") if importlib.util.find_spec(m) is None]
    if missing:
        return Check(
            name="rapidocr",
            ok=False,
            detail=f"{' and '.join(missing)} not installed (parse then uses tesseract)",
            hint="pip install 'renderkit[ocr]'",
            required=False,
        )
    spec = importlib.util.find_spec("rapidocr")
    origin = spec.origin if spec is not None else None
    found = sorted(p.name for p in (Path(origin or ".").parent / "models").glob("*.onnx"))
    ready = len(found) >= 3  # text detection, line direction and recognition
    return Check(
        name="rapidocr",
        ok=ready,
        detail=f"ready, the default OCR engine ({', '.join(found)})"
        if ready
        else "installed without its bundled models",
        hint="" if ready else "pip install --force-reinstall rapidocr",
        required=False,
    )


async def _chromium(executable: str) -> list[Check]:
    try:
        async with ChromiumPool(BrowserConfig(executable_path=executable, slots=1)) as pool:
            version = await pool.version()
            sandboxed, user = pool.sandboxed, pool.browser_user
    except Exception as exc:  # doctor reports every failure rather than crashing
        return [
            Check(
                name="chromium",
                ok=False,
                detail=f"cannot launch {executable}: {exc}",
                hint=f"{_APT} chromium-headless-shell",
            )
        ]
    return [
        Check(name="chromium", ok=True, detail=f"{executable} {version}"),
        _sandbox(sandboxed=bool(sandboxed), user=user or "?"),
    ]


def _sandbox(*, sandboxed: bool, user: str) -> Check:
    if sandboxed:
        return Check(name="browser sandbox", ok=True, detail=f"on, running as {user}")
    if user == "root":
        hint = "run as root with a browser user (the default, nobody) and setpriv (util-linux)"
    else:
        hint = "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)"
    return Check(
        name="browser sandbox",
        ok=False,
        detail=f"off (--no-sandbox), running as {user}",
        hint=hint,
        required=False,
    )


def _kokoro(directory: Path | None) -> Check:
    # Only looked up and checksummed, not loaded: a session takes seconds and about 1 GB.
    hint = "pip install 'renderkit[neural-speech]' && renderkit speech install-kokoro"
    missing = [m for m in ("onnxruntime", "numpy") if importlib.util.find_spec(m) is None]
    if missing:
        detail = f"{' and '.join(missing)} not installed (audio uses espeak-ng)"
        return Check(name="kokoro", ok=False, detail=detail, hint=hint, required=False)
    assets = KokoroAssets() if directory is None else KokoroAssets(directory=directory)
    try:
        assets.verify()
    except RenderkitError as exc:
        return Check(name="kokoro", ok=False, detail=str(exc), hint=hint, required=False)
    if shutil.which("espeak-ng") is None:
        detail = "model ready, but espeak-ng (its phonemizer) is missing"
        hint = f"{_APT} espeak-ng"
        return Check(name="kokoro", ok=False, detail=detail, hint=hint, required=False)
    return Check(
        name="kokoro",
        ok=True,
        detail="ready: neural speech engine (model and voices verified)",
        required=False,
    )


def run_checks(*, chromium: str = DEFAULT_CHROMIUM, kokoro_dir: Path | None = None) -> list[Check]:
    """Check Chromium, fonts and the system tools renderkit's features use.

    The speech engines: ``espeak-ng`` (the default local engine) and ``kokoro`` (the neural
    one, looked for in ``kokoro_dir``, default ``~/.cache/renderkit/kokoro``).
    """
    return [
        *asyncio.run(_chromium(chromium)),
        _font("emoji font", "Noto Color Emoji", "fonts-noto-color-emoji"),
        _font("CJK font", "Noto Sans CJK SC", "fonts-noto-cjk"),
        _font("fallback font", "Noto Sans", "fonts-noto-core"),
        # Japanese PDFs print these TrueType faces; without them Noto CJK prints as Type 3.
        _font("ja PDF font", "IPAexGothic", "fonts-ipaexfont-gothic"),
        _font("ja PDF serif", "IPAexMincho", "fonts-ipaexfont-mincho"),
        _rapidocr(),
        _tool(
            "tesseract",
            "tesseract",
            "tesseract-ocr",
            needed_for="parse when rapidocr is missing",
            version_arg="--version",
        ),
        _tool("espeak-ng", "espeak-ng", "espeak-ng", needed_for="audio", version_arg="--version"),
        _kokoro(kokoro_dir),
        _tool("pdftoppm", "pdftoppm", "poppler-utils", needed_for="PDF previews", version_arg="-v"),
        _tool(
            "redis-server",
            "redis-server",
            "redis-server",
            needed_for="multi-replica quotas",
            version_arg="--version",
        ),
        _module("s3 storage", "aioboto3", "s3"),
        _module("HTTP server", "litestar", "server"),
    ]
