"""Field-level evaluation of the local parser on a labelled document set.

Usage::

    python scripts/eval_parse.py /path/to/parse-dev            # a folder with index.json
    python scripts/eval_parse.py /path/to/parse-dev/sroie/manifest.json
    python scripts/eval_parse.py DIR --cache /tmp/ocr-cache --json figures.json --first 5
    python scripts/eval_parse.py DIR --folds 5 --synthetic SYNTH --synthetic-cache /tmp/ocr-synth

The folder layout follows the parse-dev README: each source folder has a ``manifest.json``
(documents with ``id``, ``file``, ``mime``, ``expected`` and, optionally, ``keys_asked``;
``scoring.field_types`` per field) and the set's root has ``score.py``, the reference scorer.
Every document is parsed with a schema built from the manifest's ``fields``, so the run also
exercises schema filling. The report gives, per source:

- P/R/F1 per field and micro (exact, and with fuzzy text matching >= 0.9), counted exactly as
  ``score.py`` counts them (its normalisers are imported, and the totals are checked against
  its own ``score_source``);
- the halves check: micro F1 over the documents with odd ids and over those with even ids (a
  rule should help both);
- the folds check: the documents split into K folds that share no group (a group is the
  documents whose seller label is the same, see ``group_of``), micro F1 per fold, its min, max
  and spread, and the worst gap between a fold and the rest;
- parse time, median and p95;

and over all sources, a calibration table: every predicted field that can be judged, bucketed
by its reported confidence, with the share right per band, and the calibration target (fields
with confidence >= 0.8 right at least 97% of the time) as PASS/FAIL per source and overall.
``--synthetic DIR`` scores a synthetic validation set (``scripts/synth_docs.py``) as well.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import pickle
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import attrs
from PIL import Image

from renderkit.parsing import (
    OCR_ENGINES,
    LocalExtractor,
    OcrEngine,
    Page,
    ParseRequest,
    Rankers,
    TesseractOcr,
    ocr_engine,
    parse,
)
from renderkit.parsing.rank.switches import DEFAULT_RANKERS

__all__ = [
    "BANDS",
    "CALIBRATION_TARGET",
    "GROUP_FIELDS",
    "EvalOptions",
    "assign_folds",
    "calibration_check",
    "evaluate",
    "group_of",
    "load_scorer",
    "main",
    "render",
]

#: Lower edges of the calibration bands; the last band includes 1.0.
BANDS = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9)

#: The calibration target: of the fields reported with at least this confidence, at least
#: this share must be right (issue #26).
CALIBRATION_TARGET = (0.8, 0.97)

#: Label fields that name a document's seller, in order of preference: documents whose first
#: such value is the same (normalised) are one family and are never split across folds.
#: Documents with none (contracts) are each their own group.
GROUP_FIELDS = ("issuer", "company")


@attrs.frozen(kw_only=True)
class EvalOptions:
    """How the documents are parsed and which are taken.

    Attributes:
        ocr: the OCR engine for images and scanned pages.
        first: per source folder name (or ``"*"`` for every source), how many documents to
            take from the top of its manifest; all when absent.
        concurrency: documents parsed at once.
        verbose: print each prediction to stderr.
        embedded_xml: read e-invoices from their embedded XML (off measures the general
            mechanisms on their own).
        rankers: which fields the learned rankers choose (``LocalExtractor(rankers=...)``; by
            default the ones it uses).
        calibrated: field confidence mapped through the shipped calibration
            (``LocalExtractor(calibrated=...)``); off gives the rules' raw figures.
    """

    ocr: OcrEngine
    first: Mapping[str, int] = attrs.field(factory=dict)
    concurrency: int = 2
    verbose: bool = False
    embedded_xml: bool = True
    rankers: Rankers = DEFAULT_RANKERS
    calibrated: bool = True


@attrs.frozen(kw_only=True)
class _Parsed:
    data: dict[str, Any]
    field_confidence: dict[str, float]
    document_type: str
    seconds: float


def load_scorer(root: Path) -> ModuleType:
    """The data set's reference scorer, ``root/score.py``, imported by path."""
    path = root / "score.py"
    spec = importlib.util.spec_from_file_location("_parse_dev_score", path)
    if spec is None or spec.loader is None or not path.exists():
        msg = f"no scorer at {path}: the data set's score.py defines how fields are counted"
        raise SystemExit(msg)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sources(target: Path) -> list[Path]:
    if target.is_file():
        if target.name == "index.json":
            index = json.loads(target.read_text())
            return [target.parent / s["dir"] / "manifest.json" for s in index["sources"]]
        return [target]
    if (target / "index.json").exists():
        return _sources(target / "index.json")
    return sorted(target.glob("*/manifest.json"))


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


