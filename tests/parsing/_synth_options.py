"""What every factory option promises: the documents it does not draw stay as they were."""

from __future__ import annotations

from collections.abc import Callable

from renderkit.parsing.synth import Variations, make_documents
from renderkit.parsing.synth.documents import SynthDocument
from renderkit.parsing.synth.render import invoice_html


def drawn_invoices(
    option: str, *, seed: int, count: int, drawn: Callable[[SynthDocument], bool]
) -> list[tuple[SynthDocument, SynthDocument]]:
    """The invoices of ``seed`` that ``option`` changed, as (without, with) pairs; every
    other one is asserted the same document, truth and page, with the option as without."""
    plain = make_documents("invoice", count, seed)
    optioned = make_documents("invoice", count, seed, Variations(**{option: True}))
    pairs = []
    for a, b in zip(plain, optioned, strict=True):
        assert isinstance(a, SynthDocument) and isinstance(b, SynthDocument)
        if drawn(b):
            pairs.append((a, b))
        else:
            assert a.truth() == b.truth()
            assert invoice_html(a) == invoice_html(b)
    return pairs
