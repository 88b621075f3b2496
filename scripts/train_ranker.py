"""Train a candidate ranker (an invoice's total or issue date, a contract's term or parties, a
receipt's name or address span) on synthetic documents and write its model file.

Usage::

    python scripts/synth_docs.py --kind invoice --count 300 --seed 3 --out /tmp/train3
    python scripts/synth_docs.py --kind invoice --count 150 --seed 4 --photos --out /tmp/train4
    python scripts/train_ranker.py /tmp/train3 /tmp/train4 --seed 0 \\
        --out src/renderkit/parsing/models/invoice_total.json
    python scripts/synth_docs.py --kind contract --count 400 --seed 31 --out /tmp/train31
    python scripts/train_ranker.py /tmp/train31 --field term --seed 0 \\
        --out src/renderkit/parsing/models/contract_term.json
    python scripts/train_ranker.py /tmp/receipts31 /tmp/receipts32 --field receipt_address \\
        --seed 0 --out src/renderkit/parsing/models/receipt_address.json

``--field receipt_company`` / ``receipt_address``: every span of a receipt's header lines
(:func:`renderkit.parsing.extract.receipt.span_choices`) is one example, labelled by whether
its value equals the truth's as the eval compares text (upper case, every run of other
characters one space); the folds are grouped by the receipt header's variations (the truth's
``extras.header_cues``).

``--field term`` (contracts): every duration of a contract
(:func:`renderkit.parsing.extract.contract.term_candidates_of`) is one example, labelled by
whether it equals the true term; contracts without a term give negatives only, which is how
the model learns that notice and survival periods are no term. Folds are grouped by the
truth's ``layout.family`` (how the parties are named, where the term sits). ``--field party``:
every name the party rules propose (:func:`~renderkit.parsing.extract.contract.party_candidates_of`)
is one example, labelled by whether it is one of the true parties (compared as the scorer
compares them, "&" read as "and").

Only the synthetic factory's output is training data (its truth says which candidate is the
total); the dev set is validation only. Every amount of a document
(:func:`renderkit.parsing.extract.invoice.total_candidates`) is one example, labelled by
whether it equals the true total. A logistic regression (scikit-learn, the ``dev`` extra) is
fitted on standardised features; its scores on held-out folds fit the Platt calibration map.
The folds are grouped by the totals block's layout family (the truth's
``layout.totals_family``: summary style, amounts below the total or not, total printed
twice, carried-forward subtotals, tax lines), so a held-out score is one of a layout the fold
never saw, not merely of a document it never saw. The file holds the weights, the map, the
feature names and how it was trained; renderkit scores with it in plain Python.

``--field date`` trains the issue-date ranker instead: every date printed under an
issue-date label (:func:`renderkit.parsing.extract.invoice.invoice_date_candidates`,
:func:`renderkit.parsing.rank.dates.issue_date_choices`) is one example, labelled by whether it
is the issue date, and the folds are grouped by the document's language (the
label wordings differ by language), so a held-out score is of wordings its fold never saw.
Sets made with ``scripts/synth_docs.py --other-dates`` print the dates that must not be taken
for it (order, period, delivery, referenced invoice, print stamp)::

    python scripts/synth_docs.py --kind invoice --count 300 --seed 31 --other-dates --out /tmp/d31
    python scripts/train_ranker.py /tmp/d31 --field date --seed 0 \\
        --out src/renderkit/parsing/models/invoice_date.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import re
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import attrs
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from renderkit.parsing import Document, OcrEngine, ParseLimits, ocr_engine
from renderkit.parsing.extract.contract import party_candidates_of, term_candidates_of
from renderkit.parsing.extract.invoice import (
    invoice_date_candidates,
    invoice_issuer_candidates,
    total_candidates,
)
from renderkit.parsing.extract.receipt import span_choices
from renderkit.parsing.rank.candidates import FEATURES
from renderkit.parsing.rank.contract import PARTY_FEATURES, TERM_FEATURES
from renderkit.parsing.rank.dates import DATE_FEATURES, issue_date_choices
from renderkit.parsing.rank.issuer import ISSUER_FEATURES
from renderkit.parsing.rank.model import MODEL_VERSION
from renderkit.parsing.rank.spans import SPAN_FEATURES
from renderkit.parsing.readers.document import read_document
from renderkit.parsing.synth.score import NORM

__all__ = ["main"]

_C = 1.0
# The synthetic validation sets' seeds: their documents are never training data.
_VALIDATION_SEEDS = frozenset({1, 9001})


# Per field: the truth's key, the candidates, and the truth's layout key the folds group by.
_FIELDS = {"total": ("total", "totals_family"), "date": ("date", "language")}


def _candidates(field: str, document: Any, truth: str) -> tuple[list[bool], list[list[float]]]:
    if field == "date":
        dates, features = invoice_date_candidates(document)
        day = datetime.date.fromisoformat(truth)
        # The ranker chooses among the dates under an issue-date label, as in reading.
        chosen = issue_date_choices(dates)
        return [dates[i].value == day for i in chosen], [features[i] for i in chosen]
    candidates, features = total_candidates(document)
    return [c.value == Decimal(truth) for c in candidates], features


_Found = tuple[list[list[float]], list[int], list[int], list[str], dict[str, int]]


@attrs.define
class _Examples:
    """The training rows of every document walked, with each row's document and family."""

    counts: dict[str, int]
    rows: list[list[float]] = attrs.Factory(list)
    labels: list[int] = attrs.Factory(list)
    groups: list[int] = attrs.Factory(list)
    families: list[str] = attrs.Factory(list)

    def add(self, hits: Sequence[bool], features: Sequence[Sequence[float]], family: str) -> None:
        """One document's candidates: whether each is right, its features, its fold family."""
        self.rows += [list(f) for f in features]
        self.labels += [int(h) for h in hits]
        self.groups += [self.counts["documents"]] * len(hits)
        self.families += [family] * len(hits)

    def found(self) -> _Found:
        return self.rows, self.labels, self.groups, self.families, self.counts


