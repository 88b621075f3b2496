"""`renderkit batch` keeps every file inside --out, and one bad line fails only that line.

Finding 8 of the adversarial review: an ``output`` of ``link/x.png`` wrote through a symbolic
link out of the folder, and a 304-character name, a NUL in a name or a 100,000-deep line ended
the whole run with a traceback.
"""

from __future__ import annotations

import base64
import errno
import json
from pathlib import Path, PurePosixPath

import pytest

from renderkit.cli import main
from renderkit.core.files import first_link, write_inside
from tests.parsing._documents import text_pdf

_DOCUMENT = base64.b64encode(
    text_pdf([["INVOICE", "Invoice number: INV-77", "Total: 120.00 EUR"]])
).decode()


def parse_job(output: str) -> dict[str, object]:
    request = {"file": _DOCUMENT, "mimeType": "application/pdf"}
    return {"kind": "parse", "request": request, "output": output}


def run(tmp_path: Path, lines: list[bytes]) -> tuple[int, str, Path]:
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    return main(["batch", str(jobs), "--out", str(out)]), str(jobs), out


def line(value: object) -> bytes:
    return json.dumps(value).encode()


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_an_output_through_a_link_inside_out_to_a_folder_outside_fails_that_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "link").symlink_to(outside, target_is_directory=True)

    status, _, out = run(
        tmp_path, [line(parse_job("link/x.json")), line(parse_job("fine/ok.json"))]
    )

    assert status == 1
    assert list(outside.iterdir()) == []
    assert files_under(out) == ["fine/ok.json"]
    err = capsys.readouterr().err
    assert "line 1: invalid job: output: passes through link, a symbolic link" in err


def test_an_output_that_is_a_link_to_a_file_outside_fails_and_the_file_is_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("keep me")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x.json").symlink_to(victim)

    status, _, _ = run(tmp_path, [line(parse_job("x.json"))])

    assert status == 1
    assert victim.read_text() == "keep me"
    assert "line 1: invalid job: output: passes through x.json, a symbolic link" in (
        capsys.readouterr().err
    )


def test_an_output_with_dot_dot_fails_that_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, out = run(tmp_path, [line(parse_job("a/../../x.json")), line(parse_job("b.json"))])
    assert status == 1
    assert not (tmp_path / "x.json").exists()
    assert files_under(out) == ["b.json"]
    assert "line 1: invalid job: output: must be a file path inside --out" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (line(parse_job("x" * 299 + ".json")), "output: has a name of 304 bytes"),
        (line(parse_job("a\u0000b.json")), "output: must not contain a NUL character"),
        (line(parse_job("\udc80.json")), "output: must be valid Unicode text"),
        (b"[" * 100_000 + b"]" * 100_000, "nests arrays and objects deeper than 64 levels"),
        (b"[" * 65 + b"]" * 65, "nests arrays and objects deeper than 64 levels"),
        (b'{"kind": "parse", "output": "\xff.json"}', "not UTF-8 text (byte 30)"),
        (b"{not json", "not valid JSON"),
    ],
    ids=["long name", "NUL", "lone surrogate", "100k deep", "65 deep", "not UTF-8", "not JSON"],
)
def test_a_bad_line_fails_alone_with_a_message_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: bytes, message: str
) -> None:
    status, _, out = run(tmp_path, [line(parse_job("first.json")), bad, line(parse_job("b.json"))])
    assert status == 1
    assert files_under(out) == ["b.json", "first.json"]
    err = capsys.readouterr().err
    assert f"line 2: invalid job: {message}" in err
    assert "Traceback" not in err


def test_a_line_separator_inside_a_json_string_does_not_split_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = parse_job("a\u2028b.json")  # str.splitlines would cut the line here
    status, _, out = run(tmp_path, [json.dumps(job, ensure_ascii=False).encode()])
    assert status == 0, capsys.readouterr().err
    assert files_under(out) == ["a\u2028b.json"]


def test_write_inside_refuses_a_folder_swapped_for_a_link_after_the_check(
    tmp_path: Path,
) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    (out / "cards").mkdir(parents=True)
    relative = PurePosixPath("cards/a.png")
    assert first_link(out, relative) is None
    (out / "cards").rmdir()
    (out / "cards").symlink_to(outside, target_is_directory=True)  # the race: swapped in

    with pytest.raises(OSError, match=r"symbolic link|Not a directory") as raised:
        write_inside(out, relative, b"data")

    assert raised.value.errno in (errno.ELOOP, errno.ENOTDIR)
    assert list(outside.iterdir()) == []


def test_write_inside_replaces_a_link_of_the_files_name_rather_than_following_it(
    tmp_path: Path,
) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim"
    victim.write_bytes(b"keep me")
    (out / "deep").mkdir(parents=True)
    (out / "deep" / "a.png").symlink_to(victim)

    write_inside(out, PurePosixPath("deep/a.png"), b"data")

    assert victim.read_bytes() == b"keep me"
    assert not (out / "deep" / "a.png").is_symlink()
    assert (out / "deep" / "a.png").read_bytes() == b"data"
    assert [p.name for p in (out / "deep").iterdir()] == ["a.png"]  # no part left


@pytest.mark.parametrize("relative", ["../x", "/abs", "."])
def test_write_inside_refuses_paths_that_are_not_plainly_inside(
    tmp_path: Path, relative: str
) -> None:
    with pytest.raises(ValueError, match="relative"):
        write_inside(tmp_path, PurePosixPath(relative), b"data")
