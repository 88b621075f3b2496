"""PAdES signatures on produced PDFs, checked with pyHanko's own validator trusting only a
throwaway CA made for the run (tests/pdfops/_certs.py)."""

from __future__ import annotations

import io
import zipfile

import pikepdf
import pytest
from pyhanko.sign.validation.status import PdfSignatureStatus, SignatureCoverageLevel

from renderkit import ConfigurationError, InvalidRequestError, ProviderUnavailableError
from renderkit.browser import ChromiumPool
from renderkit.pdfops import PdfOpsRequest, Signer, pdf_ops, sign_pdf

from ..parsing._documents import text_pdf
from ._certs import Credentials, make_credentials
from ._pdfs import b64, page_texts
from ._tsa import time_stamp_authority
from ._verify import pades_level, validate

pytestmark = pytest.mark.anyio

THREE = text_pdf([["Alpha page one"], ["Alpha page two"], ["Alpha page three"]])

#: A 30-line invoice, rendered by the invoice template.
INVOICE = {
    "template": "invoice",
    "data": {
        "company_name": "Northwind Studio",
        "client_name": "Contoso Ltd",
        "invoice_number": "INV-0042",
        "line_items": [
            {"description": f"Design work, item {n}", "quantity": 1 + n % 3, "unit_price": 40 + n}
            for n in range(30)
        ],
    },
}


@pytest.fixture(scope="module")
def credentials() -> Credentials:
    return make_credentials()


@pytest.fixture(scope="module")
def signer(credentials: Credentials) -> Signer:
    return Signer.from_pkcs12(credentials.p12, credentials.passphrase)


def _assert_whole_and_trusted(status: PdfSignatureStatus) -> None:
    assert status.intact and status.valid and status.trusted
    assert status.bottom_line
    assert status.coverage == SignatureCoverageLevel.ENTIRE_FILE


@pytest.mark.browser
async def test_a_rendered_invoice_signed_last_is_an_intact_trusted_pades_b_b_over_the_whole_file(
    pool: ChromiumPool, credentials: Credentials, signer: Signer
) -> None:
    result = await pdf_ops(
        {
            "files": [{"render": INVOICE}],
            "metadata": {"title": "Invoice INV-0042"},
            "sign": {"reason": "Issued by Northwind", "location": "Berlin"},
        },
        browser=pool,
        signer=signer,
    )
    assert result.steps == ("metadata", "sign")
    assert result.signature_level == "B-B"
    assert "INV-0042" in page_texts(result.content)[0]
    [checked] = await validate(result.content, credentials)
    _assert_whole_and_trusted(checked.status)
    assert pades_level(checked.signature) == "B-B"
    assert checked.signature.sig_object["/Reason"] == "Issued by Northwind"
    assert checked.signature.sig_object["/Location"] == "Berlin"
    assert checked.signature.signer_cert.subject.native["common_name"] == "renderkit test signer"


async def test_sign_is_the_last_step_whatever_else_is_asked() -> None:
    request = PdfOpsRequest(
        files=[{"file": b64(THREE)}, {"file": b64(THREE)}],  # type: ignore[list-item]
        sign={"reason": "x"},  # type: ignore[arg-type]
        encrypt={"owner_password": "o"},  # type: ignore[arg-type]
        split=["1-2", "3-"],
        watermark={"text": "DRAFT"},  # type: ignore[arg-type]
    )
    assert request.steps == ("merge", "watermark", "split", "encrypt", "sign")


async def test_flipping_one_signed_byte_breaks_the_signature(
    credentials: Credentials, signer: Signer
) -> None:
    signed = await sign_pdf(THREE, signer)
    [intact] = await validate(signed, credentials)
    _assert_whole_and_trusted(intact.status)
    # The binary comment on the header's second line: covered by the signature, and the
    # file still parses with it changed.
    index = signed.index(b"\n", 0) + 2
    tampered = signed[:index] + bytes([signed[index] ^ 0x01]) + signed[index + 1 :]
    [checked] = await validate(tampered, credentials)
    assert not checked.status.intact
    assert not checked.status.bottom_line


async def test_an_edit_after_signing_breaks_the_signature_which_is_why_sign_runs_last(
    credentials: Credentials, signer: Signer
) -> None:
    signed = await sign_pdf(THREE, signer)
    with pikepdf.open(io.BytesIO(signed)) as pdf:
        del pdf.pages[2]
        out = io.BytesIO()
        pdf.save(out)
    checked = await validate(out.getvalue(), credentials)
    assert checked and not any(item.status.bottom_line for item in checked)


async def test_a_signed_and_encrypted_pdf_opens_with_its_password_and_validates_whole(
    credentials: Credentials, signer: Signer
) -> None:
    result = await pdf_ops(
        {
            "files": [{"file": b64(THREE)}],
            "encrypt": {"owner_password": "owner-pw", "user_password": "user-pw"},
            "sign": {"reason": "Approved"},
        },
        signer=signer,
    )
    assert result.encrypted and result.signature_level == "B-B"
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(result.content))
    assert "Alpha page two" in page_texts(result.content, password="user-pw")[1]
    [checked] = await validate(result.content, credentials, password="user-pw")
    _assert_whole_and_trusted(checked.status)
    assert pades_level(checked.signature) == "B-B"


