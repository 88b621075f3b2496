"""Field-level evaluation of the local extractor on a labelled document set.

Usage::

    python scripts/eval_parse.py /path/to/parse-dev            # a folder with index.json
    python scripts/eval_parse.py /path/to/parse-dev/sroie/manifest.json
    python scripts/eval_parse.py DIR --predictions out.json --cache /tmp/ocr-cache

The folder layout and the scoring follow the parse-dev README: each source folder has a
``manifest.json`` (documents with ``id``, ``file``, ``mime``, ``expected`` and, optionally,
``keys_asked``; ``scoring.field_types`` per field). Every document is parsed with a schema built
from the manifest's ``fields`` (names, descriptions and types), so the run also exercises
schema filling. Values are compared after the same normalisation the reference scorer uses
(text: upper case, non-alphanumerics to one space; amounts to 2 places; dates to ISO; terms
pluralised; lists as multisets) and reported as micro precision, recall and F1 per field,
per source and overall, with a ``fuzzy`` column (text similarity >= 0.9) alongside.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import pickle
import re
import sys
import time
import unicodedata
from collections.abc import Mapping
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import anyio
from PIL import Image

from renderkit.parsing import (
    OCR_ENGINES,
    LocalExtractor,
    OcrEngine,
    Page,
    ParseRequest,
    TesseractOcr,
    ocr_engine,
    parse,
)

__all__ = ["main", "normalise", "score_source"]

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    )
}


def _text(value: object) -> str:
    out = unicodedata.normalize("NFKC", str(value)).upper()
    return re.sub(r"\s+", " ", re.sub(r"[^0-9A-Z]+", " ", out)).strip()


def _amount(value: object) -> str:
    if isinstance(value, int | float):
        return f"{Decimal(str(value)):.2f}"
    t = re.sub(r"[^\d.,-]", "", str(value))
    if re.fullmatch(r"-?\d{1,3}(\.\d{3})+(,\d+)?", t) or re.fullmatch(r"-?\d+,\d{1,2}", t):
        t = t.replace(".", "").replace(",", ".")
    else:
        t = t.replace(",", "")
    try:
        return f"{Decimal(t):.2f}"
    except InvalidOperation:
        return _text(value)


def _date(value: object) -> str:
    t = str(value).strip().upper()
    try:
        m = re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(T.*)?", t)
        if m:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
        m = re.fullmatch(r"(\d{1,2})[-/. ]([A-Z]{3})[A-Z]*[-/. ,]*(\d{2,4})", t)
        if m and m.group(2) in _MONTHS:
            y = int(m.group(3))
            return date(
                y + 2000 if y < 100 else y, _MONTHS[m.group(2)], int(m.group(1))
            ).isoformat()
        m = re.fullmatch(r"(\d{1,2})[-/.](\d{1,2})[-/.](\d{2,4})", t)
        if m:
            a, b, y = map(int, m.groups())
            y = y + 2000 if y < 100 else y
            return (date(y, b, a) if b <= 12 else date(y, a, b)).isoformat()
    except ValueError:
        pass
    return _text(value)


def _term(value: object) -> str:
    return re.sub(r"(year|month|week|day)s?$", r"\1s", _text(value).lower())


def _id(value: object) -> str:
    return re.sub(r"[\s#]", "", unicodedata.normalize("NFKC", str(value)).upper())


_NORMALISERS = {
    "text": _text,
    "text_list": _text,
    "id": _id,
    "amount": _amount,
    "date": _date,
    "currency": lambda v: str(v).strip().upper(),
    "term": _term,
}


def normalise(kind: str, value: object) -> str:
    """``value`` normalised as the reference scorer does for a field of type ``kind``."""
    return _NORMALISERS.get(kind, _text)(value)


def _empty(value: object) -> bool:
    return value is None or value == "" or value == []


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def score_source(
    manifest: Mapping[str, Any], predictions: Mapping[str, Mapping[str, Any]], fuzzy: float = 0.9
) -> dict[str, list[int]]:
    """Per field ``[tp, fp, fn, tp_fuzzy]`` over a manifest's documents."""
    types: dict[str, str] = manifest["scoring"]["field_types"]
    absent_none = manifest["scoring"].get("absent_means_none", True)
    counts: dict[str, list[int]] = {}
    for doc in manifest["documents"]:
        pred = predictions.get(doc["id"]) or {}
        gold = doc["expected"]
        fields = set(gold)
        if absent_none:
            fields |= {f for f in types if not _empty(pred.get(f))}
            if "keys_asked" in doc:
                fields &= set(doc["keys_asked"]) | set(gold)
        for field in sorted(fields):
            kind = types.get(field, "text")
            c = counts.setdefault(field, [0, 0, 0, 0])
            g, p = gold.get(field), pred.get(field)
            if kind == "text_list":
                gs = [normalise(kind, x) for x in (g or [])]
                ps = [
                    normalise(kind, x)
                    for x in (p if isinstance(p, list) else ([] if _empty(p) else [p]))
                ]
                remaining, missed = list(gs), []
                for x in ps:
                    if x in remaining:
                        remaining.remove(x)
                        c[0] += 1
                    else:
                        missed.append(x)
                c[1] += len(missed)
                c[2] += len(remaining)
                fuzzy_tp = 0
                for x in missed:
                    best = max(remaining, key=lambda y: _similar(x, y), default=None)
                    if best is not None and _similar(x, best) >= fuzzy:
                        remaining.remove(best)
                        fuzzy_tp += 1
                c[3] += len(ps) - len(missed) + fuzzy_tp
                continue
            gn = None if _empty(g) else normalise(kind, g)
            pn = None if _empty(p) else normalise(kind, p)
            ok = gn is not None and gn == pn
            if ok:
                c[0] += 1
            else:
                c[1] += pn is not None
                c[2] += gn is not None
            if ok or (kind == "text" and gn and pn and _similar(gn, pn) >= fuzzy):
                c[3] += 1
    return counts


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _schema_for(manifest: Mapping[str, Any]) -> dict[str, Any]:
    types = manifest["scoring"]["field_types"]
    descriptions = manifest.get("fields", {})
    properties: dict[str, Any] = {}
    for field, kind in types.items():
        description = str(descriptions.get(field, field))
        if kind == "text_list":
            prop: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
        elif kind == "amount":
            prop = {"type": "number"}
        elif kind == "date":
            prop = {"type": "string", "format": "date"}
        else:
            prop = {"type": "string"}
        properties[field] = {**prop, "description": description}
    return {"type": "object", "properties": properties}


