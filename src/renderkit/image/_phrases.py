"""Where Chinese, Japanese and Korean text may break: the card's CJK language and its phrases.

Images have no locale, so the language is read from the script of the card's own text: kana
anywhere makes every CJK field Japanese (a kanji-only title beside a kana subtitle is still
Japanese), else Hangul makes it Korean and Han Chinese. The language goes on each field as
``lang`` (Han glyph forms, and the stylesheet's ``word-break: keep-all``).

Wrapped CJK text is cut into phrases by BudouX, the model behind Chromium's ``word-break:
auto-phrase``, and a zero-width space (U+200B) goes between phrases: under ``keep-all`` those
are the only places a line may break. Chromium's own ``auto-phrase`` is not used because it
quietly breaks inside a phrase that is wider than the line, which the fitting script cannot
see; with the phrases marked, such a phrase overflows and the title shrinks until it fits
whole. Korean keeps its words by the spaces between them and needs no marks.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import budoux

__all__ = ["cjk_lang", "is_cjk", "mark_phrases"]

_PHRASE_BREAK = "\u200b"  # ZERO WIDTH SPACE: a line-break opportunity that draws nothing

_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def cjk_lang(texts: Iterable[str | None]) -> str | None:
    """``ja``, ``ko`` or ``zh`` for a card whose text is (partly) CJK, else None."""
    text = " ".join(t for t in texts if t)
    if _KANA.search(text):
        return "ja"
    if _HANGUL.search(text):
        return "ko"
    return "zh" if _HAN.search(text) else None


def is_cjk(text: str | None) -> bool:
    """Whether ``text`` holds any kana, Hangul or Han character."""
    return bool(text) and any(p.search(text or "") for p in (_KANA, _HANGUL, _HAN))


@functools.cache
def _parser(lang: str) -> budoux.Parser:
    if lang == "ja":
        return budoux.load_default_japanese_parser()
    return budoux.load_default_simplified_chinese_parser()


def mark_phrases(text: str, lang: str | None) -> str:
    """``text`` with a zero-width space between its phrases, for Japanese and Chinese.

    Other text is returned as it is.
    """
    if lang not in ("ja", "zh") or not is_cjk(text):
        return text
    return _PHRASE_BREAK.join(_parser(lang).parse(text))
