"""Render renderkit's built-in image templates to PNGs, straight through Playwright.

This builds the same "shell" page the engine keeps warm (the packaged Inter as data: URLs,
the templates' stylesheet, render.js and ``<div id="rk-root">``), then for every sample calls
``window.__rk.render(fragment, width, height, imageTimeoutMs)`` and screenshots the box at
device scale 2. Use it to check the templates by eye, or as a starting point for driving the
templates from your own browser code.

    python examples/preview_templates.py /tmp/rk-previews
    python examples/preview_templates.py /tmp/rk-previews --template og-card --sheet

Needs Chromium; by default Debian's headless shell (``--chromium`` to change it).
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import sys
from importlib import resources
from pathlib import Path

from PIL import Image, ImageDraw
from playwright.sync_api import Page, sync_playwright

from renderkit.browser import DEFAULT_CHROMIUM
from renderkit.image._templates import TEMPLATES, image_css, render_fragment

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
FONT_FILES = {
    400: "Inter-Regular.woff2",
    500: "Inter-Medium.woff2",
    600: "Inter-SemiBold.woff2",
    700: "Inter-Bold.woff2",
    800: "Inter-ExtraBold.woff2",
}
BACKGROUNDS = ("dark", "light", "gradient")
SCALE = 2
PRELOAD_FONTS = (
    "Promise.all([400, 500, 600, 700, 800].map(w => document.fonts.load(`${w} 16px Inter`)))"
)
IMAGE_TIMEOUT_MS = 5_000


def build_shell() -> str:
    """The shell page: @font-face rules (data: URLs), the stylesheet, render.js, #rk-root."""
    assets = resources.files("renderkit.core").joinpath("assets")
    faces = []
    for weight, name in FONT_FILES.items():
        data = base64.b64encode(assets.joinpath("fonts", name).read_bytes()).decode("ascii")
        faces.append(
            '@font-face { font-family: "Inter"; font-style: normal; '
            f"font-weight: {weight}; font-display: block; "
            f'src: url(data:font/woff2;base64,{data}) format("woff2"); }}'
        )
    render_js = assets.joinpath("js", "render.js").read_text(encoding="utf-8")
    return (
        '<!doctype html><html><head><meta charset="utf-8"><style>\n'
        + "\n".join(faces)
        + "\n"
        + image_css()
        + '\n</style></head><body><div id="rk-root"></div><script>\n'
        + render_js
        + "\n</script></body></html>"
    )


def make_logo(color: str = "#6366f1") -> str:
    """A small app-icon style logo as a data:image/png URL (drawn with Pillow)."""
    size = 256
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    rgb = tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))
    top = tuple(min(255, c + 70) for c in rgb)
    for y in range(size):  # vertical gradient, clipped to a rounded square below
        t = y / (size - 1)
        row = tuple(round(top[i] * (1 - t) + rgb[i] * t) for i in range(3))
        draw.line([(0, y), (size, y)], fill=(*row, 255))
    mask = Image.new("L", (size, size), 0)
    ImageDraw.Draw(mask).rounded_rectangle([0, 0, size - 1, size - 1], radius=58, fill=255)
    img.putalpha(mask)
    # A geometric mark: two overlapping chevrons.
    draw = ImageDraw.Draw(img)
    white = (255, 255, 255, 255)
    draw.polygon([(70, 78), (130, 128), (70, 178), (70, 148), (96, 128), (70, 108)], fill=white)
    draw.polygon(
        [(122, 78), (186, 128), (122, 178), (122, 148), (148, 128), (122, 108)],
        fill=(255, 255, 255, 170),
    )
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


LONG_TITLE = (
    "Why we rewrote our rendering pipeline from scratch, what we learned about headless "
    "browsers, font loading and image caching along the way, and how it made every social "
    "card we generate three times faster and a whole lot prettier"
)
HUGE_TITLE = LONG_TITLE + " — with benchmarks, flame graphs, and a few regrets about Mondays."
LONG_BODY = (
    "A deep dive into warm browser pools, font subsetting, layout thrashing and the tiny "
    "details that make generated images look hand-made. We cover the architecture, the "
    "trade-offs we made, the numbers before and after, and the mistakes we would not repeat. "
    "Includes code samples, diagrams and a checklist you can apply to your own stack today."
)


