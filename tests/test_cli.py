from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pikepdf
import pytest

from renderkit import cli
from renderkit.image import IMAGE_TEMPLATES
from renderkit.pdf import PDF_TEMPLATES

from .conftest import open_image
from .speech import decode, needs_espeak


@pytest.mark.browser
def test_image_command_writes_the_rendered_file(tmp_path: Path, capsys) -> None:
    out = tmp_path / "card.png"
    status = cli.main(
        ["image", "--template", "og-card", "--data", '{"title": "Hi"}', "-o", str(out)]
    )
    assert status == 0
    assert open_image(out.read_bytes()).size == (2400, 1260)
    captured = capsys.readouterr()
    assert "2400x1260" in captured.err
    assert captured.out == ""


@pytest.mark.browser
def test_image_command_reads_data_and_html_from_files(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"title": "From a file"}))
    html = tmp_path / "page.html"
    html.write_text("<body style='background:#0f0'>hi</body>")
    out = tmp_path / "page.jpeg"
    status = cli.main(
        [
            "image",
            "--template",
            "custom",
            "--html",
            str(html),
            "--width",
            "300",
            "--height",
            "200",
            "--scale",
            "1",
            "--format",
            "jpeg",
            "-o",
            str(out),
        ]
    )
    assert status == 0
    image = open_image(out.read_bytes())
    assert (image.format, image.size) == ("JPEG", (300, 200))
    status = cli.main(
        ["image", "--template", "twitter-card", "--data", f"@{data}", "-o", str(tmp_path / "t.png")]
    )
    assert status == 0


def test_invalid_request_exits_2_and_names_the_field(tmp_path: Path, capsys) -> None:
    status = cli.main(
        [
            "image",
            "--template",
            "og-card",
            "--data",
            '{"brand_color": "nope"}',
            "-o",
            str(tmp_path / "x.png"),
            "--chromium",
            "/nonexistent",
        ]
    )
    assert status == 2
    assert "data.brand_color" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.browser
@pytest.mark.parametrize(
    ("argv", "data", "warning"),
    [
        (
            ["image", "--template", "og-card", "--scale", "1", "-o", "x.png"],
            {"title": "Hi", "cta": "Read the post"},
            "warning: data.cta: og-card does not display cta; it was ignored",
        ),
        (
            ["pdf", "--template", "custom", "--html", "doc.html", "-o", "x.pdf"],
            {"html": "<p>Other</p>"},
            "warning: data.html: custom prints html instead; it was ignored",
        ),
    ],
)
def test_a_field_the_template_does_not_display_is_one_warning_line_on_stderr(
    argv: list[str], data: dict[str, str], warning: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "doc.html").write_text("<p>Hello</p>")
    assert cli.main([*argv, "--data", json.dumps(data)]) == 0
    assert (tmp_path / argv[-1]).exists()
    assert warning in capsys.readouterr().err.splitlines()


def test_strict_refuses_a_field_the_template_does_not_display_before_a_browser_starts(
    tmp_path: Path, capsys
) -> None:
    argv = ["image", "--template", "og-card", "--strict", "-o", str(tmp_path / "x.png")]
    data = '{"title": "Hi", "cta": "Read the post"}'
    status = cli.main([*argv, "--data", data, "--chromium", "/nonexistent"])
    assert status == 2
    assert "data.cta: og-card does not display cta" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_missing_chromium_exits_1_with_a_hint(tmp_path: Path, capsys) -> None:
    status = cli.main(
        [
            "image",
            "--template",
            "og-card",
            "-o",
            str(tmp_path / "x.png"),
            "--chromium",
            "/nonexistent/chromium",
        ]
    )
    assert status == 1
    assert "renderkit doctor" in capsys.readouterr().err


@pytest.mark.browser
@needs_espeak
def test_demo_renders_every_image_and_pdf_template_and_a_speech_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["demo", "-o", str(tmp_path)]) == 0
    images = {t.name for t in IMAGE_TEMPLATES}
    pdfs = set(PDF_TEMPLATES.values())
    assert {"og-card", "custom"} <= images
    assert {"invoice", "certificate", "report", "letter"} <= pdfs
    expected = {f"{n}.png" for n in images} | {f"{n}.pdf" for n in pdfs} | {"speech.mp3"}
    assert {p.name for p in tmp_path.iterdir()} == expected
    out = capsys.readouterr().out
    for name in expected:
        assert str(tmp_path / name) in out
    for name in images:
        assert open_image((tmp_path / f"{name}.png").read_bytes()).format == "PNG"
    for name in pdfs:
        assert (tmp_path / f"{name}.pdf").read_bytes().startswith(b"%PDF-")
    assert decode((tmp_path / "speech.mp3").read_bytes()).duration > 1.0


