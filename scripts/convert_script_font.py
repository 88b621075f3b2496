"""Rebuild the packaged certificate script face from Debian's fonts-dancingscript.

Chromium's PDF backend embeds only TrueType (glyf) outlines as font subsets; CFF outlines,
which the Debian package ships, are printed as Type 3 glyphs. So the certificate's script face
is converted once, with fontTools' cu2qu (cubic to quadratic curves within 1/1000 em), renamed
as the OFL asks of a modified font whose name is reserved ("Dancing Script" ->
"Renderkit Script") and packed as WOFF2 next to Inter.

Run with fonts-dancingscript installed (apt) and a Python that has fonttools and brotli (they
are not project dependencies):
``python scripts/convert_script_font.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont, newTable

SOURCE = Path("/usr/share/fonts/opentype/dancingscript/DancingScript-Regular.otf")
TARGET = Path(__file__).parent.parent / "src/renderkit/core/assets/fonts/RenderkitScript.woff2"
OLD_NAMES = ("Dancing Script", "DancingScript")
NEW_NAMES = ("Renderkit Script", "RenderkitScript")
MAX_ERROR_EM = 0.001


def to_truetype(font: TTFont) -> None:
    """Replace the CFF table by glyf/loca with quadratic outlines."""
    glyph_order = font.getGlyphOrder()
    glyph_set = font.getGlyphSet()
    max_error = MAX_ERROR_EM * font["head"].unitsPerEm
    glyphs = {}
    for name in glyph_order:
        pen = TTGlyphPen(glyph_set)
        glyph_set[name].draw(Cu2QuPen(pen, max_error, reverse_direction=True))
        glyphs[name] = pen.glyph()
    del font["CFF "]
    if "VORG" in font:
        del font["VORG"]
    glyf = font["glyf"] = newTable("glyf")
    glyf.glyphOrder = glyph_order
    glyf.glyphs = glyphs
    font["loca"] = newTable("loca")
    font["maxp"].tableVersion = 0x00010000
    for attr in [
        "maxZones",
        "maxTwilightPoints",
        "maxStorage",
        "maxFunctionDefs",
        "maxInstructionDefs",
        "maxStackElements",
        "maxSizeOfInstructions",
        "maxComponentElements",
    ]:
        setattr(font["maxp"], attr, 0)
    font["maxp"].maxZones = 1
    font["post"].formatType = 2.0
    font["post"].extraNames = []
    font["post"].mapping = {}
    font["post"].glyphOrder = glyph_order
    font["head"].glyphDataFormat = 0
    font.sfntVersion = "\x00\x01\x00\x00"


def rename(font: TTFont) -> None:
    for record in font["name"].names:
        text = record.toUnicode()
        for old, new in zip(OLD_NAMES, NEW_NAMES, strict=True):
            text = text.replace(old, new)
        record.string = text


def main() -> int:
    font = TTFont(SOURCE)
    to_truetype(font)
    rename(font)
    font.flavor = "woff2"
    font.save(TARGET)
    print(f"{TARGET}: {TARGET.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