class _CachedOcr:
    """Keeps OCR results on disk, keyed by the page image, so reruns only re-extract."""

    def __init__(self, inner: OcrEngine, folder: Path) -> None:
        self.inner = inner
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    async def recognize(self, image: Image.Image, *, page: int, detect_orientation: bool) -> Page:
        key = hashlib.sha256(image.tobytes() + repr(image.size).encode()).hexdigest()
        path = self.folder / f"{key}-{page}.pickle"
        if path.exists():
            result: Page = pickle.loads(path.read_bytes())
            return result
        result = await self.inner.recognize(image, page=page, detect_orientation=detect_orientation)
        path.write_bytes(pickle.dumps(result))
        return result


def _sources(target: Path) -> list[Path]:
    if target.is_file():
        if target.name == "index.json":
            index = json.loads(target.read_text())
            return [target.parent / s["dir"] / "manifest.json" for s in index["sources"]]
        return [target]
    if (target / "index.json").exists():
        return _sources(target / "index.json")
    return sorted(p for p in target.glob("*/manifest.json"))


async def _predict(
    manifest_path: Path, ocr: OcrEngine, concurrency: int, verbose: bool
) -> tuple[dict[str, Any], dict[str, dict[str, Any]], list[float]]:
    manifest = json.loads(manifest_path.read_text())  # noqa: ASYNC240 - a CLI, not a server
    schema = _schema_for(manifest)
    extractor = LocalExtractor()
    predictions: dict[str, dict[str, Any]] = {}
    timings: list[float] = []
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(doc: Mapping[str, Any]) -> None:
        async with limiter:
            content = (manifest_path.parent / doc["file"]).read_bytes()
            request = ParseRequest.from_bytes(content, doc["mime"], schema=schema)
            started = time.perf_counter()
            result = await parse(request, extractor=extractor, ocr=ocr)
            timings.append(time.perf_counter() - started)
            predictions[doc["id"]] = result.data
            if verbose:
                print(doc["id"], json.dumps(result.data, ensure_ascii=False), file=sys.stderr)

    async with anyio.create_task_group() as tg:
        for doc in manifest["documents"]:
            tg.start_soon(one, doc)
    return manifest, predictions, timings


