"""The operator's signing material, :class:`Signer`, and :func:`sign_pdf`, which signs a
finished PDF (PAdES, with pyHanko from the ``sign`` extra: imported only when a signer is
built or a PDF signed).

A signature is an incremental update: the signed bytes are the document as it is plus a
signature dictionary whose digest covers every byte but the signature itself. Any later
rewrite (qpdf's included) breaks it, so signing is always the last step of
:func:`~renderkit.pdfops.pdf_ops`, after encryption.

Levels (ETSI EN 319 142-1): PAdES B-B (``/ETSI.CAdES.detached``, the signing certificate
bound by ``signing-certificate-v2``, the signing time in ``/M``), and B-T when the signer has
a ``timestamp_url``: an RFC 3161 time stamp over the signature from that authority. B-LT and
B-LTA (revocation data and document time stamps) are not offered.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, cast

import anyio.to_thread
import attrs

from renderkit.core.optional import require_module

if TYPE_CHECKING:
    from pyhanko.sign.signers import SimpleSigner

__all__ = ["SIGNATURE_LEVELS", "Signer", "sign_pdf", "signed"]

#: The PAdES baseline levels :func:`sign_pdf` produces.
SIGNATURE_LEVELS = ("B-B", "B-T")


def _require_pyhanko() -> None:
    require_module("pyhanko", purpose="signing PDFs", extra="sign")


@attrs.frozen(kw_only=True)
class Signer:
    """The operator's signing material: a private key, its certificate and the chain,
    opened (and so checked) once. Build it with :meth:`from_pkcs12` or :meth:`from_pem`;
    it never shows the key (no repr, no equality).

    Attributes:
        timestamp_url: an RFC 3161 time-stamp authority; with one, signatures are PAdES
            B-T, else B-B.
    """

    # A pyHanko SimpleSigner, typed loosely: servers introspect the attributes of what they
    # inject, and pyHanko is an optional extra that may not be importable there.
    _signer: object = attrs.field(repr=False, eq=False, alias="signer")
    timestamp_url: str | None = None

    @staticmethod
    def passphrase_line(raw: bytes) -> bytes:
        """The passphrase a passphrase file holds: its one line, without the newline an
        editor or ``echo`` adds (which is not part of the passphrase)."""
        return raw.removesuffix(b"\n").removesuffix(b"\r")

    @classmethod
    def from_pkcs12(
        cls, data: bytes, passphrase: bytes | str | None = None, *, timestamp_url: str | None = None
    ) -> Signer:
        """A signer from a PKCS#12 (``.p12``/``.pfx``) archive: key, certificate, chain.

        Raises:
            ConfigurationError: the archive cannot be opened with ``passphrase`` (the
                message names neither).
            MissingDependencyError: pyHanko (``renderkit[sign]``) is not installed.
        """
        _require_pyhanko()
        from renderkit.pdfops import _pades

        return cls(signer=_pades.load_pkcs12(data, passphrase), timestamp_url=timestamp_url)

    @classmethod
    def from_pem(
        cls,
        key: bytes,
        certificates: bytes,
        passphrase: bytes | str | None = None,
        *,
        timestamp_url: str | None = None,
    ) -> Signer:
        """A signer from a PEM (or DER) private key and PEM certificates: the signer's
        first, then its chain.

        Raises:
            ConfigurationError: the key cannot be opened with ``passphrase``, there is no
                certificate, or the first certificate is not the key's.
            MissingDependencyError: pyHanko (``renderkit[sign]``) is not installed.
        """
        _require_pyhanko()
        from renderkit.pdfops import _pades

        signer = _pades.load_pem(key, certificates, passphrase)
        return cls(signer=signer, timestamp_url=timestamp_url)

    @property
    def level(self) -> str:
        """The PAdES baseline level of this signer's signatures (``B-B`` or ``B-T``)."""
        basic, timestamped = SIGNATURE_LEVELS
        return timestamped if self.timestamp_url else basic

    @property
    def subject(self) -> str:
        """The signing certificate's subject as readers show it (``Common Name: ...``)."""
        cert = self.pyhanko_signer.signing_cert
        assert cert is not None  # both constructors set it
        return str(cert.subject.human_friendly)

    @property
    def pyhanko_signer(self) -> SimpleSigner:
        """The pyHanko signer this wraps (for :func:`sign_pdf`)."""
        return cast("SimpleSigner", self._signer)


async def sign_pdf(
    pdf: bytes,
    signer: Signer,
    *,
    reason: str | None = None,
    location: str | None = None,
    contact_info: str | None = None,
    field_name: str = "Signature1",
    password: str | None = None,
) -> bytes:
    """Sign a finished PDF (PAdES at :attr:`Signer.level`) as an incremental update, in a
    worker thread (with B-T, after a request to the time-stamp authority).

    Nothing may rewrite the result afterwards; only incremental updates keep the signature.

    Args:
        pdf: the document, already in its final form.
        signer: the key and certificates.
        reason, location, contact_info: written to the signature dictionary.
        field_name: the name of the (invisible) signature field created.
        password: the owner password of an encrypted ``pdf`` (the signature's update is
            encrypted with the document).

    Returns:
        The signed document: ``pdf`` followed by the signature's update.

    Raises:
        InvalidRequestError: ``pdf`` is not a PDF, is encrypted and ``password`` is not its
            owner password, or already has a signed field named ``field_name``.
        ProviderUnavailableError: the time-stamp authority did not answer (B-T).
        MissingDependencyError: pyHanko (``renderkit[sign]``) is not installed.
    """
    work = functools.partial(
        signed,
        pdf,
        signer,
        reason=reason,
        location=location,
        contact_info=contact_info,
        field_name=field_name,
        password=password,
    )
    return await anyio.to_thread.run_sync(work)


def signed(
    pdf: bytes,
    signer: Signer,
    *,
    reason: str | None,
    location: str | None,
    contact_info: str | None,
    field_name: str,
    password: str | None,
) -> bytes:
    """:func:`sign_pdf`'s work, blocking: for code already in a worker thread (never on an
    event loop: pyHanko runs its own)."""
    _require_pyhanko()
    from renderkit.pdfops import _pades

    return _pades.sign(
        pdf,
        signer.pyhanko_signer,
        timestamp_url=signer.timestamp_url,
        reason=reason,
        location=location,
        contact_info=contact_info,
        field_name=field_name,
        password=password,
    )
