"""Opening a PDF encrypted with an empty user password, so its streams can be measured.

Many generated invoices are encrypted only to set permissions (no printing, no copying): they
open without a password, and PDFium reads them. Their streams are ciphertext, though, so the
cost ceilings of :mod:`.streams` could not measure them before PDFium inflates them whole.
Such a file is decrypted here with pypdf, whose own decoders are bounded, and the plain copy
is what the ceilings check and PDFium reads. A file that needs a password is refused.
"""

from __future__ import annotations

import io
import re

from pypdf import PdfReader, PdfWriter

from renderkit.core.errors import InvalidRequestError

__all__ = ["decrypted"]

_ENCRYPT = re.compile(rb"/Encrypt\s*(?:<<|\d+\s+\d+\s+R)")


def decrypted(content: bytes, *, max_bytes: int) -> bytes:
    """``content`` itself if it is not encrypted, else a decrypted copy of the PDF.

    Args:
        content: the PDF's bytes.
        max_bytes: the largest copy accepted (the decrypted file is about as large as the
            encrypted one; a much larger copy means something was inflated).

    Raises:
        InvalidRequestError: on field ``file``: the PDF needs a password, or its encryption
            cannot be read.
    """
    if not _ENCRYPT.search(content):
        return content
    try:
        reader = PdfReader(io.BytesIO(content), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            msg = "is an encrypted PDF that needs a password; send it decrypted"
            raise InvalidRequestError.single("file", msg)
        writer = PdfWriter(clone_from=reader)
        out = io.BytesIO()
        writer.write(out)
    except InvalidRequestError:
        raise
    except Exception as exc:  # any failure of pypdf on untrusted bytes is the file's fault
        msg = f"is an encrypted PDF that could not be opened ({type(exc).__name__})"
        raise InvalidRequestError.single("file", msg) from None
    plain = out.getvalue()
    if len(plain) > max_bytes:
        msg = f"is an encrypted PDF whose decrypted copy is larger than {max_bytes:,} bytes"
        raise InvalidRequestError.single("file", msg)
    return plain
