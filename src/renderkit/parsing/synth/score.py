"""The scorer written beside every synthetic set (stdlib only, runnable on its own).

``python3 score.py predictions.json [--sources a,b] [--fuzzy 0.9]`` scores predictions (a map of
document id -> fields) against the manifests in this file's folder, by the rules the eval set's
README states: values are compared after normalisation (text: NFKC, upper case, runs of other
characters as one space; ids: no spaces or ``#``; amounts: two places, ``1.234,56`` and
``1,234.56`` both read; dates: ISO, or day-first ``dd/mm/yy(yy)``, or ``dd MON yyyy``); a right
value is a TP, a wrong one an FP and an FN, a missing one an FN, and one predicted where the label
has none an FP when the source says ``absent_means_none``. ``scripts/eval_parse.py`` imports it
(``NORM``, ``empty``, ``sim``, ``score_source``) exactly as it imports the dev set's scorer.

This module is copied verbatim into each set, so it imports nothing from renderkit.
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import json
import re
import sys
import unicodedata
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

__all__ = ["NORM", "empty", "main", "score_source", "sim"]

_MONTH_NAMES = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_MONTHS = {m: i for i, m in enumerate(_MONTH_NAMES, 1)}
_CURRENCY = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP", "RM": "MYR"}


def _text(value: Any) -> str:
    upper = unicodedata.normalize("NFKC", str(value)).upper()
    return " ".join(re.sub(r"[^0-9A-Z]+", " ", upper).split())


def _id(value: Any) -> str:
    return re.sub(r"[\s#]", "", unicodedata.normalize("NFKC", str(value)).upper())


def _amount(value: Any) -> str:
    if isinstance(value, int | float):
        return f"{Decimal(str(value)):.2f}"
    digits = re.sub(r"[^\d.,-]", "", str(value))
    european = re.fullmatch(r"-?\d{1,3}(\.\d{3})+(,\d+)?", digits)
    if european or re.fullmatch(r"-?\d+,\d{1,2}", digits):
        digits = digits.replace(".", "").replace(",", ".")
    else:
        digits = digits.replace(",", "")
    try:
        return f"{Decimal(digits):.2f}"
    except InvalidOperation:
        return _text(value)


def _date(value: Any) -> str:
    text = str(value).strip().upper()
    try:
        if m := re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(T.*)?", text):
            return dt.date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        m = re.fullmatch(r"(\d{1,2})[-/. ]([A-Z]{3})[A-Z]*[-/. ,]*(\d{2,4})", text)
        if m and m[2] in _MONTHS:
            year = int(m[3])
            return dt.date(
                year + 2000 if year < 100 else year, _MONTHS[m[2]], int(m[1])
            ).isoformat()
        if m := re.fullmatch(r"(\d{1,2})[-/.](\d{1,2})[-/.](\d{2,4})", text):
            a, b, year = int(m[1]), int(m[2]), int(m[3])
            year = year + 2000 if year < 100 else year
            return (dt.date(year, b, a) if b <= 12 else dt.date(year, a, b)).isoformat()
    except ValueError:
        pass
    return _text(value)


def _currency(value: Any) -> str:
    text = str(value).strip().upper()
    return _CURRENCY.get(text, text)


def _term(value: Any) -> str:
    return re.sub(r"(year|month|week|day)s?$", r"\1s", _text(value).lower())


#: Field type -> normaliser.
NORM: dict[str, Callable[[Any], str]] = {
    "text": _text,
    "text_list": _text,
    "id": _id,
    "amount": _amount,
    "date": _date,
    "currency": _currency,
    "term": _term,
}


def empty(value: Any) -> bool:
    """Whether ``value`` means "no value" (None, empty string or list)."""
    return value is None or value == "" or value == []


def sim(a: str, b: str) -> float:
    """The similarity of two normalised texts (difflib's ratio)."""
    return difflib.SequenceMatcher(None, a, b).ratio()


def score_source(
    source: str, predictions: dict[str, Any], fuzzy: float | None, details: list[Any]
) -> dict[str, list[int]]:
    """Per field ``[tp, fp, fn, tp_fuzzy]`` of ``source``'s documents (errors into details)."""
    manifest = json.loads((Path(__file__).parent / source / "manifest.json").read_text())
    types: dict[str, str] = manifest["scoring"]["field_types"]
    absent_none = manifest["scoring"]["absent_means_none"]
    counts: dict[str, list[int]] = {}
    for doc in manifest["documents"]:
        pred = predictions.get(doc["id"]) or {}
        gold = doc["expected"]
        fields = set(gold)
        if absent_none:
            fields |= {f for f in types if f in pred}
            if "keys_asked" in doc:
                fields &= set(doc["keys_asked"]) | set(gold)
        for field in sorted(fields):
            kind = types.get(field, "text")
            c = counts.setdefault(field, [0, 0, 0, 0])
            _count_one(kind, gold.get(field), pred.get(field), c, fuzzy)
            if kind != "text_list" and not _same(kind, gold.get(field), pred.get(field)):
                details.append({"id": doc["id"], "field": field, "gold": gold.get(field),
                                "pred": pred.get(field)})  # fmt: skip
    return counts


def _same(kind: str, gold: Any, pred: Any) -> bool:
    return not empty(gold) and not empty(pred) and NORM[kind](gold) == NORM[kind](pred)


def _count_one(kind: str, gold: Any, pred: Any, c: list[int], fuzzy: float | None) -> None:
    norm = NORM[kind]
    if kind == "text_list":
        golds = [norm(x) for x in (gold or [])]
        preds = [
            norm(x) for x in (pred if isinstance(pred, list) else [] if empty(pred) else [pred])
        ]
        remaining, missed = list(golds), []
        for x in preds:
            if x in remaining:
                remaining.remove(x)
                c[0] += 1
            else:
                missed.append(x)
        c[1] += len(missed)
        c[2] += len(remaining)
        left, fuzzy_tp = list(remaining), 0
        for x in missed:
            best = max(left, key=lambda y: sim(x, y), default=None)
            if fuzzy and best is not None and sim(x, best) >= fuzzy:
                left.remove(best)
                fuzzy_tp += 1
        c[3] += len(preds) - len(missed) + fuzzy_tp
        return
    g = None if empty(gold) else norm(gold)
    v = None if empty(pred) else norm(pred)
    right = g is not None and g == v
    if right:
        c[0] += 1
    else:
        c[1] += v is not None
        c[2] += g is not None
    if right or (fuzzy and kind == "text" and g and v and sim(g, v) >= fuzzy):
        c[3] += 1


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def main(argv: list[str] | None = None) -> int:
    """Score a predictions file and print P/R/F1 per field, source and overall."""
    here = Path(__file__).parent
    sources = sorted(p.parent.name for p in here.glob("*/manifest.json"))
    parser = argparse.ArgumentParser(description="Score predictions against this set.")
    parser.add_argument("predictions")
    parser.add_argument("--sources", default=",".join(sources))
    parser.add_argument("--fuzzy", type=float, default=None)
    args = parser.parse_args(argv)
    predictions = json.loads(Path(args.predictions).read_text())
    total = [0, 0, 0]
    for source in args.sources.split(","):
        counts = score_source(source, predictions, args.fuzzy, [])
        print(f"== {source}")
        for field, (tp, fp, fn, _) in sorted(counts.items()):
            p, r, f1 = _prf(tp, fp, fn)
            print(f"  {field:16s} {tp:4d} {fp:4d} {fn:4d}  {p:6.3f} {r:6.3f} {f1:6.3f}")
            total = [total[0] + tp, total[1] + fp, total[2] + fn]
    print(f"== OVERALL micro F1={_prf(*total)[2]:.3f}  (TP={total[0]} FP={total[1]} FN={total[2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
