"""Nothing is read at import: the lexicons load on the first document that needs them."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = Path(__file__).parents[2] / "src"

# Run in a fresh interpreter: this test process has long since imported (and read) everything.
_PROBE = textwrap.dedent(
    """
    import importlib, json, pkgutil, tomllib

    reads = []
    real_loads, real_load = tomllib.loads, tomllib.load

    def loads(text, *args, **kwargs):
        reads.append("tomllib.loads")
        return real_loads(text, *args, **kwargs)

    def load(file, *args, **kwargs):
        reads.append("tomllib.load")
        return real_load(file, *args, **kwargs)

    tomllib.loads, tomllib.load = loads, load

    import renderkit.parsing

    package = renderkit.parsing
    names = [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    for name in names:
        importlib.import_module(name)
    at_import = list(reads)

    from renderkit.parsing.extract.receipt_patterns import receipt_patterns

    receipt_patterns()
    print(json.dumps({"modules": len(names), "at_import": at_import, "in_use": len(reads)}))
    """
)


def test_importing_the_parsing_package_and_every_submodule_reads_no_toml_file() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SRC)},
        timeout=120,
    )
    seen = json.loads(done.stdout)
    assert seen["modules"] > 40
    assert seen["at_import"] == []
    # The probe does see reads: building the receipt patterns reads the lexicon files.
    assert seen["in_use"] >= 2
