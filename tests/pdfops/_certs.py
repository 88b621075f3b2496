"""Throwaway signing material made with ``cryptography`` for each test run (no key is
committed): a CA, a signer it issues (as PKCS#12 and as PEM), and a time-stamp authority."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import attrs
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["Authority", "Credentials", "make_credentials"]


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "renderkit tests"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _usage(*, sign_certs: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=not sign_certs,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=sign_certs,
        crl_sign=sign_certs,
        encipher_only=False,
        decipher_only=False,
    )


@attrs.frozen(kw_only=True)
class Authority:
    """A certificate and its key (the time-stamp authority's, or the signer's)."""

    certificate: x509.Certificate
    key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


@attrs.frozen(kw_only=True)
class Credentials:
    """A CA, a signer it issued and a TSA it issued, and the signer's material as files."""

    ca: x509.Certificate
    signer: Authority
    tsa: Authority
    passphrase: str
    p12: bytes  # the signer's key, certificate and the CA, under ``passphrase``

    @property
    def ca_der(self) -> bytes:
        return self.ca.public_bytes(serialization.Encoding.DER)

    def key_pem(self, passphrase: str | None = None) -> bytes:
        encryption: serialization.KeySerializationEncryption = (
            serialization.BestAvailableEncryption(passphrase.encode())
            if passphrase
            else serialization.NoEncryption()
        )
        return self.signer.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
        )

    def chain_pem(self) -> bytes:
        return b"".join(
            cert.public_bytes(serialization.Encoding.PEM)
            for cert in (self.signer.certificate, self.ca)
        )


def _issue(
    subject: str,
    ca: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    *,
    timestamping: bool = False,
) -> Authority:
    # pyHanko's DummyTimeStamper, the test TSA, signs with RSA only.
    key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        if timestamping
        else ec.generate_private_key(ec.SECP256R1())
    )
    now = datetime.now(UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(days=7))
        .add_extension(_usage(sign_certs=False), critical=True)
    )
    if timestamping:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True
        )
    return Authority(certificate=builder.sign(ca_key, hashes.SHA256()), key=key)


def make_credentials(passphrase: str = "correct horse battery staple") -> Credentials:
    """Fresh keys and certificates (EC P-256: quick to make, accepted by every reader)."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(UTC)
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("renderkit test CA"))
        .issuer_name(_name("renderkit test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(days=7))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_usage(sign_certs=True), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    signer = _issue("renderkit test signer", ca, ca_key)
    tsa = _issue("renderkit test TSA", ca, ca_key, timestamping=True)
    p12 = pkcs12.serialize_key_and_certificates(
        b"signer",
        signer.key,
        signer.certificate,
        [ca],
        serialization.BestAvailableEncryption(passphrase.encode()),
    )
    return Credentials(ca=ca, signer=signer, tsa=tsa, passphrase=passphrase, p12=p12)
