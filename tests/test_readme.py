"""The README's Python examples marked runnable run as written and produce their files.

``<!-- runnable -->`` marks a script, run as it is. ``<!-- runnable: async -->`` marks a
notebook-style snippet (top-level ``await``), run inside ``async def main()`` with ``browser``
bound to a ChromiumPool, as the README tells script users to do. Each runs in a fresh
interpreter and directory, with real Chromium.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"<!-- runnable(?P<kind>: async)? -->\n```python\n(?P<code>.*?)```", re.S)
SAVED = re.compile(r"\.save\(\"([^\"]+)\"\)")

BLOCKS = [
    (match["code"], bool(match["kind"]))
    for match in BLOCK.finditer((ROOT / "README.md").read_text(encoding="utf-8"))
]


def as_script(code: str, notebook_style: bool) -> str:
    if not notebook_style:
        return code
    body = textwrap.indent(code, " " * 8)
    return (
        "import asyncio\n"
        "from renderkit.browser import ChromiumPool\n\n"
        "async def main():\n"
        "    async with ChromiumPool() as browser:\n"
        f"{body}\n"
        "asyncio.run(main())\n"
    )


def test_the_readme_marks_its_library_examples_runnable() -> None:
    assert len(BLOCKS) >= 4
    assert any(kind for _, kind in BLOCKS) and not all(kind for _, kind in BLOCKS)


@pytest.mark.browser
@pytest.mark.parametrize(
    ("code", "notebook_style"), BLOCKS, ids=[code.splitlines()[0] for code, _ in BLOCKS]
)
def test_a_runnable_readme_example_runs_and_writes_its_files(
    code: str, notebook_style: bool, tmp_path: Path
) -> None:
    path = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-c", as_script(code, notebook_style)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    saved = SAVED.findall(code)
    assert saved, "each runnable example saves a file"
    for name in saved:
        assert (tmp_path / name).stat().st_size > 0, name