def samples(logo: str) -> dict[str, dict[str, str]]:
    """Named sample data sets (the background is added per render)."""
    full = {
        "tag": "Changelog",
        "title": "Ship beautiful social images in one API call",
        "subtitle": "Templates, fonts and caching handled for you.",
        "body": "Render Open Graph cards, banners and posts from JSON in milliseconds.",
        "cta": "Get started",
        "domain": "renderkit.dev",
        "logo_url": logo,
    }
    return {
        "full": full,
        "short": {"title": "Hello, world"},
        "long": {**full, "title": LONG_TITLE},
        "huge": {**full, "title": HUGE_TITLE, "subtitle": LONG_BODY, "body": LONG_BODY * 2},
        "long-body": {**full, "body": LONG_BODY * 2},
        "emoji": {
            "tag": "New ✨",
            "title": "Launch day 🚀🎉",
            "subtitle": "We're live!",
            "cta": "Try it",
            "domain": "launch.dev",
            "logo_url": logo,
        },
        "ja": {
            "tag": "お知らせ",
            "title": "美しいソーシャル画像をひとつのAPIで",
            "subtitle": "テンプレート、フォント、キャッシュをすべて自動で処理します。",
            "body": "JSONからOGカードやバナーを数ミリ秒で生成。",
            "cta": "今すぐ始める",
            "domain": "renderkit.jp",
            "logo_url": logo,
        },
        "ar": {
            "tag": "جديد",
            "title": "صور اجتماعية جميلة بطلب واحد",
            "subtitle": "القوالب والخطوط والتخزين المؤقت، كلها جاهزة لك.",
            "body": "أنشئ بطاقات وبانرات من JSON في أجزاء من الثانية.",
            "cta": "ابدأ الآن",
            "domain": "renderkit.dev",
            "logo_url": logo,
        },
        "ru": {
            "tag": "Новости",
            "title": "Красивые картинки для соцсетей одним запросом",
            "subtitle": "Шаблоны, шрифты и кэширование — всё уже готово.",
            "body": "Карточки Open Graph и баннеры из JSON за миллисекунды.",
            "cta": "Начать",
            "domain": "renderkit.ru",
            "logo_url": logo,
        },
        "brand": {**full, "brand_color": "#facc15", "tag": "Yellow brand"},
        "override": {
            **full,
            "background_color": "#fef3c7",
            "text_color": "#451a03",
            "brand_color": "#ea580c",
            "tag": "Custom colours",
        },
    }


def render(page: Page, fragment: str, width: int, height: int, path: Path) -> None:
    page.set_viewport_size({"width": max(width, 320), "height": max(height, 320)})
    result = page.evaluate(
        "([html, w, h, t]) => window.__rk.render(html, w, h, t)",
        [fragment, width, height, IMAGE_TIMEOUT_MS],
    )
    if not result.get("ok"):
        print(f"{path.name}: {json.dumps(result)}", file=sys.stderr)
    page.locator("#rk-root").screenshot(path=str(path), animations="disabled")


def contact_sheet(paths: list[Path], out: Path, columns: int = 3, thumb: int = 520) -> None:
    """Tile previews into one image for a quick look."""
    images = [Image.open(p) for p in paths]
    thumbs = []
    for im in images:
        ratio = thumb / im.width
        thumbs.append(im.resize((thumb, max(1, round(im.height * ratio))), Image.LANCZOS))
    rows = [thumbs[i : i + columns] for i in range(0, len(thumbs), columns)]
    gap = 16
    height = sum(max(t.height for t in row) for row in rows) + gap * (len(rows) + 1)
    sheet = Image.new("RGB", (columns * thumb + gap * (columns + 1), height), (128, 128, 128))
    y = gap
    for row in rows:
        x = gap
        for t in row:
            sheet.paste(t, (x, y))
            x += thumb + gap
        y += max(t.height for t in row) + gap
    sheet.save(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the PNGs into")
    parser.add_argument("--template", action="append", choices=sorted(TEMPLATES))
    parser.add_argument("--sample", action="append", help="only these sample names")
    parser.add_argument("--sheet", action="store_true", help="also write contact sheets")
    parser.add_argument("--chromium", default=DEFAULT_CHROMIUM)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    logo = make_logo()
    data_sets = samples(logo)
    names = args.template or list(TEMPLATES)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(device_scale_factor=SCALE)
        page.set_content(build_shell())
        # Decode every Inter weight up front: data-fit measures text right after injecting it.
        page.evaluate(PRELOAD_FONTS)
        for name in names:
            spec = TEMPLATES[name]
            sizes = [
                (spec.width, spec.height, ""),
                (1000, 1000, "-1000x1000"),
                (round(spec.width / 2), round(spec.height / 2), "-half"),
            ]
            written: list[Path] = []
            for sample, data in data_sets.items():
                if args.sample and sample not in args.sample:
                    continue
                for background in BACKGROUNDS:
                    for width, height, suffix in sizes if sample == "full" else sizes[:1]:
                        fragment = render_fragment(
                            name, {**data, "background": background}, width=width, height=height
                        )
                        path = args.out / f"{name}-{sample}-{background}{suffix}.png"
                        render(page, fragment, width, height, path)
                        written.append(path)
            if args.sheet and written:
                contact_sheet(written, args.out / f"_sheet-{name}.png")
            print(f"{name}: {len(written)} images")
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
