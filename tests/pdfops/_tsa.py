"""An RFC 3161 time-stamp authority on 127.0.0.1: pyHanko's DummyTimeStamper (a real TSA
answering from its own certificate and key) behind a small HTTP server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from asn1crypto import keys, tsp
from asn1crypto import x509 as asn1_x509
from cryptography.hazmat.primitives import serialization
from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper

from ._certs import Credentials

__all__ = ["time_stamp_authority"]


@contextmanager
def time_stamp_authority(credentials: Credentials) -> Iterator[str]:
    """Serve the test TSA while the block runs; yields its URL."""
    tsa = credentials.tsa
    stamper = DummyTimeStamper(
        tsa_cert=asn1_x509.Certificate.load(
            tsa.certificate.public_bytes(serialization.Encoding.DER)
        ),
        tsa_key=keys.PrivateKeyInfo.load(
            tsa.key.private_bytes(
                serialization.Encoding.DER,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        ),
    )

    class _Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            request = tsp.TimeStampReq.load(body)
            answer = stamper.request_tsa_response(request).dump()
            self.send_response(200)
            self.send_header("Content-Type", "application/timestamp-reply")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/tsa"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
