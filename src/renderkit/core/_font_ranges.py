"""Which characters the packaged Inter's Latin file holds (``scripts/split_inter.py`` builds
it; ``shell.font_face_css`` gives it as the face's ``unicode-range``).

Standard library only: the font script loads this file by path, without the package.
"""

from __future__ import annotations

__all__ = ["INTER_LATIN", "unicode_range"]

#: Basic Latin, Latin-1, general punctuation, the euro and a few signs: what Google Fonts
#: serves as Inter's "latin" file. A Latin-1 letter written with a separate combining accent
#: still draws from it (HarfBuzz composes the pair into the accented letter); with every
#: combining mark in the file, its layout features would pull in all of Latin Extended's
#: accented letters (1,027 glyphs instead of 562, and most of the time saved).
INTER_LATIN: tuple[tuple[int, int], ...] = (
    (0x0000, 0x00FF),
    (0x0131, 0x0131),
    (0x0152, 0x0153),
    (0x02BB, 0x02BC),
    (0x02C6, 0x02C6),
    (0x02DA, 0x02DA),
    (0x02DC, 0x02DC),
    (0x0304, 0x0304),
    (0x0308, 0x0308),
    (0x0329, 0x0329),
    (0x2000, 0x206F),
    (0x20AC, 0x20AC),
    (0x2122, 0x2122),
    (0x2191, 0x2191),
    (0x2193, 0x2193),
    (0x2212, 0x2212),
    (0x2215, 0x2215),
    (0xFEFF, 0xFEFF),
    (0xFFFD, 0xFFFD),
)


def unicode_range(ranges: tuple[tuple[int, int], ...]) -> str:
    """``ranges`` as the value of a CSS ``unicode-range`` descriptor."""
    return ",".join(
        f"U+{start:04X}" if start == end else f"U+{start:04X}-{end:04X}" for start, end in ranges
    )
