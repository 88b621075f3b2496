"""The recorded benchmark figures (``bench/results.toml``), checked and set as a table.

A malformed record fails the docs build (``ValueError``) rather than showing a figure without
its date, machine or command. The fields are described in ``bench/_record.py``, which writes
them.
"""

from __future__ import annotations

import datetime
import tomllib
from pathlib import Path
from typing import Any

from docgen_markdown import table

_REQUIRED = {
    "benchmark": str,
    "case": str,
    "date": datetime.date,
    "command": str,
    "unit": str,
    "renderkit": (int, float),
}
_OPTIONAL = {
    "peer": str,
    "peer_median": (int, float),
    "ratio": (int, float),
    "notes": str,
    "source": str,
}
_MACHINE = {"cores": int, "cpu": str, "load_average": str}


def load_results(path: Path, bench_dir: Path) -> list[dict[str, Any]]:
    """Every ``[[result]]`` of ``path``, each checked; ``bench_dir`` holds the scripts named.

    Raises:
        ValueError: an entry misses a field, has one of the wrong type or an unknown one,
            names a peer without its median (or the reverse), a script that does not exist,
            or a command that does not run that script.
    """
    results = tomllib.loads(path.read_text(encoding="utf-8")).get("result", [])
    for number, entry in enumerate(results, 1):
        where = f"{path.name}, result {number}"
        _check_fields(entry, _REQUIRED, _OPTIONAL | {"machine": dict}, where)
        _check_fields(entry["machine"], _MACHINE, {}, f"{where}, machine")
        if ("peer" in entry) != ("peer_median" in entry):
            msg = f"{where}: peer and peer_median go together"
            raise ValueError(msg)
        if not (bench_dir / entry["benchmark"]).is_file():
            msg = f"{where}: no script bench/{entry['benchmark']}"
            raise ValueError(msg)
        if not entry["command"].startswith(f"python bench/{entry['benchmark']}"):
            msg = f"{where}: the command does not run bench/{entry['benchmark']}"
            raise ValueError(msg)
        if entry["renderkit"] <= 0 or entry.get("peer_median", 1) <= 0:
            msg = f"{where}: a median must be positive"
            raise ValueError(msg)
        if "ratio" in entry and (
            "peer_median" not in entry or abs(entry["ratio"] / _speedup(entry) - 1) > 0.03
        ):
            msg = f"{where}: ratio {entry['ratio']} does not follow from the medians"
            raise ValueError(msg)
    return results


def _check_fields(
    entry: dict[str, Any], required: dict[str, Any], optional: dict[str, Any], where: str
) -> None:
    if missing := sorted(set(required) - set(entry)):
        msg = f"{where}: missing {', '.join(missing)}"
        raise ValueError(msg)
    if unknown := sorted(set(entry) - set(required) - set(optional)):
        msg = f"{where}: unknown field {', '.join(unknown)}"
        raise ValueError(msg)
    for name, kind in (required | optional).items():
        value = entry.get(name)
        # bool is an int to Python, never a count or a median here.
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            msg = f"{where}: {name} = {value!r} is not a {kind}"
            raise ValueError(msg)
        if isinstance(value, str) and not value.strip():
            msg = f"{where}: {name} is empty"
            raise ValueError(msg)


def _speedup(entry: dict[str, Any]) -> float:
    ours, theirs = entry["renderkit"], entry["peer_median"]
    # A rate (renders/s) is better higher; a time (ms, s) lower.
    return float(ours / theirs if entry["unit"].endswith("/s") else theirs / ours)


def comparison(entry: dict[str, Any]) -> str:
    """How renderkit compares to the peer of ``entry``: "1.36x faster", "2.12x slower".

    From ``ratio`` when the run recorded it (computed from unrounded medians), else from
    the medians as recorded.
    """
    if "peer_median" not in entry:
        return ""
    speedup = entry.get("ratio") or _speedup(entry)
    if speedup >= 1:
        return f"{_figure(speedup)}x faster"
    return f"{_figure(1 / speedup)}x slower"


def _figure(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.0f}"


def _value(value: float, unit: str) -> str:
    # Four significant digits: a run records its medians to 0.1 µs, more than noise allows.
    return f"{value:.4g} {unit}"


def results_section(results: list[dict[str, Any]]) -> str:
    """One table per benchmark, one row per recorded figure: the numbers, then when, on
    what machine and with which command they were measured."""
    out = []
    for benchmark in sorted({entry["benchmark"] for entry in results}):
        rows = []
        for entry in sorted(
            (e for e in results if e["benchmark"] == benchmark), key=lambda e: e["date"]
        ):
            machine = entry["machine"]
            figure = f"{entry['case']}: **{_value(entry['renderkit'], entry['unit'])}**"
            if "peer" in entry:
                figure += (
                    f"; peer, {entry['peer']}: {_value(entry['peer_median'], entry['unit'])} "
                    f"({comparison(entry)} than the peer)"
                )
            notes = entry.get("notes", "")
            if "source" in entry:
                notes = f"{notes} ([details]({entry['source']}))".strip()
            measured = (
                f"{entry['date'].isoformat()}<br>"
                f"{machine['cores']} cores, {machine['cpu']}, load {machine['load_average']}<br>"
                f"`{entry['command']}`"
            )
            rows.append((figure, notes, measured))
        out.append(
            f"### `bench/{benchmark}`\n\n"
            + table(("figure (medians)", "notes", "measured: date, machine, command"), rows)
        )
    return "\n".join(out)
