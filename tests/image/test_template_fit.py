"""Real copy in every built-in template, measured from the DOM of a real Chromium: calls to
action up to 24 characters are never cut, the title takes the room the button leaves, and
Japanese titles break between words, never inside one, without a one-word last line."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from renderkit.browser import ChromiumPool
from renderkit.browser._pool import _shell_document
from renderkit.image._render import image_shell
from renderkit.image._templates import TEMPLATES, render_fragment

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

# Per element: its box, the box of its text (a Range), whether its content is cut, and for
# the title the index (in the text as given, zero-width phrase marks left out) where each
# line starts, read from the line boxes of its characters.
_MEASURE = """() => {
  const out = {};
  for (const sel of ['.rk-title', '.rk-main', '.rk-cta', '.rk-cta-label']) {
    const el = document.querySelector('#rk-root ' + sel);
    if (!el) continue;
    const r = el.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(el);
    const t = range.getBoundingClientRect();
    const style = getComputedStyle(el);
    const lineHeight = parseFloat(style.lineHeight);
    const starts = [];
    let index = 0, top = null;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        if (node.data[i] === '\\u200b') continue;
        const char = document.createRange();
        char.setStart(node, i);
        char.setEnd(node, i + 1);
        const rects = char.getClientRects();
        if (rects.length) {
          const y = rects[0].top;
          if (top === null || y > top + lineHeight / 2) starts.push(index);
          top = y;
        }
        index += 1;
      }
    }
    out[sel] = {
      box: [r.left, r.top, r.right, r.bottom],
      text: [t.left, t.top, t.right, t.bottom],
      clipped: el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1,
      clamped: Boolean(el.style.webkitLineClamp),
      fontSize: parseFloat(style.fontSize),
      fitMax: parseFloat(el.dataset.fitMax || '0'),
      lineStarts: starts,
    };
  }
  return out;
}"""


@dataclass(frozen=True)
class Card:
    """One rendered card's measurements by selector, and its size in CSS px."""

    boxes: Mapping[str, Mapping[str, Any]]
    width: int
    height: int

    def box(self, selector: str, key: str = "box") -> tuple[float, float, float, float]:
        left, top, right, bottom = self.boxes[selector][key]
        return left, top, right, bottom


Render = Callable[[str, Mapping[str, str], int, int], Awaitable[Card]]


@pytest.fixture(scope="module")
async def render(pool: ChromiumPool) -> AsyncIterator[Render]:
    """One warm shell page for the module: fragments rendered into it as render_image does."""
    browser = pool._browser
    assert browser is not None
    context = await browser.new_context()
    page = await context.new_page()
    await page.set_content(_shell_document(image_shell()))

    async def run(template: str, data: Mapping[str, str], width: int, height: int) -> Card:
        fragment = render_fragment(template, data, width=width, height=height)
        await page.set_viewport_size({"width": width, "height": height})
        outcome = await page.evaluate(
            "([h, w, hh]) => window.__rk.render(h, w, hh, 2000)", [fragment, width, height]
        )
        assert outcome["ok"], outcome
        return Card(await page.evaluate(_MEASURE), width, height)

    try:
        yield run
    finally:
        await context.close()


# ---------------------------------------------------------------------------------------------
# Calls to action

TITLES = {
    "short": "New: PDF merging",
    "long": "How we cut our PDF rendering costs by 80% with warm browser pools and shared caches",
    "cjk": "日本語のタイトル：高速なレンダリングサービスの作り方と運用のコツ",
    "arabic": "كيف خفضنا تكلفة إنشاء ملفات PDF بنسبة ثمانين بالمئة",
}
# 3, 13 and 24 characters, in the title's language. Japanese characters are about twice as
# wide as Latin ones, so its three are 3, 7 and 12 characters: the same widths.
CTAS = {
    "latin": ("Buy", "Read the post", "Register for the webinar"),
    "cjk": ("今すぐ", "記事を読んでみる", "無料ウェビナーに今すぐ登録"),
    "arabic": ("سجل", "اقرأ المقالة ", "سجل في الندوة عبر الإنترنت"),
}
# Each template's own size, and two others that change its layout.
SIZES: Mapping[str, tuple[tuple[int, int], ...]] = {
    "social-square": ((1200, 630), (1080, 1920)),
    "announcement": ((1600, 400), (1080, 1080)),
}
OTHER_SIZES = ((1200, 630), (1080, 1080))