class CachedOcr:
    """Keeps OCR results on disk, keyed by the page image, so reruns only re-extract."""

    def __init__(self, inner: OcrEngine, folder: Path) -> None:
        self.inner = inner
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    async def recognize(self, image: Image.Image, *, page: int, detect_orientation: bool) -> Page:
        """The inner engine's reading of ``image``, from the cache when it was read before."""
        key = hashlib.sha256(image.tobytes() + repr(image.size).encode()).hexdigest()
        path = self.folder / f"{key}-{page}.pickle"
        if path.exists():
            result: Page = pickle.loads(path.read_bytes())
            return result
        result = await self.inner.recognize(image, page=page, detect_orientation=detect_orientation)
        path.write_bytes(pickle.dumps(result))
        return result


async def _parse_source(
    manifest_path: Path, documents: Sequence[Mapping[str, Any]], options: EvalOptions
) -> dict[str, _Parsed]:
    manifest = json.loads(manifest_path.read_text())  # noqa: ASYNC240 - a CLI, not a server
    schema = _schema_for(manifest)
    extractor = LocalExtractor(rankers=options.rankers, calibrated=options.calibrated)
    out: dict[str, _Parsed] = {}
    limiter = anyio.CapacityLimiter(options.concurrency)

    async def one(doc: Mapping[str, Any]) -> None:
        async with limiter:
            content = (manifest_path.parent / doc["file"]).read_bytes()
            request = ParseRequest.from_bytes(content, doc["mime"], schema=schema)
            started = time.perf_counter()
            result = await parse(
                request, extractor=extractor, ocr=options.ocr, embedded_xml=options.embedded_xml
            )
            seconds = time.perf_counter() - started
            out[doc["id"]] = _Parsed(
                data=result.data,
                field_confidence=result.field_confidence,
                document_type=result.document_type,
                seconds=seconds,
            )
            if options.verbose:
                print(doc["id"], json.dumps(result.data, ensure_ascii=False), file=sys.stderr)

    async with anyio.create_task_group() as tg:
        for doc in documents:
            tg.start_soon(one, doc)
    return out


# ---------------------------------------------------------------- scoring


def _judged(scorer: ModuleType, manifest: Mapping[str, Any], doc: Mapping[str, Any]) -> set[str]:
    """The fields of ``doc`` that score.py counts, given a prediction for every field."""
    gold = doc["expected"]
    fields = set(gold)
    if manifest["scoring"]["absent_means_none"]:
        fields |= set(manifest["scoring"]["field_types"])
        if "keys_asked" in doc:
            fields &= set(doc["keys_asked"]) | set(gold)
    return fields


def _count(
    scorer: ModuleType, manifest: Mapping[str, Any], doc: Mapping[str, Any], pred: Mapping[str, Any]
) -> dict[str, list[int]]:
    """Per field ``[tp, fp, fn, tp_fuzzy]`` of one document, by score.py's rules."""
    types: Mapping[str, str] = manifest["scoring"]["field_types"]
    gold = doc["expected"]
    counts: dict[str, list[int]] = {}
    fields = set(gold)
    if manifest["scoring"]["absent_means_none"]:
        fields |= {f for f in types if f in pred}
        if "keys_asked" in doc:
            fields &= set(doc["keys_asked"]) | set(gold)
    for field in sorted(fields):
        kind = types.get(field, "text")
        norm = scorer.NORM[kind]
        c = counts.setdefault(field, [0, 0, 0, 0])
        g, v = gold.get(field), pred.get(field)
        if kind == "text_list":
            gs = [norm(x) for x in (g or [])]
            vs = [norm(x) for x in (v if isinstance(v, list) else ([] if scorer.empty(v) else [v]))]
            remaining, missed = list(gs), []
            for x in vs:
                if x in remaining:
                    remaining.remove(x)
                    c[0] += 1
                else:
                    missed.append(x)
            c[1] += len(missed)
            c[2] += len(remaining)
            left, fuzzy_tp = list(remaining), 0
            for x in missed:
                similarity = {y: float(scorer.sim(x, y)) for y in left}
                best = max(left, key=similarity.__getitem__, default=None)
                if best is not None and similarity[best] >= 0.9:
                    left.remove(best)
                    fuzzy_tp += 1
            c[3] += len(vs) - len(missed) + fuzzy_tp
            continue
        gn = None if scorer.empty(g) else norm(g)
        vn = None if scorer.empty(v) else norm(v)
        ok = gn is not None and gn == vn
        if ok:
            c[0] += 1
        else:
            c[1] += vn is not None
            c[2] += gn is not None
        if ok or (kind == "text" and gn and vn and scorer.sim(gn, vn) >= 0.9):
            c[3] += 1
    return counts


