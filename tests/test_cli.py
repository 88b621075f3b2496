from __future__ import annotations

import json
from pathlib import Path

import pytest

from renderkit import cli

from .conftest import open_image


@pytest.mark.browser
def test_image_command_writes_the_rendered_file(tmp_path: Path, capsys) -> None:
    out = tmp_path / "card.png"
    status = cli.main(
        ["image", "--template", "og-card", "--data", '{"title": "Hi"}', "-o", str(out)]
    )
    assert status == 0
    assert open_image(out.read_bytes()).size == (2400, 1260)
    assert "2400x1260" in capsys.readouterr().out


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
def test_demo_renders_every_template(tmp_path: Path) -> None:
    assert cli.main(["demo", "-o", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.glob("*.png"))
    assert names == ["announcement.png", "og-card.png", "social-square.png", "twitter-card.png"]


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
    out = tmp_path / "out.bin"
    argv = [name, "--template", "custom", "--html", str(missing), "-o", str(out)]
    status = cli.main([*argv, "--chromium", "/nonexistent/chromium"])
    assert status == 2
    assert f"renderkit {name}: cannot read --html {missing}" in capsys.readouterr().err
    assert not out.exists()


def test_a_data_file_that_is_not_json_exits_2(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text("{not json", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        cli.main(["pdf", "--template", "invoice", "--data", f"@{data}", "-o", "x.pdf"])
    assert exc.value.code == 2


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
    assert "320x200 jpeg" in capsys.readouterr().out


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