CTA_TEMPLATES = sorted(name for name, spec in TEMPLATES.items() if "cta" in spec.fields)


def _cta_cases() -> list[Any]:
    cases = []
    for template in CTA_TEMPLATES:
        spec = TEMPLATES[template]
        for width, height in ((spec.width, spec.height), *SIZES.get(template, OTHER_SIZES)):
            for title in TITLES:
                for cta in CTAS.get(title, CTAS["latin"]):
                    cases.append(
                        pytest.param(
                            template,
                            (width, height),
                            title,
                            cta,
                            id=f"{template}-{width}x{height}-{title}-{len(cta)}",
                        )
                    )
    return cases


def test_the_cta_matrix_covers_the_templates_that_show_one_and_the_promised_lengths() -> None:
    assert {"social-square", "announcement"} <= set(CTA_TEMPLATES)
    assert [len(c.strip()) for c in CTAS["latin"]] == [3, 13, 24]
    assert [len(c.strip()) for c in CTAS["arabic"]] == [3, 12, 26]
    assert [len(c) for c in CTAS["cjk"]] == [3, 8, 13]


@pytest.mark.parametrize(("template", "size", "title", "cta"), _cta_cases())
async def test_a_cta_of_up_to_24_characters_fits_whole_beside_any_title_at_any_size(
    render: Render, template: str, size: tuple[int, int], title: str, cta: str
) -> None:
    data = {"tag": "Launch", "title": TITLES[title], "cta": cta}
    card = await render(template, data, *size)
    label = card.boxes[".rk-cta-label"]
    assert not label["clipped"], "the call to action is cut with an ellipsis"
    left, top, right, bottom = card.box(".rk-cta")
    assert left >= 0 and top >= 0 and right <= card.width and bottom <= card.height
    t_left, t_top, t_right, t_bottom = card.box(".rk-title", "text")
    overlap_x = min(right, t_right) - max(left, t_left)
    overlap_y = min(bottom, t_bottom) - max(top, t_top)
    assert overlap_x <= 0 or overlap_y <= 0, "the button covers the title"
    # No empty half: the title's lines reach across at least half of the text column, and
    # where the button sits beside the title the gap between them is small, unless the title
    # is on one line at the largest size it may grow to.
    m_left, _, m_right, _ = card.box(".rk-main")
    assert t_right - t_left >= 0.5 * (m_right - m_left)
    if overlap_y > 0:  # side by side
        gap = left - t_right if left >= t_right else t_left - right
        measured = card.boxes[".rk-title"]
        largest = len(measured["lineStarts"]) == 1 and (
            measured["fontSize"] >= 0.98 * measured["fitMax"]
        )
        assert gap <= 0.2 * card.width or largest, f"{gap:.0f} px empty beside the title"


# ---------------------------------------------------------------------------------------------
# Japanese line breaks


def _words(marked: str) -> list[str]:
    return marked.split("|")


# Each title as its words (with their particles), which a line may start with but not split.
JAPANESE = {
    "issue": _words("日本語の|タイトル：|高速な|レンダリング|サービスの|作り方と|運用の|コツ"),
    "feature": _words("新機能：|PDFの|結合が|ブラウザだけで|できるように|なりました"),
    "release": _words("チーム|全員で|使える|請求書|テンプレートを|無料で|公開しました"),
}


@pytest.mark.parametrize("template", sorted(TEMPLATES))
@pytest.mark.parametrize("title", sorted(JAPANESE))
async def test_a_japanese_title_breaks_only_between_words_and_never_leaves_one_alone(
    render: Render, template: str, title: str
) -> None:
    words = JAPANESE[title]
    spec = TEMPLATES[template]
    data = {"title": "".join(words), "background": "light"}
    card = await render(template, data, spec.width, spec.height)
    measured = card.boxes[".rk-title"]
    assert not measured["clamped"] and not measured["clipped"]
    starts = measured["lineStarts"]
    boundaries = {sum(len(w) for w in words[:i]) for i in range(len(words))}
    text = "".join(words)
    lines = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    assert set(starts) <= boundaries, f"a line break inside a word: {lines}"
    if len(lines) > 1:
        last = lines[-1]
        assert last not in words, f"one word alone on the last line: {lines}"
