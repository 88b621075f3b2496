"""The field-confidence calibration: its shipped file, its step maps, and that applying it
changes confidences only."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from renderkit.core.errors import ConfigurationError
from renderkit.parsing import LocalExtractor
from renderkit.parsing._models import ParseRequest
from renderkit.parsing.fill.calibration import (
    CALIBRATION_VERSION,
    Calibration,
    StepMap,
    calibration_from_data,
    load_calibration,
    lowered,
)
from renderkit.parsing.pipeline import parse

from .test_local import INVOICE


def _shipped() -> dict[str, object]:
    path = resources.files("renderkit.parsing.models").joinpath("calibration.json")
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_the_shipped_calibration_loads_and_says_how_it_was_fitted() -> None:
    data = _shipped()
    assert data["version"] == CALIBRATION_VERSION
    calibration = load_calibration()
    assert calibration.maps, "the shipped file has no maps"
    assert "calibrate_confidence.py" in calibration.training["command"]
    # Fitted on synthetic training seeds only, never the validation seeds.
    assert calibration.training["seeds"]
    assert not {1, 9001} & set(calibration.training["seeds"])


def test_every_refitted_map_says_how_and_on_which_training_seeds_it_was_fitted() -> None:
    calibration = load_calibration()
    for refit in calibration.training.get("refits", []):
        kind, field = refit["field"].split(".")
        assert field in calibration.maps[kind]
        assert "calibrate_confidence.py" in refit["command"]
        assert refit["seeds"] and not {1, 9001} & set(refit["seeds"])


def test_the_receipt_rules_total_of_an_untyped_document_is_not_reported_as_sure() -> None:
    # Its raw 0.8 was right about three times in four on the harder synthetic invoices.
    total = load_calibration().maps["other"]["total"]
    assert lowered(total, 0.8) < 0.8
    assert lowered(total, 0.95) >= 0.95


def test_every_shipped_map_is_monotone_in_the_raw_confidence() -> None:
    raws = [i / 200 for i in range(201)]
    for fields in load_calibration().maps.values():
        for step_map in fields.values():
            out = [lowered(step_map, raw) for raw in raws]
            assert out == sorted(out)
            assert all(0.0 <= value <= 1.0 for value in out)


def test_a_file_of_another_version_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="version"):
        calibration_from_data({"version": CALIBRATION_VERSION + 1, "maps": {}})


def test_a_decreasing_map_is_refused() -> None:
    data = {
        "version": CALIBRATION_VERSION,
        "maps": {"invoice": {"total": {"thresholds": [0.1, 0.5], "values": [0.9, 0.4]}}},
    }
    with pytest.raises(ConfigurationError, match="not decrease"):
        calibration_from_data(data)


def test_a_step_map_gives_the_step_at_or_below_the_raw_value() -> None:
    step_map = StepMap(thresholds=(0.2, 0.6, 0.9), values=(0.3, 0.7, 0.95))
    assert step_map(0.0) == 0.3
    assert step_map(0.2) == 0.3
    assert step_map(0.59) == 0.3
    assert step_map(0.6) == 0.7
    assert step_map(1.0) == 0.95


def test_a_field_without_a_map_keeps_its_raw_confidence() -> None:
    calibration = Calibration(
        maps={"invoice": {"total": StepMap(thresholds=(0.0,), values=(0.5,))}}
    )
    out = calibration.apply("invoice", {"total": 0.9, "issuer": 0.77})
    assert out == {"total": 0.5, "issuer": 0.77}
    # Only ever lowered: a map above the raw figure leaves it.
    assert calibration.apply("invoice", {"total": 0.3}) == {"total": 0.3}
    assert calibration.apply("receipt", {"total": 0.9}) == {"total": 0.9}


@pytest.mark.anyio
async def test_calibration_changes_confidences_but_never_values() -> None:
    request = ParseRequest.from_bytes(INVOICE, "application/pdf")
    raw = await parse(request, extractor=LocalExtractor(calibrated=False))
    calibrated = await parse(request, extractor=LocalExtractor())
    assert calibrated.data == raw.data
    assert calibrated.field_confidence.keys() == raw.field_confidence.keys()
    maps = load_calibration().maps.get(raw.document_type, {})
    mapped = [name for name in raw.field_confidence if name in maps]
    assert mapped, "the test invoice has no calibrated field"
    for name, confidence in raw.field_confidence.items():
        expected = min(confidence, maps[name](confidence)) if name in maps else confidence
        assert calibrated.field_confidence[name] == pytest.approx(expected, abs=1e-3)
