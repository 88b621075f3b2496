"""Fit the local parser's field-confidence calibration on synthetic documents.

Usage::

    python scripts/synth_docs.py --kind invoice --count 300 --seed 3 --out /tmp/train3
    python scripts/synth_docs.py --kind invoice --count 150 --seed 4 --photos --out /tmp/train4
    python scripts/synth_docs.py --kind receipt --count 150 --seed 23 --photos --out /tmp/train23
    python scripts/calibrate_confidence.py /tmp/train3 /tmp/train4 /tmp/train23 \\
        --seeds 3 4 23 --cache /tmp/ocr-train --out src/renderkit/parsing/models/calibration.json

Only synthetic sets are read (never the dev set, nor the validation seeds 9001 and 1). Every
set is parsed as ``scripts/eval_parse.py`` parses it, with the calibration off, and every
predicted field is judged right or wrong exactly as its calibration table judges it. Per
document kind and field, an isotonic (pool-adjacent-violators) step map from the raw
confidence to the share right is fitted; each pooled step is shrunk towards 1/2 by one right
and one wrong pseudo-observation so that a small perfect step does not claim certainty. A
field with fewer than ``--min-samples`` judgements gets no map and keeps its raw confidence.
Out-of-fold reliability (folds grouped by document) is printed and written into the file.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio

from renderkit.parsing import TesseractOcr, ocr_engine
from renderkit.parsing.fill.calibration import CALIBRATION_VERSION

__all__ = ["fit_steps", "main"]

#: Validation seeds: never training data.
_VALIDATION_SEEDS = frozenset({1, 9001})

_BANDS = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9)


def _eval_parse() -> ModuleType:
    # The judgement is eval_parse's own, imported from beside this script.
    path = Path(__file__).with_name("eval_parse.py")
    spec = importlib.util.spec_from_file_location("eval_parse", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["eval_parse"] = module
    spec.loader.exec_module(module)
    return module


def _pav(blocks: list[list[float]]) -> list[list[float]]:
    """Pool adjacent violators over ``[x, weight, rights]`` blocks ordered by x."""
    out: list[list[float]] = []
    for block in blocks:
        out.append(list(block))
        while len(out) > 1 and out[-2][2] / out[-2][1] > out[-1][2] / out[-1][1]:
            last = out.pop()
            out[-1][1] += last[1]
            out[-1][2] += last[2]
    return out


def fit_steps(samples: Sequence[tuple[float, bool]]) -> dict[str, list[float]]:
    """An isotonic step map ``{"thresholds", "values"}`` of raw confidence -> share right."""
    by_value: dict[float, list[float]] = {}
    for raw, right in samples:
        entry = by_value.setdefault(round(raw, 3), [0.0, 0.0])
        entry[0] += 1
        entry[1] += right
    blocks = [[x, n, r] for x, (n, r) in sorted(by_value.items())]
    pooled = _pav(blocks)
    # Shrink each step by a pseudo-observation each way, then pool again so it stays monotone.
    shrunk = _pav([[x, n + 2, r + 1] for x, n, r in pooled])
    return {
        "thresholds": [x for x, _, _ in shrunk],
        "values": [round(r / n, 4) for _, n, r in shrunk],
    }


def _apply(steps: Mapping[str, Sequence[float]], raw: float) -> float:
    # As renderkit applies it (renderkit.parsing.fill.calibration.lowered): never raised.
    value = steps["values"][0]
    for x, y in zip(steps["thresholds"], steps["values"], strict=True):
        if raw >= x:
            value = y
    return min(raw, value)


def _band(confidence: float) -> int:
    return max(i for i, low in enumerate(_BANDS) if confidence >= low)


def _reliability(pairs: Sequence[tuple[float, bool]]) -> dict[str, Any]:
    bands = [[0, 0] for _ in _BANDS]
    for confidence, right in pairs:
        bands[_band(confidence)][0] += 1
        bands[_band(confidence)][1] += right
    high = [right for confidence, right in pairs if confidence >= 0.8]
    return {
        "bands": {
            f"{low:.1f}": {"count": n, "right": r}
            for low, (n, r) in zip(_BANDS, bands, strict=True)
        },
        "high": {"count": len(high), "right": sum(high)},
    }


def _out_of_fold(
    samples: Sequence[tuple[str, float, bool]], folds: int, min_samples: int
) -> list[tuple[float, bool]]:
    """Each sample's confidence under a map fitted without its document's fold."""
    docs = sorted({doc for doc, _, _ in samples})
    fold_of = {doc: i % folds for i, doc in enumerate(docs)}
    out: list[tuple[float, bool]] = []
    for k in range(folds):
        train = [(raw, right) for doc, raw, right in samples if fold_of[doc] != k]
        test = [(raw, right) for doc, raw, right in samples if fold_of[doc] == k]
        if len(train) < min_samples:
            out += test
            continue
        steps = fit_steps(train)
        out += [(_apply(steps, raw), right) for raw, right in test]
    return out


async def _judgements(roots: Sequence[Path], cache: Path | None) -> list[dict[str, Any]]:
    eval_parse = _eval_parse()
    ocr = ocr_engine(None)
    if cache is not None:
        folder = cache if isinstance(ocr, TesseractOcr) else cache / "rapidocr"
        ocr = eval_parse.CachedOcr(ocr, folder)
    options = eval_parse.EvalOptions(ocr=ocr, calibrated=False)
    out: list[dict[str, Any]] = []
    for root in roots:
        figures = await eval_parse.evaluate(root, options, folds=1)
        for j in figures["judgements"]:
            out.append({**j, "doc": f"{root.name}/{j['source']}/{j['id']}"})
        print(f"{root}: {len(figures['judgements'])} judged fields", file=sys.stderr)
    return out


def _line(name: str, figures: Mapping[str, Any]) -> str:
    high = figures["high"]
    share = f"{high['right'] / high['count']:.1%}" if high["count"] else "-"
    bands = " ".join(
        f"{low}:{b['right']}/{b['count']}" for low, b in figures["bands"].items() if b["count"]
    )
    return f"  {name:28s} >=0.8 right {share:>6s} ({high['right']}/{high['count']})  {bands}"


async def _main(args: argparse.Namespace) -> int:
    judgements = await _judgements([Path(r) for r in args.roots], args.cache and Path(args.cache))
    groups: dict[tuple[str, str], list[tuple[str, float, bool]]] = {}
    for j in judgements:
        key = (j["document_type"], j["field"])
        groups.setdefault(key, []).append((j["doc"], j["confidence"], j["right"]))
    maps: dict[str, dict[str, Any]] = {}
    report: dict[str, Any] = {}
    raw_all: list[tuple[float, bool]] = []
    oof_all: list[tuple[float, bool]] = []
    print("out-of-fold reliability (raw -> calibrated), grouped by document:")
    for (kind, field), samples in sorted(groups.items()):
        raw = [(c, r) for _, c, r in samples]
        if len(samples) < args.min_samples:
            oof = raw
        else:
            maps.setdefault(kind, {})[field] = {
                **fit_steps(raw),
                "samples": len(samples),
                "right": sum(r for _, r in raw),
            }
            oof = _out_of_fold(samples, args.folds, args.min_samples)
        raw_all += raw
        oof_all += oof
        name = f"{kind}.{field}" + ("" if len(samples) >= args.min_samples else " (no map)")
        report[f"{kind}.{field}"] = {"raw": _reliability(raw), "out_of_fold": _reliability(oof)}
        print(_line(name + " raw", report[f"{kind}.{field}"]["raw"]))
        print(_line(name + " oof", report[f"{kind}.{field}"]["out_of_fold"]))
    report["all"] = {"raw": _reliability(raw_all), "out_of_fold": _reliability(oof_all)}
    print(_line("all raw", report["all"]["raw"]))
    print(_line("all oof", report["all"]["out_of_fold"]))
    command = "python scripts/calibrate_confidence.py " + shlex.join(sys.argv[1:])
    data = {
        "version": CALIBRATION_VERSION,
        "maps": maps,
        "training": {
            "command": command,
            "seeds": args.seeds,
            "documents": len({j["doc"] for j in judgements}),
            "judged_fields": len(judgements),
            "min_samples": args.min_samples,
            "folds": args.folds,
            # The file keeps each field's high-band figures and the bands over all fields.
            "reliability": {
                name: (
                    figures
                    if name == "all"
                    else {part: figures[part]["high"] for part in ("raw", "out_of_fold")}
                )
                for name, figures in report.items()
            },
        },
    }
    Path(args.out).write_text(json.dumps(data, indent=1) + "\n")  # noqa: ASYNC240 - a CLI
    print(f"wrote {args.out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Every command-line option, in one place."""
    parser = argparse.ArgumentParser(
        prog="python scripts/calibrate_confidence.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("roots", nargs="+", help="synthetic sets (scripts/synth_docs.py)")
    parser.add_argument(
        "--seeds", type=int, nargs="+", required=True, help="the seeds the sets were made with"
    )
    parser.add_argument("--out", required=True, help="the calibration file to write")
    parser.add_argument("--cache", help="folder caching OCR results between runs")
    parser.add_argument("--folds", type=int, default=5, help="folds for out-of-fold figures")
    parser.add_argument("--min-samples", type=int, default=40, help="fewer keep raw confidence")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if _VALIDATION_SEEDS & set(args.seeds):
        parser.error("seeds 1 and 9001 are validation sets; never fit on them")
    if any("parse-dev" in root for root in args.roots):
        parser.error("the dev set is for evaluation only")
    return anyio.run(_main, args)


if __name__ == "__main__":
    sys.exit(main())
