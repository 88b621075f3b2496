"""`renderkit batch` on a Chromium slower to start than a render's budget (issue #25, finding 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderkit.browser import BrowserConfig
from renderkit.cli import main
from tests.browser._slow import slow_chromium
from tests.conftest import open_image

from .test_batch_cli import image_job, write_jobs

#: Longer than the default render budget (and the queue wait), inside the launch budget.
LAUNCH_DELAY = 22


@pytest.mark.browser
def test_a_batch_whose_chromium_starts_slower_than_a_render_budget_renders_every_line(
    tmp_path: Path,
) -> None:
    defaults = BrowserConfig()
    assert defaults.render_timeout < LAUNCH_DELAY < defaults.launch_timeout
    jobs = write_jobs(tmp_path / "jobs.jsonl", [image_job(f"Card {i}") for i in range(4)])
    out = tmp_path / "out"
    with slow_chromium(LAUNCH_DELAY) as chromium:
        argv = ["batch", str(jobs), "--out", str(out), "--concurrency", "4", "--chromium", chromium]
        assert main(argv) == 0
    cards = sorted(out.glob("*.png"))
    assert len(cards) == 4
    assert {open_image(card.read_bytes()).size for card in cards} == {(800, 418)}
