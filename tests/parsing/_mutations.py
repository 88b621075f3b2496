"""Mutated PDFs and images: a Hypothesis strategy over a few real seed documents, shared by
the in-process parsing tests and the adversarial suite against a real server."""

from __future__ import annotations

import zlib

from hypothesis import strategies as st
from PIL import Image

from . import _hostile
from ._documents import encode, image_pdf, text_pdf
from ._hostile import JPEG, PDF, PNG

SEEDS = {
    "text": (text_pdf([["INVOICE", "Invoice No: INV-1", "Total EUR 12.00"]]), PDF),
    "scan": (image_pdf(Image.new("L", (120, 90), 0)), PDF),
    "deflated": (_hostile.content_bomb_pdf(2_000_000), PDF),
    "attached": (_hostile.attachment_bomb_pdf(4_000, 2), PDF),
    "png": (encode(Image.new("L", (64, 48), 30)), PNG),
    "jpeg": (encode(Image.new("L", (64, 48), 30), "JPEG"), JPEG),
}


@st.composite
def mutated(draw: st.DrawFn) -> tuple[bytes, str]:
    content, mime = SEEDS[draw(st.sampled_from(sorted(SEEDS)))]
    data = bytearray(content)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "deflate"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if kind == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del data[max(16, at) :]
        elif kind == "insert":
            data[at:at] = draw(
                st.sampled_from(
                    [b"[" * 5000, b" 0 0 R", b"/MediaBox [0 0 1e9 1e9]", b"xref", b"\xff" * 64]
                )
            )
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        else:  # a Flate bomb spliced where a stream's data may begin
            data[at:at] = zlib.compress(bytes(draw(st.integers(1, 32)) << 20), 9)
    return bytes(data), mime