def _right(scorer: ModuleType, kind: str, gold: Any, pred: Any) -> bool:
    """Whether a predicted field is wholly right (lists: the same multiset)."""
    if scorer.empty(gold):
        return False
    norm = scorer.NORM[kind]
    if kind == "text_list":
        preds = pred if isinstance(pred, list) else [pred]
        return sorted(norm(x) for x in preds) == sorted(norm(x) for x in gold)
    return bool(norm(gold) == norm(pred))


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def _micro(counts: Mapping[str, Sequence[int]]) -> dict[str, Any]:
    tp, fp, fn, tpf = (sum(c[i] for c in counts.values()) for i in range(4))
    extra = tpf - tp
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        **_prf(tp, fp, fn),
        "f1_fuzzy": _prf(tpf, fp - extra, fn - extra)["f1"],
    }


def _add(total: dict[str, list[int]], counts: Mapping[str, Sequence[int]]) -> None:
    for field, c in counts.items():
        t = total.setdefault(field, [0, 0, 0, 0])
        for i in range(4):
            t[i] += c[i]


def _odd(doc_id: str) -> bool:
    # Ids end in a decimal number ("sroie-train-014") or a hex digest (Kleister): either way
    # the parity of the last digit, read as hex, is the parity of the number.
    return int(doc_id[-1], 16) % 2 == 1


def _band(confidence: float) -> int:
    return max(i for i, low in enumerate(BANDS) if confidence >= low)


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


# ---------------------------------------------------------------- folds


def group_of(doc: Mapping[str, Any], group_fields: Sequence[str] = GROUP_FIELDS) -> str:
    """The family ``doc`` belongs to: its seller label, normalised, else its own id.

    Normalising keeps letters and digits only, casefolded, so "ACME Sdn. Bhd." and "ACME SDN
    BHD" are one seller. Nothing here names a seller: the groups come from the labels.
    """
    for field in group_fields:
        value = doc["expected"].get(field)
        if isinstance(value, str):
            key = "".join(ch for ch in value.casefold() if ch.isalnum())
            if key:
                return f"{field}:{key}"
    return f"id:{doc['id']}"


def assign_folds(
    documents: Sequence[Mapping[str, Any]], k: int, group_fields: Sequence[str] = GROUP_FIELDS
) -> dict[str, int]:
    """Each document's fold, ``0..k-1``; a group's documents always share one fold.

    Groups are placed largest first, ties broken by the SHA-256 of the group's key, each into
    the fold holding the fewest documents so far (the lowest index on a tie): deterministic,
    independent of the manifest's order, and balanced even on a 26-document source, where
    taking the hash modulo k could leave a fold with one document or none.
    """
    if k < 1:
        msg = f"folds must be at least 1, not {k}"
        raise ValueError(msg)
    groups: dict[str, list[str]] = {}
    for doc in documents:
        groups.setdefault(group_of(doc, group_fields), []).append(doc["id"])

    def order(group: str) -> tuple[int, str]:
        return -len(groups[group]), hashlib.sha256(group.encode()).hexdigest()

    sizes = [0] * k
    folds: dict[str, int] = {}
    for group in sorted(groups, key=order):
        fold = min(range(k), key=lambda i: (sizes[i], i))
        sizes[fold] += len(groups[group])
        folds.update(dict.fromkeys(groups[group], fold))
    return folds


