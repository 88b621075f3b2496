"""The recognition model cut down to the characters of Latin-script documents.

RapidOCR's bundled recognition model reads Chinese and Latin script: its last layer scores
18,710 classes (the CTC blank, 18,708 characters, the space) for every column of every text
line, and that layer with its softmax took about 28% of recognition on a receipt. Documents
in Latin script need a few hundred of those classes. Keeping only their rows of the final
weight matrix and bias gives a model whose best class is the same wherever the full model's
best class is kept, and whose probabilities differ only by the (tiny, on Latin text) mass the
full model put on the dropped characters.

The trimmed model is built in memory with the ``onnx`` package; without it the caller keeps
the untouched model.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

__all__ = ["KEPT_RANGES", "kept", "onnx_available", "trimmed_model"]

# Inclusive code point ranges of the characters kept: what Latin-script documents print.
KEPT_RANGES: tuple[tuple[int, int], ...] = (
    (0x0020, 0x007E),  # Basic Latin: letters, digits, ASCII punctuation
    (0x00A0, 0x00FF),  # Latin-1 Supplement: accented letters, £ ¥ ¢, « », °, the times sign
    (0x0100, 0x024F),  # Latin Extended-A and -B (Central European, Romanian ș ț, ...)
    (0x1E00, 0x1EFF),  # Latin Extended Additional (Vietnamese and others)
    (0x2010, 0x205E),  # General Punctuation: dashes, curly quotes, bullet, ellipsis, ‰
    (0x20A0, 0x20CF),  # Currency Symbols: €, ₹, ₽, ...
    (0x2212, 0x2212),  # the minus sign
)

# The model's metadata key holding its characters, one per line (RapidOCR reads it there).
_CHARACTERS = "character"


def onnx_available() -> bool:
    """Whether the ``onnx`` package can be imported (without importing it)."""
    return importlib.util.find_spec("onnx") is not None


def kept(character: str) -> bool:
    """Whether the trimmed model keeps ``character`` (one dictionary entry)."""
    return len(character) == 1 and any(lo <= ord(character) <= hi for lo, hi in KEPT_RANGES)


def trimmed_model(path: Path) -> bytes:
    """The recognition model at ``path`` scoring only the kept characters, serialised.

    The classes are the CTC blank (first), the model's characters (its ``character``
    metadata, in order) and the space (last), as RapidOCR decodes them. Every weight whose
    last axis runs over the classes (the final MatMul's weights and the Add's bias) keeps the
    kept classes' entries, the declared output size follows, and the metadata lists the kept
    characters, so RapidOCR decodes the new class numbers into the same characters.

    Raises:
        ImportError: the ``onnx`` package is not installed.
        ValueError: the model carries no character list, or no weight shaped by its classes.
    """
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    metadata = {prop.key: prop for prop in model.metadata_props}
    if _CHARACTERS not in metadata:
        msg = f"the recognition model {path.name} carries no character list"
        raise ValueError(msg)
    characters = metadata[_CHARACTERS].value.splitlines()
    classes = len(characters) + 2
    keep = [0, *(i + 1 for i, c in enumerate(characters) if kept(c)), classes - 1]
    sliced = 0
    for index, tensor in enumerate(model.graph.initializer):
        if tensor.dims and tensor.dims[-1] == classes:
            weights = numpy_helper.to_array(tensor)[..., keep]
            model.graph.initializer[index].CopyFrom(numpy_helper.from_array(weights, tensor.name))
            sliced += 1
    if not sliced:
        msg = f"the recognition model {path.name} has no weight shaped by its {classes} classes"
        raise ValueError(msg)
    # Declared shapes mentioning the class count would contradict the new weights.
    for value in (*model.graph.output, *model.graph.value_info):
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_value") and dim.dim_value == classes:
                dim.dim_value = len(keep)
    metadata[_CHARACTERS].value = "\n".join(characters[i - 1] for i in keep[1:-1])
    serialised: bytes = model.SerializeToString()
    return serialised
