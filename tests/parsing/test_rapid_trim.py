from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from renderkit.parsing import RapidOcr
from renderkit.parsing.readers._rapid_trim import kept, onnx_available, trimmed_model
from renderkit.parsing.readers.rapidocr import rapidocr_available

from ._documents import receipt_image

needs_models = pytest.mark.skipif(
    not (rapidocr_available() and onnx_available()), reason="rapidocr or onnx not installed"
)

# Latin-script text beyond ASCII: accents, currency signs, typographic punctuation.
LINES = [
    "CAFÉ MÜLLER GmbH",
    "Königstraße 12, 80331 München",
    "Rechnung Nr. 2026-0042",
    "2 x Crème brûlée      13,80 €",
    "1 x Espresso           2,40 €",
    "Señor Peña – Zürich",
    "Total: 1.234,56 EUR",
]


def _bundled_rec() -> Path:
    import rapidocr

    return next((Path(rapidocr.__file__).parent / "models").glob("*rec*.onnx"))


def _characters(engine: RapidOcr) -> list[str]:
    # The characters RapidOCR decodes class numbers into (blank first, space last).
    decoder: Any = engine.engine(1).text_rec.postprocess_op
    return list(decoder.character)


def test_the_kept_characters_are_those_latin_script_documents_print() -> None:
    for character in "Aaz09.,:;%&@()/-€£¥$çéßøłőšțẞ–—‘’“”•…−":
        assert kept(character), character
    for character in ("中", "あ", "한", "→", "★", "Ω", "ab"):
        assert not kept(character), character


@needs_models
def test_the_trimmed_model_scores_the_kept_characters_as_the_full_model_ranks_them() -> None:
    import onnx
    import onnxruntime

    source = _bundled_rec()
    trimmed = trimmed_model(source)
    full_model = onnx.load(str(source))
    characters = next(p.value for p in full_model.metadata_props if p.key == "character")
    full_chars = characters.splitlines()
    small = onnx.load_from_string(trimmed)
    small_chars = next(p.value for p in small.metadata_props if p.key == "character").splitlines()
    assert small_chars == [c for c in full_chars if kept(c)]
    assert 500 < len(small_chars) < 1000

    batch = np.random.default_rng(7).uniform(-1, 1, (2, 3, 48, 160)).astype(np.float32)
    full_run = onnxruntime.InferenceSession(str(source)).run(None, {"x": batch})[0]
    small_run = onnxruntime.InferenceSession(trimmed).run(None, {"x": batch})[0]
    keep = [0, *(i + 1 for i, c in enumerate(full_chars) if kept(c)), len(full_chars) + 1]
    assert small_run.shape == (*full_run.shape[:2], len(keep))
    # Same logits for the kept classes: the full model's probabilities, renormalised.
    restricted = full_run[..., keep]
    expected = restricted / restricted.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(small_run, expected, rtol=1e-3, atol=1e-5)


@needs_models
@pytest.mark.anyio
async def test_the_trimmed_model_reads_a_rendered_receipt_exactly_as_the_bundled_one() -> None:
    image = receipt_image(LINES)
    trimmed, bundled = RapidOcr(threads=1), RapidOcr(threads=1, latin_only=False)
    ours = await trimmed.recognize(image, page=1, detect_orientation=False)
    theirs = await bundled.recognize(image, page=1, detect_orientation=False)
    assert len(_characters(trimmed)) < 1000 < 18000 < len(_characters(bundled))
    assert [line.text for line in ours.lines] == [line.text for line in theirs.lines]
    assert [w.bbox for w in ours.words] == [w.bbox for w in theirs.words]
    assert "Total: 1.234,56 EUR" in ours.text
    assert "€" in ours.text


@needs_models
@pytest.mark.anyio
async def test_a_yen_sign_is_read_as_latin_text_not_as_a_cjk_full_width_form() -> None:
    # The full model reads "¥" as the full-width "￥", and its word boxes then cut the line
    # into one word per character ("1 2 . 5 0 p a i d"); the trimmed model has no such forms.
    image = receipt_image(["Paid: 12.50, ¥ 300"])
    page = await RapidOcr(threads=1).recognize(image, page=1, detect_orientation=False)
    assert [word.text for word in page.words][:2] == ["Paid:", "12.50,"]
    assert "¥" in page.text


@needs_models
@pytest.mark.anyio
async def test_without_onnx_the_bundled_model_reads_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)
    assert not onnx_available()
    engine = RapidOcr(threads=1)
    page = await engine.recognize(receipt_image(LINES), page=1, detect_orientation=False)
    assert len(_characters(engine)) > 18000
    assert "Total: 1.234,56 EUR" in page.text


@needs_models
def test_a_model_without_a_character_list_is_refused(tmp_path: Path) -> None:
    import onnx

    model = onnx.load(str(_bundled_rec()))
    del model.metadata_props[:]
    path = tmp_path / "rec.onnx"
    path.write_bytes(model.SerializeToString())
    with pytest.raises(ValueError, match="character list"):
        trimmed_model(path)