def _fold_figures(
    per_doc: Mapping[str, Mapping[str, Sequence[int]]], folds: Mapping[str, int], k: int
) -> dict[str, Any]:
    """Micro F1 of each fold and of the rest beside it, and how far apart the folds are."""
    rows: list[dict[str, Any]] = []
    for fold in range(k):
        inside: dict[str, list[int]] = {}
        outside: dict[str, list[int]] = {}
        for doc_id, counts in per_doc.items():
            _add(inside if folds[doc_id] == fold else outside, counts)
        documents = sum(1 for doc_id in per_doc if folds[doc_id] == fold)
        rows.append(
            {
                "fold": fold,
                "documents": documents,
                "micro": _micro(inside) if documents else None,
                "rest_f1": _micro(outside)["f1"] if documents < len(per_doc) else None,
            }
        )
    scored = [r["micro"]["f1"] for r in rows if r["micro"] is not None]
    gaps = [
        r["rest_f1"] - r["micro"]["f1"] for r in rows if r["micro"] and r["rest_f1"] is not None
    ]
    return {
        "folds": rows,
        "min_f1": min(scored, default=None),
        "max_f1": max(scored, default=None),
        "spread": max(scored) - min(scored) if scored else None,
        "worst_gap": max(gaps, default=None),
    }


# ---------------------------------------------------------------- calibration target


def calibration_check(
    judgements: Sequence[tuple[float, bool]], target: tuple[float, float] = CALIBRATION_TARGET
) -> dict[str, Any]:
    """Whether the fields given at least ``target[0]`` confidence are right ``target[1]`` of
    the time; ``passed`` is None when no field reached that confidence (nothing to judge)."""
    low, share = target
    high = [right for confidence, right in judgements if confidence >= low]
    right = sum(high)
    observed = right / len(high) if high else None
    return {
        "min_confidence": low,
        "target_share": share,
        "count": len(high),
        "right": right,
        "share_right": observed,
        "passed": None if observed is None else observed >= share,
    }


async def evaluate(target: Path, options: EvalOptions, *, folds: int = 5) -> dict[str, Any]:
    """Parse and score every source under ``target``; the figures as a JSON-ready dict.

    ``folds`` is how many group-disjoint folds each source's documents are split into.

    Raises:
        SystemExit: no ``score.py`` beside the sources, or its totals disagree with ours.
    """
    manifests = _sources(target)
    if not manifests:
        msg = f"no manifest.json under {target}"
        raise SystemExit(msg)
    scorer = load_scorer(manifests[0].parent.parent)
    figures: dict[str, Any] = {"sources": {}, "predictions": {}, "judgements": []}
    judgements: list[dict[str, Any]] = figures["judgements"]
    grand: dict[str, list[int]] = {}
    calibration = [[0, 0] for _ in BANDS]
    per_source_calibration: dict[str, list[list[int]]] = {}
    for manifest_path in manifests:
        name = manifest_path.parent.name
        manifest = json.loads(manifest_path.read_text())
        first = options.first.get(name, options.first.get("*"))
        documents = manifest["documents"][:first] if first is not None else manifest["documents"]
        parsed = await _parse_source(manifest_path, documents, options)
        counts: dict[str, list[int]] = {}
        halves: dict[str, dict[str, list[int]]] = {"odd": {}, "even": {}}
        per_doc: dict[str, dict[str, list[int]]] = {}
        bands = [[0, 0] for _ in BANDS]
        types = manifest["scoring"]["field_types"]
        for doc in documents:
            result = parsed[doc["id"]]
            doc_counts = _count(scorer, manifest, doc, result.data)
            _add(counts, doc_counts)
            per_doc[doc["id"]] = doc_counts
            _add(halves["odd" if _odd(doc["id"]) else "even"], doc_counts)
            judged = _judged(scorer, manifest, doc)
            for field, value in result.data.items():
                if field not in judged or scorer.empty(value):
                    continue
                confidence = result.field_confidence.get(field, 0.0)
                right = _right(scorer, types.get(field, "text"), doc["expected"].get(field), value)
                bands[_band(confidence)][0] += 1
                bands[_band(confidence)][1] += right
                judgements.append(
                    {
                        "source": name,
                        "id": doc["id"],
                        "document_type": result.document_type,
                        "field": field,
                        "confidence": confidence,
                        "right": right,
                    }
                )
        if first is None:
            reference = scorer.score_source(name, {k: v.data for k, v in parsed.items()}, 0.9, [])
            if {f: c[:3] for f, c in reference.items()} != {f: c[:3] for f, c in counts.items()}:
                msg = f"{name}: the harness and score.py count differently; fix the harness"
                raise SystemExit(msg)
        seconds = [p.seconds for p in parsed.values()]
        figures["sources"][name] = {
            "documents": len(documents),
            "fields": {
                f: {"tp": c[0], "fp": c[1], "fn": c[2], **_prf(*c[:3])} for f, c in counts.items()
            },
            "micro": _micro(counts),
            "halves": {half: _micro(c) for half, c in halves.items()},
            "folds": {
                "groups": len({group_of(d) for d in documents}),
                **_fold_figures(per_doc, assign_folds(documents, folds), folds),
            },
            "timing": {
                "median_s": statistics.median(seconds),
                "p95_s": _percentile(seconds, 0.95),
            },
        }
        figures["predictions"].update({k: v.data for k, v in parsed.items()})
        per_source_calibration[name] = bands
        for i, (n, hits) in enumerate(bands):
            calibration[i][0] += n
            calibration[i][1] += hits
        _add(grand, counts)
    figures["overall"] = _micro(grand)
    figures["folds"] = {"k": folds, "group_fields": list(GROUP_FIELDS)}
    figures["calibration"] = _calibration(calibration, per_source_calibration)
    figures["calibration"]["target"] = _calibration_target(judgements)
    return figures


