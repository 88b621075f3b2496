"""The example notebooks run from top to bottom and show what they promise; none carries outputs.

Each notebook is executed with nbclient in a fresh kernel of this very interpreter (the kernel
spec manager is given no directories, so ipykernel's own spec, naming ``sys.executable``, is
used rather than whatever ``python3`` kernel a machine has installed).
"""

from __future__ import annotations

import base64
import io
import re
import sys
import time
from pathlib import Path
from typing import Any

import av
import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from PIL import Image
from pypdf import PdfReader

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
# Every notebook but speech renders through Chromium.
NEEDS_BROWSER = {"og_images", "invoice", "screenshots", "parse_receipt"}


def _this_interpreter() -> KernelSpecManager:
    # No kernel directories: "python3" resolves to ipykernel's own spec, built for sys.executable.
    return KernelSpecManager(kernel_dirs=[])


def _run(path: Path, workdir: Path) -> list[dict[str, Any]]:
    """Execute the notebook in ``workdir``; return every output's data bundle, in order."""
    notebook = nbformat.read(path, as_version=4)
    kernels = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=_this_interpreter())
    client = NotebookClient(
        notebook, km=kernels, timeout=120, resources={"metadata": {"path": str(workdir)}}
    )
    # Raises CellExecutionError, with the traceback, if a cell fails. cleanup_kc: stop the
    # kernel and close its sockets even though the manager was passed in.
    client.execute(cleanup_kc=True)
    return [
        output.get("data", {"text/plain": output.get("text", "")})
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    ]


def _pngs(outputs: list[dict[str, Any]]) -> list[Image.Image]:
    """Images shown as image/png outputs, and those embedded in text/html outputs."""
    encoded = [data["image/png"] for data in outputs if "image/png" in data]
    for data in outputs:
        encoded += re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", data.get("text/html", ""))
    return [Image.open(io.BytesIO(base64.b64decode(item))) for item in encoded]


def _html(outputs: list[dict[str, Any]]) -> str:
    return "\n".join(data["text/html"] for data in outputs if "text/html" in data)


def _check_og_images(outputs: list[dict[str, Any]], workdir: Path) -> None:
    images = _pngs(outputs)
    # cards[0] inline at full size, then the grid of four thumbnails.
    assert [image.size for image in images] == [(1200, 630)] + [(360, 189)] * 4
    grid = _html(outputs)
    assert grid.count("<img ") == 4 and "grid-template-columns" in grid


def _check_invoice(outputs: list[dict[str, Any]], workdir: Path) -> None:
    (page,) = _pngs(outputs)
    assert page.height > page.width  # an A4 portrait page
    # Mostly paper, but with ink on it.
    histogram = page.convert("L").histogram()
    assert 0.5 < sum(histogram[250:]) / sum(histogram) < 0.995
    text = PdfReader(workdir / "invoice-INV-0042.pdf").pages[0].extract_text()
    assert "INV-0042" in text and "Contoso Ltd" in text


def _check_screenshots(outputs: list[dict[str, Any]], workdir: Path) -> None:
    thumbs = _pngs(outputs)
    assert len(thumbs) == 6  # two pages on three devices
    desktop, _, mobile = thumbs[:3]
    assert desktop.width > desktop.height and mobile.height > mobile.width
    statuses = next(
        data["text/plain"] for data in outputs if "'desktop'" in data.get("text/plain", "")
    )
    assert statuses.count(", 200)") == 6
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", _html(outputs))
    assert captions[0] == "index.html · desktop" and captions[-1] == "pricing.html · mobile"


def _check_speech(outputs: list[dict[str, Any]], workdir: Path) -> None:
    players = re.findall(
        r'<audio controls [^>]*src="data:([a-z/]+);base64,([^"]+)"', _html(outputs)
    )
    assert [mime for mime, _ in players] == ["audio/mpeg", "audio/wav"]
    for _, encoded in players:
        with av.open(io.BytesIO(base64.b64decode(encoded))) as container:
            seconds = sum(frame.samples for frame in container.decode(audio=0)) / 44_100
        assert seconds > 1.0  # real speech, not an empty file
    assert (workdir / "hello.mp3").stat().st_size > 5_000


def _check_parse_receipt(outputs: list[dict[str, Any]], workdir: Path) -> None:
    (receipt,) = _pngs(outputs)
    assert receipt.size == (620, 720)
    table = _html(outputs)
    assert "<b>receipt</b>" in table
    # 2 x 3.40 + 3.20 + 3 x 2.10 = 16.30, plus 20% VAT.
    assert re.search(r"<th[^>]*>total</th><td[^>]*>19.56</td>", table)
    assert "<caption" in table and "Almond croissant" in table
    assert "(19.56, '2025-03-14'" in outputs[-1]["text/plain"]


CHECKS = {
    "og_images": _check_og_images,
    "invoice": _check_invoice,
    "screenshots": _check_screenshots,
    "speech": _check_speech,
    "parse_receipt": _check_parse_receipt,
}


def test_every_example_notebook_has_a_check() -> None:
    assert sorted(path.stem for path in NOTEBOOKS) == sorted(CHECKS)


def test_notebook_kernel_is_the_test_interpreter() -> None:
    spec = _this_interpreter().get_kernel_spec("python3")
    assert spec.argv[:3] == [sys.executable, "-m", "ipykernel_launcher"]


def test_examples_readme_links_every_notebook() -> None:
    readme = (EXAMPLES / "README.md").read_text()
    linked = re.findall(r"\]\((\w+\.ipynb)\)", readme)
    assert sorted(linked) == sorted(path.name for path in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_committed_notebooks_carry_no_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)
    # Nor the run timestamps JupyterLab records per cell.
    assert all("execution" not in cell.metadata for cell in notebook.cells)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(path, marks=[pytest.mark.browser] if path.stem in NEEDS_BROWSER else [])
        for path in NOTEBOOKS
    ],
    ids=[path.stem for path in NOTEBOOKS],
)
def test_notebook_runs_and_shows_its_results(path: Path, tmp_path: Path) -> None:
    started = time.perf_counter()
    outputs = _run(path, tmp_path)
    print(f"{path.name}: {time.perf_counter() - started:.1f} s")
    CHECKS[path.stem](outputs, tmp_path)
