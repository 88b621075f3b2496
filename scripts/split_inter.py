"""Split the packaged Inter into a Latin file and a file of the rest, per weight.

Chromium's PDF backend (Skia) subsets every embedded font with HarfBuzz when the document is
closed, and the time that takes grows with the font's glyph count: Inter's 2,548 glyphs cost
the 30-line invoice about 2 ms of its print (issue #30). Split as Google Fonts serves Inter,
a Latin document uses (and embeds) only the Latin file, about 560 glyphs; text in other
scripts (Cyrillic, Greek, Vietnamese, symbols) draws from the rest, the same outlines and
metrics. Every layout feature of the source (kerning, tabular figures, case forms, stylistic
sets) is kept in both files with the glyphs it reaches, so the documents look the same
(tests/pdf/test_looks.py, tests/image/test_looks.py).

The source is Inter 3.19 ("Version 3.019;git-0a5106e0b", Debian's fonts-inter, CFF outlines
converted to TrueType), as packaged whole in commit dcf2481fff (main before the split).
Run with a Python that has fonttools and brotli (not project dependencies; the packaged files
were built with fontTools 4.55.3 and brotli 1.2.1), from the repository's root:
``python scripts/split_inter.py`` (reads the whole fonts from git) or
``python scripts/split_inter.py --source DIR`` (a folder of ``Inter-<Weight>.woff2``).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import subprocess
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

ROOT = Path(__file__).parent.parent
FONTS = ROOT / "src/renderkit/core/assets/fonts"
#: The last commit that packaged the whole fonts.
SOURCE_COMMIT = "dcf2481fffc0d3ba4e0f16ceff4f804893079e2e"
WEIGHTS = ("Regular", "Medium", "SemiBold", "Bold", "ExtraBold")
COMBINING_MARKS = range(0x0300, 0x0370)


def _latin_ranges() -> tuple[tuple[int, int], ...]:
    # Loaded by path: the ranges module needs only the standard library, renderkit its
    # dependencies, which this script's Python need not have.
    path = ROOT / "src/renderkit/core/_font_ranges.py"
    spec = importlib.util.spec_from_file_location("_font_ranges", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ranges: tuple[tuple[int, int], ...] = module.INTER_LATIN
    return ranges


def _source(weight: str, folder: Path | None) -> bytes:
    name = f"Inter-{weight}.woff2"
    if folder is not None:
        return (folder / name).read_bytes()
    spec = f"{SOURCE_COMMIT}:src/renderkit/core/assets/fonts/{name}"
    return subprocess.run(["git", "show", spec], cwd=ROOT, capture_output=True, check=True).stdout


def _subset(data: bytes, unicodes: set[int]) -> bytes:
    options = subset.Options()
    options.layout_features = ["*"]  # every feature, and the glyphs it reaches
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.name_legacy = True
    options.notdef_outline = True
    options.flavor = "woff2"
    # The source's timestamp kept: the same source gives the same bytes.
    font = TTFont(io.BytesIO(data), recalcTimestamp=False)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=unicodes)
    subsetter.subset(font)
    out = io.BytesIO()
    subset.save_font(font, out, options)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, help="a folder of the whole Inter-<Weight>.woff2")
    args = parser.parse_args()
    latin = {code for start, end in _latin_ranges() for code in range(start, end + 1)}
    for weight in WEIGHTS:
        data = _source(weight, args.source)
        cmap = set(TTFont(io.BytesIO(data)).getBestCmap())
        # Every combining mark goes in the rest too: a Cyrillic or Greek letter and its mark
        # are shaped by one font.
        rest = (cmap - latin) | (cmap & set(COMBINING_MARKS))
        for part, unicodes in (("latin", cmap & latin), ("rest", rest)):
            target = FONTS / f"Inter-{weight}-{part}.woff2"
            target.write_bytes(_subset(data, unicodes))
            print(f"{target.relative_to(ROOT)}: {target.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