async def _walk(
    roots: Sequence[Path], counts: dict[str, int]
) -> AsyncIterator[tuple[Path, dict[str, Any]]]:
    """Every document entry of the sets' manifests with its folder, counting them."""
    for root in roots:
        for manifest_path in sorted(root.glob("*/manifest.json")):
            manifest = json.loads(manifest_path.read_text())
            for doc in manifest["documents"]:
                counts["documents"] += 1
                yield manifest_path.parent, doc


async def _read(folder: Path, doc: Mapping[str, Any], ocr: OcrEngine) -> Document:
    content = (folder / doc["file"]).read_bytes()
    return await read_document(content, doc["mime"], ocr=ocr, limits=ParseLimits())


def _truth(folder: Path, doc: Mapping[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((folder / doc["truth"]).read_text())
    return found


async def _examples(roots: Sequence[Path], ocr: OcrEngine, field: str = "total") -> _Found:
    key, family_key = _FIELDS[field]
    out = _Examples(counts={"documents": 0, f"without_{key}": 0, f"{key}_not_a_candidate": 0})
    async for folder, doc in _walk(roots, out.counts):
        truth = doc["expected"].get(key)
        if truth is None:
            out.counts[f"without_{key}"] += 1
            continue
        hits, features = _candidates(field, await _read(folder, doc, ocr), truth)
        if not any(hits):
            out.counts[f"{key}_not_a_candidate"] += 1
            continue
        out.add(hits, features, _truth(folder, doc)["layout"][family_key])
    return out.found()


async def _term_examples(roots: Sequence[Path], ocr: OcrEngine) -> _Found:
    out = _Examples(counts={"documents": 0, "without_term": 0, "term_not_a_candidate": 0})
    async for folder, doc in _walk(roots, out.counts):
        truth = doc["expected"].get("term")
        out.counts["without_term"] += truth is None
        candidates, features = term_candidates_of((await _read(folder, doc, ocr)).text)
        hits = [c.value == truth for c in candidates]
        if truth is not None and not any(hits):
            out.counts["term_not_a_candidate"] += 1
            continue
        out.add(hits, features, doc["layout_family"])
    return out.found()


def _party_key(name: str) -> str:
    return " ".join(re.sub(r"[^0-9A-Z]+", " ", name.replace("&", " and ").upper()).split())


async def _party_examples(roots: Sequence[Path], ocr: OcrEngine) -> _Found:
    out = _Examples(counts={"documents": 0, "parties": 0, "party_not_a_candidate": 0})
    async for folder, doc in _walk(roots, out.counts):
        truth = {_party_key(p) for p in doc["expected"].get("party", [])}
        candidates, features = party_candidates_of((await _read(folder, doc, ocr)).text)
        hits = [_party_key(c.name) in truth for c in candidates]
        out.counts["parties"] += len(truth)
        out.counts["party_not_a_candidate"] += len(truth) - sum(hits)
        out.add(hits, features, doc["layout_family"])
    return out.found()


async def _span_examples(roots: Sequence[Path], ocr: OcrEngine, field: str) -> _Found:
    counts = {"documents": 0, "without_value": 0, "value_not_a_candidate": 0, "rule_right": 0}
    out = _Examples(counts=counts)
    text = NORM["text"]
    async for folder, doc in _walk(roots, out.counts):
        want = doc["expected"].get(field)
        if not want:
            out.counts["without_value"] += 1
            continue
        choices = span_choices(list((await _read(folder, doc, ocr)).lines)).get(field)
        if choices is None:
            out.counts["value_not_a_candidate"] += 1
            continue
        rule = choices.rule
        out.counts["rule_right"] += int(rule is not None and text(rule.value) == text(want))
        hits = [text(choices.value(i)) == text(want) for i in range(len(choices.spans))]
        if not any(hits):
            out.counts["value_not_a_candidate"] += 1
            continue
        out.add(hits, choices.features, _truth(folder, doc)["extras"].get("header_cues", ""))
    return out.found()


async def _issuer_examples(roots: Sequence[Path], ocr: OcrEngine) -> _Found:
    counts = {"documents": 0, "issuer_not_a_candidate": 0, "rule_right": 0}
    out = _Examples(counts=counts)
    text = NORM["text"]
    async for folder, doc in _walk(roots, out.counts):
        want = text(doc["expected"]["issuer"])
        candidates, features = invoice_issuer_candidates(await _read(folder, doc, ocr))
        hits = [text(c.value) == want for c in candidates]
        rules = features_rule_pick(features)
        out.counts["rule_right"] += int(rules is not None and hits[rules])
        if not any(hits):
            out.counts["issuer_not_a_candidate"] += 1
            continue
        layout = _truth(folder, doc)["layout"]
        out.add(hits, features, f"{layout.get('issuer_style', 'plain')}/{layout['parties']}")
    return out.found()


def features_rule_pick(features: Sequence[Sequence[float]]) -> int | None:
    """The candidate the party rules chose (its ``rules_pick`` feature), if any."""
    at = ISSUER_FEATURES.index("rules_pick")
    return next((i for i, f in enumerate(features) if f[at]), None)


_CONTRACT_EXAMPLES = {
    "term": _term_examples,
    "party": _party_examples,
    "issuer": _issuer_examples,
}
_FEATURE_NAMES = {
    "total": FEATURES,
    "date": DATE_FEATURES,
    "term": TERM_FEATURES,
    "party": PARTY_FEATURES,
    "issuer": ISSUER_FEATURES,
    "receipt_company": SPAN_FEATURES,
    "receipt_address": SPAN_FEATURES,
}
# The truth's layout key each field's folds group by.
_GROUPED_BY = {field: family for field, (_, family) in _FIELDS.items()} | {
    "term": "layout family",
    "party": "layout family",
    "issuer": "letterhead style and party layout",
    "receipt_company": "header_cues",
    "receipt_address": "header_cues",
}


def _fit(x: Any, y: Any, seed: int) -> tuple[Any, Any, LogisticRegression]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=_C, max_iter=5000, random_state=seed)
    model.fit((x - mean) / scale, y)
    return mean, scale, model


def _top1(scores: Any, y: Any, groups: Any) -> float:
    """The share of documents with a right candidate whose best-scored candidate is right."""
    right = total = 0
    for g in np.unique(groups):
        mask = groups == g
        if not y[mask].any():
            continue
        total += 1
        right += int(y[mask][int(np.argmax(scores[mask]))] == 1)
    return right / total if total else math.nan


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("sets", nargs="+", help="synthetic sets (scripts/synth_docs.py --out)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--out", required=True, help="the model file to write")
    parser.add_argument(
        "--field",
        choices=sorted(_FEATURE_NAMES),
        default="total",
        help="total, date, issuer: invoices' totals (the default), issue dates or issuers; "
        "term, party: "
        "contracts' terms, parties; receipt_company, receipt_address: receipts' header spans",
    )
    parser.add_argument("--cache", help="folder caching OCR results (as eval_parse.py's)")
    args = parser.parse_args(argv)
    ocr: OcrEngine = ocr_engine()
    if args.cache:
        sys.path.insert(0, str(Path(__file__).parent))
        from eval_parse import CachedOcr

        ocr = CachedOcr(ocr, Path(args.cache))
    roots = [Path(s) for s in args.sets]
    for root in roots:
        for manifest_path in root.glob("*/manifest.json"):
            seed = json.loads(manifest_path.read_text()).get("generator", {}).get("seed")
            if seed in _VALIDATION_SEEDS:
                parser.error(f"{manifest_path}: seed {seed} makes a validation set, never training")
    if args.field in _CONTRACT_EXAMPLES:
        found = anyio.run(_CONTRACT_EXAMPLES[args.field], roots, ocr)
    elif args.field.startswith("receipt_"):
        found = anyio.run(_span_examples, roots, ocr, args.field.removeprefix("receipt_"))
    else:
        found = anyio.run(_examples, roots, ocr, args.field)
    rows, labels, groups, families, counts = found
    names = _FEATURE_NAMES[args.field]
    x, y, g = np.array(rows, dtype=float), np.array(labels), np.array(groups)
    family = np.array(families)
    # Held-out scores per fold: the calibration map is fitted on them, never on the data a
    # score was fitted on; a fold keeps whole layout families out.
    held = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=args.folds).split(x, y, family):
        mean, scale, model = _fit(x[train], y[train], args.seed)
        held[test] = model.decision_function((x[test] - mean) / scale)
    platt = LogisticRegression(C=1e6, max_iter=5000).fit(held.reshape(-1, 1), y)
    mean, scale, model = _fit(x, y, args.seed)
    fitted = model.decision_function((x - mean) / scale)
    figures = {
        "candidates": len(y),
        "positives": int(y.sum()),
        "layout_families": len(set(families)),
        "top1_held_out_folds": round(_top1(held, y, g), 4),
        "top1_fitted": round(_top1(fitted, y, g), 4),
    }
    given = [a for a in (sys.argv[1:] if argv is None else argv)]
    # The cache only saves time; the command recorded is the one that reproduces the file.
    if "--cache" in given:
        at = given.index("--cache")
        del given[at : at + 2]
    command = "python scripts/train_ranker.py " + " ".join(given)
    data = {
        "version": MODEL_VERSION,
        "name": Path(args.out).stem,
        "features": list(names),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "weights": [round(float(v), 6) for v in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
        "platt": [round(float(platt.coef_[0][0]), 6), round(float(platt.intercept_[0]), 6)],
        "training": {
            "command": command,
            "seed": args.seed,
            "sets": [
                json.loads(next(Path(s).glob("*/manifest.json")).read_text())["source"]
                for s in args.sets
            ],
            "model": f"sklearn LogisticRegression(C={_C}), Platt map on {args.folds} folds "
            f"grouped by {_GROUPED_BY[args.field]}",
            **counts,
            **figures,
        },
    }
    Path(args.out).write_text(json.dumps(data, indent=1) + "\n")
    print(json.dumps(data["training"], indent=1))
    for name, weight in sorted(zip(names, data["weights"], strict=True), key=lambda t: -abs(t[1])):
        print(f"{weight:+.3f} {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