@pytest.mark.browser
def test_doctor_reports_chromium_and_exits_0_when_ready(capsys) -> None:
    status = cli.main(["doctor"])
    out = capsys.readouterr().out
    assert "chromium" in out
    assert status == 0, out


def test_doctor_fails_and_explains_when_chromium_is_missing(capsys) -> None:
    status = cli.main(["doctor", "--chromium", "/nonexistent/chromium"])
    out = capsys.readouterr().out
    assert status == 1
    assert "apt-get install -y chromium" in out


def test_every_capability_command_is_assembled(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in ("image", "pdf", "screenshot", "audio", "parse", "demo", "serve", "doctor"):
        assert name in out


@pytest.mark.parametrize("name", ["image", "pdf"])
def test_an_unreadable_html_file_exits_2_before_a_browser_starts(
    name: str, tmp_path: Path, capsys
) -> None:
    missing = tmp_path / "missing.html"
    out = tmp_path / "out"
    argv = [name, "--template", "custom", "--html", str(missing), "-o", str(out)]
    status = cli.main([*argv, "--chromium", "/nonexistent/chromium"])
    assert status == 2
    assert capsys.readouterr().err == f"renderkit {name}: --html: no such file: {missing}\n"
    assert not out.exists()


def test_a_data_file_that_is_not_json_exits_2(tmp_path: Path, capsys) -> None:
    data = tmp_path / "data.json"
    data.write_text("{not json", encoding="utf-8")
    argv = ["pdf", "--template", "invoice", "--data", f"@{data}", "-o", str(tmp_path / "x.pdf")]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.startswith(f"renderkit: --data: {data} is not valid JSON")


@pytest.mark.parametrize("name", ["image", "pdf"])
def test_a_missing_data_file_is_one_line_naming_the_flag(name: str, tmp_path: Path, capsys) -> None:
    missing = tmp_path / "missing.json"
    argv = [name, "--template", "og-card", "--data", f"@{missing}", "-o", str(tmp_path / "x")]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == f"renderkit: --data: no such file: {missing}\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["image", "--template", "og-card"],
        ["pdf", "--template", "invoice"],
        ["screenshot", "https://example.com"],
        ["audio", "Hello"],
        ["parse", "receipt.png"],
    ],
)
def test_an_output_in_a_missing_directory_is_one_line_and_exits_2(
    argv: list[str], tmp_path: Path, capsys
) -> None:
    missing = tmp_path / "missing" / "dir"
    assert cli.main([*argv, "-o", str(missing / "x.png")]) == 2
    assert capsys.readouterr().err == f"renderkit: -o: no such directory: {missing}\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["image", "--template", "og-card", "--format", "png", "-o", "pic.jpg"], "names jpeg"),
        (["image", "--template", "og-card", "-o", "pic.pdf"], "writes png, jpeg, webp"),
        (["image", "--template", "og-card", "-o", "x.gif"], "-o x.gif names no format"),
        (["pdf", "--template", "invoice", "-o", "report.png"], "writes pdf"),
        (["screenshot", "https://example.com", "--format", "webp", "-o", "a.png"], "names png"),
    ],
)
def test_an_output_extension_the_format_contradicts_exits_2_before_rendering(
    argv: list[str], message: str, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main([*argv, "--chromium", "/nonexistent/chromium"]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.browser
def test_image_format_follows_the_output_extension(tmp_path: Path) -> None:
    for name, expected in (("pic.jpg", "JPEG"), ("pic.webp", "WEBP")):
        out = tmp_path / name
        argv = ["image", "--template", "twitter-card", "--scale", "1", "-o", str(out)]
        assert cli.main(argv) == 0
        assert open_image(out.read_bytes()).format == expected


@pytest.mark.browser
def test_dash_output_writes_the_image_to_stdout_and_the_summary_to_stderr(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    argv = ["image", "--template", "twitter-card", "--scale", "1", "--format", "webp", "-o", "-"]
    assert cli.main(argv) == 0
    captured = capsysbinary.readouterr()
    assert open_image(captured.out).size == (800, 418)
    assert open_image(captured.out).format == "WEBP"
    assert captured.err.startswith(b"-  800x418 webp")


@pytest.mark.browser
def test_dash_output_writes_the_pdf_to_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert cli.main(["pdf", "--template", "letter", "--data", '{"body": "Hi"}', "-o", "-"]) == 0
    assert capsysbinary.readouterr().out.startswith(b"%PDF-")


@pytest.mark.browser
def test_pdf_standard_and_tagged_flags_print_a_tagged_pdfa(tmp_path: Path) -> None:
    out = tmp_path / "letter.pdf"
    argv = ["pdf", "--template", "letter", "--data", '{"body": "Hi"}', "-o", str(out)]

    assert cli.main([*argv, "--pdf-standard", "PDF/A-3b", "--tagged"]) == 0

    with pikepdf.open(out) as pdf:
        assert pdf.open_metadata().pdfa_status == "3B"
        assert "/StructTreeRoot" in pdf.Root


def test_version_prints_the_installed_version(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"renderkit {metadata.version('renderkit')}\n"


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["image"],
        ["sign-url"],
        ["pdf"],
        ["pdf-ops"],
        ["screenshot"],
        ["audio"],
        ["parse"],
        ["demo"],
        ["serve"],
        ["doctor"],
    ],
)
def test_help_is_plain_text_and_lists_the_exit_statuses(command: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main([*command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "`" not in out
    assert "exit status:" in out
    assert "141" in out


@pytest.mark.browser
def test_a_loopback_screenshot_names_the_flag_that_allows_it(
    http_server, tmp_path: Path, capsys
) -> None:
    http_server.routes["/"] = (200, "text/html", b"<h1>local</h1>")
    assert cli.main(["screenshot", http_server.url("/"), "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "pass --allow-private-network" in err
    assert "Traceback" not in err
    assert not (tmp_path / "x.png").exists()


def test_parse_of_a_file_of_unknown_type_exits_2_and_asks_for_the_type(
    tmp_path: Path, capsys
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("just some text", encoding="utf-8")
    assert cli.main(["parse", str(notes)]) == 2
    assert "renderkit parse: unknown file type; pass --mime-type" in capsys.readouterr().err


@pytest.mark.browser
def test_a_screenshot_takes_its_format_from_the_output_extension(
    tmp_path: Path, http_server, capsys
) -> None:
    http_server.routes["/"] = (200, "text/html", b"<h1 style='color:#123'>Hello</h1>")
    out = tmp_path / "page.jpg"
    argv = ["screenshot", http_server.url("/"), "--width", "320", "--height", "200", "-o", str(out)]
    assert cli.main([*argv, "--allow-private-network"]) == 0
    image = open_image(out.read_bytes())
    assert (image.format, image.size) == ("JPEG", (320, 200))
    assert "320x200 jpeg" in capsys.readouterr().err


def test_sign_url_prints_the_url_the_library_signs(capsys: pytest.CaptureFixture[str]) -> None:
    from renderkit import sign_image_url

    from .image.test_signed_url import make_key

    key = make_key()
    status = cli.main(
        [
            "sign-url",
            "--base",
            "https://r.example",
            "--key",
            key,
            "--template",
            "og-card",
            "title=Hello world",
            "subtitle=a=b",
        ]
    )
    assert status == 0
    expected = sign_image_url(
        "https://r.example", key, "og-card", {"title": "Hello world", "subtitle": "a=b"}
    )
    assert capsys.readouterr().out.strip() == expected


def test_sign_url_refuses_a_field_without_a_value(capsys: pytest.CaptureFixture[str]) -> None:
    from .image.test_signed_url import make_key

    status = cli.main(
        ["sign-url", "--base", "https://r", "--key", make_key(), "--template", "og-card", "title"]
    )
    assert status == 2
    assert "NAME=VALUE" in capsys.readouterr().err


@needs_espeak
def test_list_voices_into_a_closed_pipe_exits_141_without_a_traceback() -> None:
    # `renderkit audio --list-voices | head`: the reader is gone before the voices are printed.
    argv = [sys.executable, "-m", "renderkit.cli", "audio", "--list-voices"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        stderr = process.stderr.read()
        status = process.wait(timeout=60)
    assert stderr == b""
    assert status == 141


def test_parse_writes_json_to_stdout_with_dash_and_names_a_missing_schema(
    tmp_path: Path, capsys
) -> None:
    receipt = tmp_path / "receipt.png"
    receipt.write_bytes(b"\x89PNG\r\n\x1a\n")
    missing = tmp_path / "schema.json"
    assert cli.main(["parse", str(receipt), "--schema", str(missing), "-o", "-"]) == 2
    assert capsys.readouterr().err == f"renderkit parse: --schema: no such file: {missing}\n"
    assert cli.main(["parse", str(tmp_path)]) == 2
    assert "is a directory, not a file" in capsys.readouterr().err


def test_sign_url_with_a_malformed_key_is_one_line_and_exits_2(capsys) -> None:
    argv = ["sign-url", "--base", "https://r.example", "--key", "nope", "--template", "og-card"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_demo_into_a_folder_that_cannot_be_made_is_one_line_and_exits_2(
    tmp_path: Path, capsys
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert cli.main(["demo", "-o", str(blocker / "out"), "--chromium", "/nonexistent"]) == 2
    assert capsys.readouterr().err == (
        f"renderkit demo: -o: cannot create {blocker / 'out'}: Not a directory\n"
    )
