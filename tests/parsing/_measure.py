"""Run one parse in a fresh interpreter and report its outcome, wall time and peak memory.

Peak RSS growth is only measurable per process (PDFium and OCR allocate outside Python, so
tracemalloc cannot see them): the child loads renderkit and warms the OCR engine, notes its
peak RSS, parses, and reports how far the peak rose.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import json, sys, time
import anyio
from PIL import Image
from renderkit import InvalidRequestError, ParseRequest, parse
from renderkit.parsing import ocr_engine
from tests.parsing import _hostile


def kib(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field))


engine = ocr_engine()
anyio.run(lambda: engine.recognize(Image.new("L", (64, 64), 255), page=1, detect_orientation=False))
for document, mime in json.loads(sys.argv[1]):
    content = eval(document, vars(_hostile))
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # resets the peak RSS (VmHWM) to the current RSS
    before = kib("VmRSS:")
    start = time.monotonic()
    try:
        result = anyio.run(lambda: parse(ParseRequest.from_bytes(content, mime), ocr=engine))
        outcome = {"outcome": "result", "pages": result.pages, "extractor": result.extractor}
    except InvalidRequestError as exc:
        outcome = {"outcome": "refused", "field": exc.errors[0].field, "message": str(exc)}
    seconds = time.monotonic() - start
    grown = (kib("VmHWM:") - before) / 1024
    del content
    print(json.dumps({"document": document, **outcome, "seconds": seconds, "rss_growth_mb": grown}))
"""


def measure(
    documents: list[tuple[str, str]], *, src: Path | None = None, timeout: float = 300
) -> dict[str, Any]:
    """Parse each ``(expression, mime type)`` in one child, one after the other.

    Each expression is evaluated over :mod:`tests.parsing._hostile`; the answer maps it to
    its outcome (``result`` or ``refused`` with the field), seconds and peak RSS growth (MB,
    the peak reset before each document). ``src`` picks the library tree (this checkout's
    ``src`` by default).
    """
    tree = src if src is not None else ROOT / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(documents)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        msg = f"the child failed ({done.returncode}): {done.stderr[-2000:]}"
        raise AssertionError(msg)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {row.pop("document"): row for row in rows}
