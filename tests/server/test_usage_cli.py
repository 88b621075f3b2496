"""``renderkit usage export``: the operator's export from the server's own ledger files."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from renderkit.cli import main
from renderkit_server.state.usage import SqliteUsageStore
from tests._blocking import in_thread, run_blocking


def _ledger(data_dir: Path) -> None:
    """Commit usage the way the server does, in the SQLite file the server uses."""

    async def fill() -> None:
        store = SqliteUsageStore(data_dir / "usage.sqlite3")
        try:
            for key_id, metric, amount, period in (
                ("a" * 32, "images", 3, "2026-11"),
                ("a" * 32, "audio_minutes", 90_500, "2026-11"),
                ("b" * 32, "pdfs", 1, "2026-11"),
                ("c" * 32, "images", 7, "2026-10"),
            ):
                reservation = await store.lease(key_id, metric, period, amount, None, 60)
                assert reservation.lease is not None
                await store.commit(reservation.lease)
            await store.lease("d" * 32, "images", "2026-11", 1, None, 60)  # still running
        finally:
            await store.aclose()

    run_blocking(fill)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("RENDERKIT_DATA_DIR", str(data))
    monkeypatch.delenv("RENDERKIT_REDIS_URL", raising=False)
    _ledger(data)
    return data


def test_usage_export_prints_the_months_committed_usage_as_json(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = in_thread(lambda: main(["usage", "export", "--month", "2026-11", "--format", "json"]))

    assert status == 0
    assert json.loads(capsys.readouterr().out) == {
        "period": "2026-11",
        "keys": {"a" * 32: {"audio_minutes": 1.508, "images": 3}, "b" * 32: {"pdfs": 1}},
    }


def test_usage_export_prints_csv_that_parses_back(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = in_thread(lambda: main(["usage", "export", "--month", "2026-11", "--format", "csv"]))

    assert status == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["period"], r["key_id"], r["metric"], r["used"]) for r in rows] == [
        ("2026-11", "a" * 32, "audio_minutes", "1.508"),
        ("2026-11", "a" * 32, "images", "3"),
        ("2026-11", "b" * 32, "pdfs", "1"),
    ]


def test_usage_export_of_a_malformed_month_exits_2(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert in_thread(lambda: main(["usage", "export", "--month", "November"])) == 2
    assert "YYYY-MM" in capsys.readouterr().err
