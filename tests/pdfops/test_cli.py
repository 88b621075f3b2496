"""``renderkit pdf-ops``: files in, the produced PDF (or ZIP) out."""

from __future__ import annotations

import concurrent.futures
import io
import zipfile
from pathlib import Path

import anyio
import pikepdf
import pytest

from renderkit import cli

from ._certs import make_credentials
from ._pdfs import page_texts, rotations
from ._verify import pades_level, validate
from .test_pdf_ops import THREE, TWO


def test_pdf_ops_merges_stamps_numbers_attaches_and_encrypts_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.pdf").write_bytes(THREE)
    (tmp_path / "b.pdf").write_bytes(TWO)
    (tmp_path / "notes.txt").write_text("hello")
    out = tmp_path / "out.pdf"
    argv = [
        "pdf-ops",
        str(tmp_path / "a.pdf"),
        str(tmp_path / "b.pdf"),
        "--pages",
        "1,4-5",
        "--rotate",
        "90",
        "--watermark",
        "COPY",
        "--page-numbers",
        "--title",
        "Pack",
        "--attach",
        str(tmp_path / "notes.txt"),
        "--owner-password",
        "own",
        "--user-password",
        "pw",
        "-o",
        str(out),
    ]
    assert cli.main(argv) == 0
    texts = page_texts(out.read_bytes(), password="pw")
    assert [("COPY" in t, f"Page {n} of 3" in t) for n, t in enumerate(texts, 1)] == [
        (True, True)
    ] * 3
    with pikepdf.open(out, password="pw") as pdf:
        assert [int(page.Rotate) for page in pdf.pages] == [90, 90, 90]
        assert str(pdf.docinfo["/Title"]) == "Pack"
        assert pdf.attachments["notes.txt"].get_file().read_bytes() == b"hello"
    assert "1 PDF, 3 page(s)" in capsys.readouterr().err


def test_pdf_ops_split_writes_a_zip_of_the_parts(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(THREE)
    out = tmp_path / "parts.zip"
    argv = ["pdf-ops", str(tmp_path / "a.pdf"), "--split", "1-2", "--split", "3", "-o", str(out)]
    assert cli.main(argv) == 0
    with zipfile.ZipFile(io.BytesIO(out.read_bytes())) as archive:
        parts = [archive.read(name) for name in archive.namelist()]
    assert [len(page_texts(part)) for part in parts] == [2, 1]
    assert rotations(parts[1]) == [0]


def test_pdf_ops_reports_an_invalid_range_without_writing(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(THREE)
    out = tmp_path / "x.pdf"
    assert cli.main(["pdf-ops", str(tmp_path / "a.pdf"), "--pages", "9", "-o", str(out)]) != 0
    assert not out.exists()


def test_pdf_ops_signs_with_a_local_p12_and_its_passphrase_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    credentials = make_credentials()
    (tmp_path / "a.pdf").write_bytes(THREE)
    (tmp_path / "me.p12").write_bytes(credentials.p12)
    (tmp_path / "pass").write_text(credentials.passphrase + "\n")
    out = tmp_path / "signed.pdf"
    argv = [
        "pdf-ops",
        str(tmp_path / "a.pdf"),
        "--page-numbers",
        "--sign-p12",
        str(tmp_path / "me.p12"),
        "--sign-passphrase-file",
        str(tmp_path / "pass"),
        "--sign-reason",
        "Approved",
        "-o",
        str(out),
    ]
    assert cli.main(argv) == 0
    assert "signed (PAdES B-B) as Common Name: renderkit test signer" in capsys.readouterr().err
    # In a thread of its own: an async fixture of an earlier module (a browser pool) can
    # leave this thread marked as running asyncio, and anyio.run refuses to nest.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as thread:
        content = out.read_bytes()
        [checked] = thread.submit(lambda: anyio.run(validate, content, credentials)).result()
    assert checked.status.bottom_line and pades_level(checked.signature) == "B-B"
    assert checked.signature.sig_object["/Reason"] == "Approved"


def test_pdf_ops_with_a_wrong_p12_passphrase_exits_2_without_showing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    credentials = make_credentials()
    (tmp_path / "a.pdf").write_bytes(THREE)
    (tmp_path / "me.p12").write_bytes(credentials.p12)
    (tmp_path / "pass").write_text("not-it-9d2e")
    out = tmp_path / "signed.pdf"
    argv = ["pdf-ops", str(tmp_path / "a.pdf"), "--sign-p12", str(tmp_path / "me.p12")]
    argv += ["--sign-passphrase-file", str(tmp_path / "pass"), "-o", str(out)]
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert "--sign-p12 does not open" in captured.err
    assert "not-it-9d2e" not in captured.err + captured.out
    assert not out.exists()
