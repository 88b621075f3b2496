"""Checking produced signatures with pyHanko's own validator, trusting only the test CA."""

from __future__ import annotations

import io

import attrs
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import async_validate_pdf_signature
from pyhanko.sign.validation.pdf_embedded import EmbeddedPdfSignature
from pyhanko.sign.validation.status import PdfSignatureStatus
from pyhanko_certvalidator import ValidationContext

from ._certs import Credentials

__all__ = ["Checked", "pades_level", "validate"]


@attrs.frozen(kw_only=True)
class Checked:
    """One embedded signature and what the validator said of it."""

    signature: EmbeddedPdfSignature
    status: PdfSignatureStatus


def _context(credentials: Credentials) -> ValidationContext:
    return ValidationContext(trust_roots=[asn1_x509.Certificate.load(credentials.ca_der)])


async def validate(
    content: bytes, credentials: Credentials, *, password: str | None = None
) -> list[Checked]:
    """Every signature of ``content``, validated against the test CA alone (a fresh context
    per signature: a context caches what it has validated)."""
    reader = PdfFileReader(io.BytesIO(content), strict=False)
    if password is not None:
        reader.decrypt(password)
    found = []
    for signature in reader.embedded_signatures:
        status = await async_validate_pdf_signature(
            signature, _context(credentials), ts_validation_context=_context(credentials)
        )
        found.append(Checked(signature=signature, status=status))
    return found


def pades_level(signature: EmbeddedPdfSignature) -> str | None:
    """The PAdES baseline level the signature's structure meets (ETSI EN 319 142-1 §6.3:
    B-B needs ``/ETSI.CAdES.detached``, ``signing-certificate-v2`` naming the signer's
    certificate, ``/M`` in the signature dictionary and no CMS ``signing-time``; B-T adds a
    signature time stamp), or None."""
    if signature.sig_object.get("/SubFilter") != "/ETSI.CAdES.detached":
        return None
    if "/M" not in signature.sig_object:
        return None
    signed = {attr["type"].native: attr for attr in signature.signer_info["signed_attrs"]}
    if "signing_time" in signed or "signing_certificate_v2" not in signed:
        return None
    cert_ids = signed["signing_certificate_v2"]["values"][0]["certs"]
    if cert_ids[0]["cert_hash"].native != signature.signer_cert.sha256:
        return None
    unsigned = signature.signer_info["unsigned_attrs"]
    stamped = unsigned.native is not None and any(
        attr["type"].native == "signature_time_stamp_token" for attr in unsigned
    )
    return "B-T" if stamped else "B-B"