def _report(name: str, counts: dict[str, list[int]]) -> list[int]:
    print(f"== {name}")
    print(
        f"  {'field':16s} {'TP':>4s} {'FP':>4s} {'FN':>4s}  "
        f"{'P':>6s} {'R':>6s} {'F1':>6s}  {'F1~0.9':>6s}"
    )
    total = [0, 0, 0, 0]
    for field, (tp, fp, fn, tpf) in sorted(counts.items()):
        p, r, f1 = _prf(tp, fp, fn)
        ff = _prf(tpf, fp - (tpf - tp), fn - (tpf - tp))[2]
        print(f"  {field:16s} {tp:4d} {fp:4d} {fn:4d}  {p:6.3f} {r:6.3f} {f1:6.3f}  {ff:6.3f}")
        total = [total[0] + tp, total[1] + fp, total[2] + fn, total[3] + tpf]
    p, r, f1 = _prf(*total[:3])
    extra = total[3] - total[0]
    ff = _prf(total[3], total[1] - extra, total[2] - extra)[2]
    print(
        f"  {'MICRO':16s} {total[0]:4d} {total[1]:4d} {total[2]:4d}  "
        f"{p:6.3f} {r:6.3f} {f1:6.3f}  {ff:6.3f}"
    )
    return total


async def _main(args: argparse.Namespace) -> int:
    ocr: OcrEngine = ocr_engine(args.ocr)
    if args.cache:
        # One cache per engine; Tesseract keeps the folder itself, where earlier runs left it.
        folder = Path(args.cache)
        if not isinstance(ocr, TesseractOcr):
            folder /= "rapidocr"
        ocr = _CachedOcr(ocr, folder)
    grand = [0, 0, 0, 0]
    all_predictions: dict[str, Any] = {}
    for manifest_path in _sources(Path(args.target)):
        manifest, predictions, timings = await _predict(
            manifest_path, ocr, args.concurrency, args.verbose
        )
        all_predictions.update(predictions)
        counts = score_source(manifest, predictions)
        total = _report(manifest_path.parent.name, counts)
        timings.sort()
        print(
            f"  median parse time {timings[len(timings) // 2]:.2f} s over {len(timings)} documents"
        )
        grand = [a + b for a, b in zip(grand, total, strict=True)]
    p, r, f1 = _prf(*grand[:3])
    print(
        f"== OVERALL micro  P={p:.3f} R={r:.3f} F1={f1:.3f}  "
        f"(TP={grand[0]} FP={grand[1]} FN={grand[2]})"
    )
    if args.predictions:
        out = json.dumps(all_predictions, indent=1, ensure_ascii=False)
        Path(args.predictions).write_text(out)  # noqa: ASYNC240
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        prog="python scripts/eval_parse.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("target", help="a folder with index.json or */manifest.json, or a manifest")
    parser.add_argument("--predictions", help="also write the predictions (score.py format) here")
    parser.add_argument("--cache", help="folder caching OCR results between runs")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument(
        "--ocr",
        choices=OCR_ENGINES,
        default=None,
        help="OCR engine (default: rapidocr when installed, else tesseract)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print each prediction")
    return anyio.run(_main, parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
