"""`renderkit batch jobs.jsonl --out DIR`, end to end through the real command line."""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path

import pytest

from renderkit.batch._report import Progress
from renderkit.cli import main
from renderkit.core.files import write_atomically
from tests.conftest import open_image
from tests.parsing._documents import text_pdf


def write_jobs(path: Path, lines: list[object]) -> Path:
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    )
    return path


def image_job(title: str, **extra: object) -> dict[str, object]:
    request = {"template": "twitter-card", "data": {"title": title}, "scale": 1}
    return {"kind": "image", "request": request, **extra}


@pytest.mark.browser
def test_a_batch_renders_resumes_and_reports_failures_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = write_jobs(
        tmp_path / "jobs.jsonl",
        [
            image_job("Hello World"),
            image_job("Second", output="cards/second.jpg"),
            {"kind": "audio", "request": {"script": "Batch speech sample"}},
            "{not json",
            "",
            image_job("Escape", output="../escape.png"),
            {"kind": "image", "request": {"template": "og-card", "data": {"brand_color": "#zz"}}},
            image_job("Hello World"),
        ],
    )
    out = tmp_path / "out"
    argv = ["batch", str(jobs), "--out", str(out), "--concurrency", "2"]

    assert main(argv) == 1
    first = capsys.readouterr()
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "cards/second.jpg",
        "speech-batch-speech-sample.mp3",
        "twitter-card-hello-world-2.png",
        "twitter-card-hello-world.png",
    ]
    assert open_image((out / "twitter-card-hello-world.png").read_bytes()).size == (800, 418)
    assert open_image((out / "cards/second.jpg").read_bytes()).format == "JPEG"
    assert "│    4 │       0 │      3 │     7 │" in first.out  # done, skipped, failed, total
    assert "line 4: invalid job: not valid JSON" in first.err
    assert "line 6: invalid job: output: must be a file path inside --out" in first.err
    assert "line 7: invalid job: request.data.brand_color: '#zz' is not a colour" in first.err
    assert not (tmp_path / "escape.png").exists()

    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    (out / ".stale.png.rk-part-0000").write_bytes(b"half")  # what a killed run leaves
    assert main(argv) == 1
    second = capsys.readouterr()
    assert "│    0 │       4 │      3 │     7 │" in second.out
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == before


@pytest.mark.browser
def test_a_batch_without_failures_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = write_jobs(tmp_path / "jobs.jsonl", [image_job("Only one", output="one.webp")])
    assert main(["batch", str(jobs), "--out", str(tmp_path / "o")]) == 0
    assert open_image((tmp_path / "o" / "one.webp").read_bytes()).format == "WEBP"
    captured = capsys.readouterr()
    assert "[1/1] done one.webp" in captured.err  # plain progress when not a terminal
    assert "failed:" not in captured.err


@pytest.mark.browser
def test_a_batch_lists_each_jobs_warnings_by_line_and_a_strict_job_fails_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = write_jobs(
        tmp_path / "jobs.jsonl",
        [
            image_job("Clean", output="clean.png"),
            {
                "kind": "image",
                "output": "tagged.png",
                "request": {
                    "template": "twitter-card",
                    "scale": 1,
                    "data": {"title": "T", "tag": "New"},
                },
            },
            {
                "kind": "image",
                "request": {
                    "template": "og-card",
                    "strict": True,
                    "data": {"title": "T", "cta": "Go"},
                },
            },
        ],
    )
    assert main(["batch", str(jobs), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "1 warning(s):" in err
    assert "  line 2: data.tag: twitter-card does not display tag; it was ignored" in err
    assert "line 3: invalid job: request.data.cta: og-card does not display cta" in err
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["clean.png", "tagged.png"]


def test_a_render_failure_is_retried_once_with_retry_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No browser can be launched: the job fails the same way twice, and is reported once.
    jobs = write_jobs(tmp_path / "jobs.jsonl", [image_job("x")])
    argv = ["batch", str(jobs), "--out", str(tmp_path / "o"), "--retry-failed"]
    assert main([*argv, "--chromium", str(tmp_path / "no-chromium")]) == 1
    captured = capsys.readouterr()
    assert "retrying 1 failed job(s)" in captured.err
    assert captured.err.count("line 1: BrowserUnavailableError") == 1
    assert not list((tmp_path / "o").glob("*"))


def test_an_unreadable_jobs_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["batch", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path)]) == 2
    assert "renderkit batch: jobs file: no such file: " in capsys.readouterr().err


def test_an_output_extension_that_contradicts_the_format_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = image_job("x", output="a.jpg")
    job["request"]["format"] = "png"  # type: ignore[index]
    jobs = write_jobs(tmp_path / "jobs.jsonl", [job, image_job("y", output="a.jpg")])
    assert main(["batch", str(jobs), "--out", str(tmp_path / "o"), "--chromium", "/nope"]) == 1
    err = capsys.readouterr().err
    assert "line 1: invalid job: output: a.jpg names a jpeg file but the request makes png" in err


def test_an_interrupted_write_leaves_neither_the_file_nor_its_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(src: object, dst: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(tmp_path / "deep" / "a.png", b"data")
    assert list((tmp_path / "deep").iterdir()) == []


def test_a_parse_job_writes_its_result_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = text_pdf([["INVOICE", "Invoice number: INV-77", "Total: 120.00 EUR"]])
    request = {"file": base64.b64encode(document).decode(), "mimeType": "application/pdf"}
    jobs = write_jobs(tmp_path / "jobs.jsonl", [{"kind": "parse", "request": request}])
    assert main(["batch", str(jobs), "--out", str(tmp_path / "o")]) == 0
    parsed = json.loads((tmp_path / "o" / "parse.json").read_text())
    assert parsed["data"]["number"] == "INV-77"
    assert parsed["data"]["total"] == 120.0


def test_on_a_terminal_progress_is_a_bar(tmp_path: Path) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    with Progress(total=3, stream=stream) as progress:
        progress.advance(2, "done a.png")
        progress.advance(1, "done b.png")
    assert "3/3" in stream.getvalue()
    assert "[3/3]" not in stream.getvalue()  # not the plain lines


def test_a_concurrency_below_one_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = write_jobs(tmp_path / "jobs.jsonl", [image_job("x")])
    with pytest.raises(SystemExit) as exit_info:
        main(["batch", str(jobs), "--out", str(tmp_path), "--concurrency", "0"])
    assert exit_info.value.code == 2
    assert "--concurrency: must be a whole number of at least 1, not '0'" in capsys.readouterr().err