def _calibration_target(judgements: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    by_source: dict[str, list[tuple[float, bool]]] = {}
    for j in judgements:
        by_source.setdefault(j["source"], []).append((j["confidence"], j["right"]))
    return {
        "by_source": {name: calibration_check(js) for name, js in by_source.items()},
        "overall": calibration_check([(j["confidence"], j["right"]) for j in judgements]),
    }


def _calibration(
    bands: Sequence[Sequence[int]], per_source: Mapping[str, Sequence[Sequence[int]]]
) -> dict[str, Any]:
    edges = [*BANDS, 1.0]
    rows: list[dict[str, Any]] = [
        {
            "band": f"{edges[i]:.1f}-{edges[i + 1]:.1f}",
            "low": edges[i],
            "count": n,
            "right": right,
            "share_right": right / n if n else None,
            "by_source": {s: {"count": b[i][0], "right": b[i][1]} for s, b in per_source.items()},
        }
        for i, (n, right) in enumerate(bands)
    ]
    high = [r for r in rows if r["low"] >= 0.8]
    count = sum(r["count"] for r in high)
    right = sum(r["right"] for r in high)
    return {
        "bands": rows,
        "high_confidence": {
            "count": count,
            "right": right,
            "share_right": right / count if count else None,
        },
    }


# ---------------------------------------------------------------- report


def render(figures: Mapping[str, Any]) -> str:
    """The figures as the plain-text report."""
    out: list[str] = []
    head = f"  {'field':16s} {'TP':>4s} {'FP':>4s} {'FN':>4s}  {'P':>6s} {'R':>6s} {'F1':>6s}"
    for name, source in figures["sources"].items():
        out += [f"== {name} ({source['documents']} documents)", head + f"  {'F1~0.9':>6s}"]
        for field, f in sorted(source["fields"].items()):
            out.append(
                f"  {field:16s} {f['tp']:4d} {f['fp']:4d} {f['fn']:4d}  "
                f"{f['precision']:6.3f} {f['recall']:6.3f} {f['f1']:6.3f}"
            )
        m = source["micro"]
        out.append(
            f"  {'MICRO':16s} {m['tp']:4d} {m['fp']:4d} {m['fn']:4d}  "
            f"{m['precision']:6.3f} {m['recall']:6.3f} {m['f1']:6.3f}  {m['f1_fuzzy']:6.3f}"
        )
        odd, even = source["halves"]["odd"], source["halves"]["even"]
        t = source["timing"]
        out.append(
            f"  halves: odd ids F1 {odd['f1']:.3f} ({odd['tp']} TP)   "
            f"even ids F1 {even['f1']:.3f} ({even['tp']} TP)"
        )
        out.append(f"  parse time: median {t['median_s']:.2f} s, p95 {t['p95_s']:.2f} s")
    out += _render_folds(figures)
    o = figures["overall"]
    out.append(
        f"== OVERALL micro  P={o['precision']:.3f} R={o['recall']:.3f} F1={o['f1']:.3f}  "
        f"(TP={o['tp']} FP={o['fp']} FN={o['fn']})"
    )
    cal = figures["calibration"]
    sources = list(figures["sources"])
    out.append("== calibration (predicted fields that can be judged, by reported confidence)")
    out.append(
        f"  {'band':9s} {'count':>5s} {'right':>5s} {'share':>6s}   "
        + "  ".join(f"{s[:12]:>12s}" for s in sources)
    )
    for row in cal["bands"]:
        share = "-" if row["share_right"] is None else f"{row['share_right']:.2f}"
        per = "  ".join(
            f"{row['by_source'][s]['right']:>5d}/{row['by_source'][s]['count']:<6d}"
            for s in sources
        )
        out.append(f"  {row['band']:9s} {row['count']:5d} {row['right']:5d} {share:>6s}   {per}")
    high = cal["high_confidence"]
    if high["count"]:
        out.append(
            f"  fields reported with confidence >= 0.8 are right {high['share_right']:.0%} "
            f"of the time ({high['right']}/{high['count']})"
        )
    target = cal["target"]
    for name in [*sources, "overall"]:
        check = target["overall"] if name == "overall" else target["by_source"].get(name)
        out.append("  " + _render_check(name, check))
    return "\n".join(out)


def _render_check(name: str, check: Mapping[str, Any] | None) -> str:
    if check is None or check["passed"] is None:
        return f"{name}: no field reported with high confidence, nothing to check"
    verdict = "PASS" if check["passed"] else "FAIL"
    return (
        f"{verdict} {name}: confidence >= {check['min_confidence']} right "
        f"{check['share_right']:.1%} ({check['right']}/{check['count']}), "
        f"target >= {check['target_share']:.0%}"
    )


def _render_folds(figures: Mapping[str, Any]) -> list[str]:
    """Source x fold micro F1, with each source's min, max, spread and worst gap."""
    k = figures["folds"]["k"]
    out = [
        f"== folds: {k} per source, no seller ({' / '.join(figures['folds']['group_fields'])} "
        "label) in two folds; micro F1 (documents)",
        f"  {'source':14s} {'groups':>6s} "
        + " ".join(f"{'fold ' + str(i):>11s}" for i in range(k))
        + f"  {'min':>5s} {'max':>5s} {'spread':>6s} {'gap':>6s}",
    ]
    for name, source in figures["sources"].items():
        f = source["folds"]
        cells = [
            f"{r['micro']['f1']:.3f} ({r['documents']:2d})" if r["micro"] else f"{'-':>11s}"
            for r in f["folds"]
        ]
        summary = "  ".join(
            f"{f[key]:5.3f}" if f[key] is not None else f"{'-':>5s}"
            for key in ("min_f1", "max_f1", "spread", "worst_gap")
        )
        row = f"  {name[:14]:14s} {f['groups']:6d} " + " ".join(f"{c:>11s}" for c in cells)
        out.append(row + "  " + summary)
    return out


# ---------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    """Every command-line option, in one place."""
    parser = argparse.ArgumentParser(
        prog="python scripts/eval_parse.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "target",
        nargs="?",
        help="a folder with index.json or */manifest.json, or a manifest (the dev set)",
    )
    parser.add_argument("--json", help="write every figure (and the predictions) here")
    parser.add_argument("--predictions", help="write the predictions (score.py format) here")
    parser.add_argument("--cache", help="folder caching OCR results between runs")
    parser.add_argument("--first", type=int, help="only the first N documents of each manifest")
    parser.add_argument(
        "--folds", type=int, default=5, help="group-disjoint folds per source (default 5)"
    )
    parser.add_argument(
        "--synthetic", help="also score this synthetic validation set (scripts/synth_docs.py)"
    )
    parser.add_argument(
        "--synthetic-cache", help="OCR cache for the synthetic set (keep it apart from --cache)"
    )
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument(
        "--ocr",
        choices=OCR_ENGINES,
        default=None,
        help="OCR engine (default: rapidocr when installed, else tesseract)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print each prediction")
    parser.add_argument(
        "--no-embedded-xml", action="store_true", help="ignore e-invoice XML attachments"
    )
    parser.add_argument(
        "--ranker",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="invoice totals chosen by the learned ranker (the default; --no-ranker: the rules)",
    )
    parser.add_argument(
        "--date-ranker",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="invoice issue dates chosen by the learned date ranker (the default; "
        "--no-date-ranker: the rules)",
    )
    parser.add_argument(
        "--term-ranker",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="contracts' terms chosen by the learned term ranker (the default; --no-term-ranker: "
        "the rules)",
    )
    parser.add_argument(
        "--party-ranker",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="contracts' parties chosen by the learned party ranker (off by default)",
    )
    parser.add_argument(
        "--term-end-date",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="a contract printing only the date its term ends gets the span from its "
        "effective date for a term (off by default)",
    )
    parser.add_argument(
        "--issuer-ranker",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="invoices' issuers chosen by the learned issuer ranker (the default; "
        "--no-issuer-ranker: the party rules)",
    )
    parser.add_argument(
        "--spans",
        default="",
        help="receipt fields chosen by the span rankers, comma-separated (company,address); "
        "none by default",
    )
    parser.add_argument(
        "--no-calibration",
        action="store_true",
        help="report the rules' raw field confidence (no calibration map)",
    )
    return parser


def options_from(args: argparse.Namespace, *, synthetic: bool = False) -> EvalOptions:
    """The parse options the command line asks for, for the dev set or the synthetic one."""
    ocr: OcrEngine = ocr_engine(args.ocr)
    # A separate OCR cache for the synthetic set: its photos never mix with the dev set's.
    cache = args.synthetic_cache if synthetic else args.cache
    if cache:
        # One cache per engine; Tesseract keeps the folder itself, where earlier runs left it.
        folder = Path(cache)
        if not isinstance(ocr, TesseractOcr):
            folder /= "rapidocr"
        ocr = CachedOcr(ocr, folder)
    return EvalOptions(
        ocr=ocr,
        first={"*": args.first} if args.first is not None else {},
        concurrency=args.concurrency,
        verbose=args.verbose,
        embedded_xml=not args.no_embedded_xml,
        rankers=Rankers(
            total=args.ranker,
            date=args.date_ranker,
            issuer=args.issuer_ranker,
            term=args.term_ranker,
            party=args.party_ranker,
            term_end_date=args.term_end_date,
            spans=tuple(f for f in args.spans.split(",") if f),
        ),
        calibrated=not args.no_calibration,
    )


async def _run(target: str, options: EvalOptions, folds: int, title: str) -> dict[str, Any]:
    started = time.perf_counter()
    figures = await evaluate(Path(target), options, folds=folds)
    figures["wall_time_s"] = time.perf_counter() - started
    print(f"#### {title}: {target}")
    print(render(figures))
    print(f"== {figures['wall_time_s']:.0f} s in all")
    return figures


async def _main(args: argparse.Namespace) -> int:
    figures: dict[str, Any] | None = None
    if args.target:
        figures = await _run(args.target, options_from(args), args.folds, "dev set")
    if args.synthetic:
        options = options_from(args, synthetic=True)
        synthetic = await _run(args.synthetic, options, args.folds, "synthetic validation set")
        # With --synthetic, the JSON holds both sets side by side.
        figures = {"dev": figures, "synthetic": synthetic}
    if figures is None:  # main() refuses a command line without either set
        return 2
    if args.predictions:
        scored = figures["dev"] or figures["synthetic"] if args.synthetic else figures
        text = json.dumps(scored["predictions"], indent=1, ensure_ascii=False)
        Path(args.predictions).write_text(text)  # noqa: ASYNC240 - a CLI, not a server
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, ensure_ascii=False))  # noqa: ASYNC240
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.target and not args.synthetic:
        parser.error("give the dev set's folder, --synthetic DIR, or both")
    if args.folds < 1:
        parser.error("--folds must be at least 1")
    return anyio.run(_main, args)


if __name__ == "__main__":
    sys.exit(main())