async def test_an_encrypted_pdf_is_not_signed_without_its_owner_password(
    signer: Signer,
) -> None:
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(THREE)) as pdf:
        pdf.save(out, encryption=pikepdf.Encryption(owner="owner-pw", user="user-pw", R=6))
    with pytest.raises(InvalidRequestError) as caught:
        await sign_pdf(out.getvalue(), signer, password="user-pw")
    assert caught.value.errors[0].field == "encrypt.owner_password"


async def test_every_split_part_is_signed_and_validates_whole(
    credentials: Credentials, signer: Signer
) -> None:
    result = await pdf_ops(
        {"files": [{"file": b64(THREE)}], "split": ["1", "2-3"], "sign": {}}, signer=signer
    )
    with zipfile.ZipFile(io.BytesIO(result.content)) as archive:
        parts = [archive.read(name) for name in archive.namelist()]
    assert len(parts) == 2
    for part in parts:
        [checked] = await validate(part, credentials)
        _assert_whole_and_trusted(checked.status)


async def test_asking_to_sign_without_a_signer_is_refused_naming_sign_before_any_work() -> None:
    # No browser either: the render input would be a ConfigurationError if reached.
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [{"render": INVOICE}], "sign": {}})
    assert caught.value.errors[0].field == "sign"
    assert "not enabled" in caught.value.errors[0].message


async def test_a_wrong_passphrase_is_a_configuration_error_that_never_shows_the_passphrase(
    credentials: Credentials,
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Signer.from_pkcs12(credentials.p12, "not the passphrase")
    assert "not the passphrase" not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    with pytest.raises(ConfigurationError):
        Signer.from_pkcs12(b"not a p12 archive", credentials.passphrase)


async def test_a_signer_never_shows_its_key(credentials: Credentials, signer: Signer) -> None:
    key_der = credentials.key_pem().split(b"\n")[1].decode()
    assert key_der not in repr(signer)
    assert repr(signer) == "Signer(timestamp_url=None)"


async def test_a_pem_key_and_chain_sign_like_a_p12(credentials: Credentials) -> None:
    signer = Signer.from_pem(credentials.key_pem("pem-pw"), credentials.chain_pem(), "pem-pw")
    [checked] = await validate(await sign_pdf(THREE, signer), credentials)
    _assert_whole_and_trusted(checked.status)
    assert signer.subject.startswith("Common Name: renderkit test signer")


async def test_a_pem_certificate_of_another_key_is_refused(credentials: Credentials) -> None:
    other = make_credentials()
    with pytest.raises(ConfigurationError):
        Signer.from_pem(other.key_pem(), credentials.chain_pem())
    with pytest.raises(ConfigurationError):
        Signer.from_pem(credentials.key_pem("pw"), credentials.chain_pem(), "wrong")
    with pytest.raises(ConfigurationError):
        Signer.from_pem(credentials.key_pem(), b"no certificates here")


async def test_with_a_time_stamp_authority_the_signature_is_pades_b_t_with_a_trusted_stamp(
    credentials: Credentials,
) -> None:
    with time_stamp_authority(credentials) as url:
        signer = Signer.from_pkcs12(credentials.p12, credentials.passphrase, timestamp_url=url)
        assert signer.level == "B-T"
        result = await pdf_ops(
            {"files": [{"file": b64(THREE)}], "sign": {"reason": "Stamped"}}, signer=signer
        )
    assert result.signature_level == "B-T"
    [checked] = await validate(result.content, credentials)
    _assert_whole_and_trusted(checked.status)
    assert pades_level(checked.signature) == "B-T"
    stamp = checked.status.timestamp_validity
    assert stamp is not None and stamp.intact and stamp.valid and stamp.trusted


async def test_an_unreachable_time_stamp_authority_fails_the_signing_as_unavailable(
    credentials: Credentials,
) -> None:
    with time_stamp_authority(credentials) as url:
        pass  # the authority has stopped: its port refuses connections
    signer = Signer.from_pkcs12(credentials.p12, credentials.passphrase, timestamp_url=url)
    with pytest.raises(ProviderUnavailableError):
        await sign_pdf(THREE, signer)


@pytest.mark.parametrize("name", ["", "a.b", "x" * 101, "tab\there"])
async def test_a_bad_signature_field_name_is_refused(name: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        PdfOpsRequest(
            files=[{"file": b64(THREE)}],  # type: ignore[list-item]
            sign={"field_name": name},  # type: ignore[arg-type]
        )
    assert caught.value.errors[0].field.startswith("sign")


async def test_an_input_signed_already_is_re_signed_only_under_another_field_name(
    credentials: Credentials, signer: Signer
) -> None:
    signed = await sign_pdf(THREE, signer)
    with pytest.raises(InvalidRequestError) as caught:
        await pdf_ops({"files": [{"file": b64(signed)}], "sign": {}}, signer=signer)
    assert caught.value.errors[0].field == "sign.field_name"
    again = await pdf_ops(
        {"files": [{"file": b64(signed)}], "sign": {"field_name": "Second"}}, signer=signer
    )
    old, new = await validate(again.content, credentials)
    # qpdf copied the input into a new file: its signature no longer matches, as documented.
    assert not old.status.intact
    _assert_whole_and_trusted(new.status)
