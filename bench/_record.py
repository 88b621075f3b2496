"""``--record FILE``: append a benchmark's figure to the machine-readable record.

Every bench script takes ``--record bench/results.toml``; with it, the script appends one
``[[result]]`` per case it measured, with the date, the machine (cores, CPU model, load
average when the run ended) and the command line, so a figure never reaches the docs without
them. The docs' Benchmarks page is generated from that file (scripts/docgen).

Fields of a result: ``benchmark`` (the script), ``case`` (what was measured), ``date``,
``command``, ``unit`` (``ms``, ``s``, or a rate such as ``renders/s``), ``renderkit`` (its
median), optionally ``peer`` and ``peer_median`` (the same job done the other way, same run)
and ``ratio`` (how many times faster renderkit was, from the unrounded medians: the peer's
time over renderkit's, or renderkit's rate over the peer's; below 1 it was slower),
``notes``, ``source`` (the docs page that discusses it) and ``machine`` (``cores``, ``cpu``,
``load_average``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import sys
from pathlib import Path


def add_record_option(parser: argparse.ArgumentParser) -> None:
    """Give a bench script's parser the shared ``--record FILE`` option."""
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="append the figures to this TOML record (bench/results.toml)",
    )


def machine() -> dict[str, object]:
    """This machine as a result records it: cores, CPU model, load average now."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    one, five, fifteen = os.getloadavg()
    return {
        "cores": os.cpu_count() or 0,
        "cpu": cpu,
        "load_average": f"{one:.2f}, {five:.2f}, {fifteen:.2f} (1, 5, 15 min, at the end)",
    }


def record(
    path: Path | None,
    *,
    benchmark: str,
    case: str,
    unit: str,
    renderkit: float,
    peer: str | None = None,
    peer_median: float | None = None,
    notes: str = "",
) -> None:
    """Append one result to ``path`` (nothing when ``path`` is None: no ``--record``)."""
    if path is None:
        return
    fields: dict[str, object] = {
        "benchmark": benchmark,
        "case": case,
        "date": datetime.datetime.now(datetime.UTC).date(),
        "command": _command(sys.argv),
        "unit": unit,
        "renderkit": round(renderkit, 4),
    }
    if peer is not None and peer_median is not None:
        rate = unit.endswith("/s")  # better higher; a time is better lower
        ratio = renderkit / peer_median if rate else peer_median / renderkit
        fields |= {"peer": peer, "peer_median": round(peer_median, 4), "ratio": round(ratio, 3)}
    here = machine()
    if os.getloadavg()[0] > (os.cpu_count() or 1):
        # Say so in the record: other work slowed both sides, rarely by the same factor.
        notes = "; ".join(filter(None, [notes, "busy machine: load above its core count"]))
    if notes:
        fields["notes"] = notes
    lines = ["", "[[result]]", *(f"{key} = {_toml(value)}" for key, value in fields.items())]
    lines.append(f"machine = {{ {', '.join(f'{k} = {_toml(v)}' for k, v in here.items())} }}")
    with path.open("a", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    print(f"recorded in {path}: {case}")


def _command(argv: list[str]) -> str:
    """The command that reproduces the run: the script and its options, without --record."""
    args, skip = [], False
    for arg in argv[1:]:
        if skip or arg.startswith("--record="):
            skip = False
            continue
        if arg == "--record":
            skip = True
            continue
        args.append(arg)
    return "python " + shlex.join([f"bench/{Path(argv[0]).name}", *args])


def _toml(value: object) -> str:
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    return repr(value)
