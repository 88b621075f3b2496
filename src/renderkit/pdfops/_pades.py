"""pyHanko's side of signing (imported only once ``pyhanko`` is known to be installed):
loading key material, the RFC 3161 client, and the PAdES signature itself."""

from __future__ import annotations

import io

import httpx
from asn1crypto import tsp
from cryptography.hazmat.primitives import serialization
from pyhanko.keys import load_certs_from_pemder_data, load_private_key_from_pemder_data
from pyhanko.pdf_utils.crypt import AuthStatus
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.misc import PdfError
from pyhanko.sign import fields, signers
from pyhanko.sign.general import SigningError
from pyhanko.sign.timestamps.api import TimeStamper
from pyhanko.sign.timestamps.common_utils import TimestampRequestError
from pyhanko_certvalidator.registry import SimpleCertificateStore

from renderkit.core.errors import (
    ConfigurationError,
    InvalidRequestError,
    ProviderUnavailableError,
)

__all__ = ["load_pem", "load_pkcs12", "sign"]

#: Seconds the time-stamp authority has to answer.
_TSA_TIMEOUT = 10.0


def _passphrase(value: bytes | str | None) -> bytes | None:
    if value is None or value in ("", b""):
        return None
    return value.encode() if isinstance(value, str) else value


def load_pkcs12(data: bytes, passphrase: bytes | str | None) -> signers.SimpleSigner:
    """The key, certificate and chain of a PKCS#12 archive.

    Raises:
        ConfigurationError: not PKCS#12 data, or the wrong passphrase (neither is named).
    """
    try:
        signer: signers.SimpleSigner = signers.SimpleSigner.load_pkcs12_data(
            data, other_certs=[], passphrase=_passphrase(passphrase)
        )
    except ValueError:
        msg = "the signing key could not be opened: not PKCS#12 data, or a wrong passphrase"
        raise ConfigurationError(msg) from None
    return signer


def load_pem(
    key: bytes, certificates: bytes, passphrase: bytes | str | None
) -> signers.SimpleSigner:
    """The key of ``key`` and the certificates of ``certificates`` (the signer's first).

    Raises:
        ConfigurationError: the key cannot be opened, there is no certificate, or the first
            certificate is not the key's.
    """
    secret = _passphrase(passphrase)
    try:
        private = serialization.load_pem_private_key(key, password=secret)
        info = load_private_key_from_pemder_data(key, passphrase=secret)
    except (ValueError, TypeError):
        msg = "the signing key could not be opened: not a PEM key, or a wrong passphrase"
        raise ConfigurationError(msg) from None
    try:
        chain = list(load_certs_from_pemder_data(certificates))
    except ValueError:
        chain = []
    if not chain:
        msg = "the signing certificates hold no certificate"
        raise ConfigurationError(msg)
    spki = private.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    if chain[0].public_key.dump() != spki:
        msg = "the first signing certificate is not the signing key's"
        raise ConfigurationError(msg)
    registry = SimpleCertificateStore()  # type: ignore[no-untyped-call]
    for cert in chain[1:]:
        registry.register(cert)
    return signers.SimpleSigner(signing_cert=chain[0], signing_key=info, cert_registry=registry)


class _HttpTimeStamper(TimeStamper):
    """An RFC 3161 client over httpx (pyHanko's own need requests or an aiohttp session)."""

    def __init__(self, url: str) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # pyHanko leaves it untyped
        self.url = url

    async def async_request_tsa_response(self, req: tsp.TimeStampReq) -> tsp.TimeStampResp:
        headers = {"Content-Type": "application/timestamp-query"}
        try:
            async with httpx.AsyncClient(timeout=_TSA_TIMEOUT) as client:
                response = await client.post(self.url, content=req.dump(), headers=headers)
        except httpx.HTTPError as exc:
            msg = "the time-stamp authority could not be reached"
            raise TimestampRequestError(msg) from exc
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or kind != "application/timestamp-reply":
            msg = f"the time-stamp authority answered {response.status_code} {kind}"
            raise TimestampRequestError(msg)
        return tsp.TimeStampResp.load(response.content)


def sign(
    pdf: bytes,
    signer: signers.SimpleSigner,
    *,
    timestamp_url: str | None,
    reason: str | None,
    location: str | None,
    contact_info: str | None,
    field_name: str,
    password: str | None,
) -> bytes:
    """``pdf`` signed by ``signer`` (see :func:`renderkit.pdfops.sign_pdf`)."""
    try:
        writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
    except (PdfError, ValueError):
        raise InvalidRequestError.single("pdf", "is not a readable PDF") from None
    if writer.security_handler is not None:
        result = writer.encrypt(password or "")  # type: ignore[no-untyped-call]
        if result.status != AuthStatus.OWNER:
            msg = "an encrypted PDF is signed only with its owner password"
            raise InvalidRequestError.single("encrypt.owner_password", msg)
    metadata = signers.PdfSignatureMetadata(
        field_name=field_name,
        subfilter=fields.SigSeedSubFilter.PADES,
        md_algorithm="sha256",
        reason=reason,
        location=location,
        contact_info=contact_info,
    )
    timestamper = _HttpTimeStamper(timestamp_url) if timestamp_url else None
    try:
        out = signers.sign_pdf(
            writer, metadata, signer=signer, timestamper=timestamper, in_place=False
        )
    except TimestampRequestError:
        # Its message can quote the authority's answer, which is the operator's to read.
        msg = "the time-stamp authority did not answer; the PDF was not signed"
        raise ProviderUnavailableError(msg, provider="time-stamp authority") from None
    except SigningError as exc:  # a signed field of that name exists already
        msg = f"the PDF could not be signed: {exc}"
        raise InvalidRequestError.single("sign.field_name", msg) from None
    return bytes(out.getvalue())
