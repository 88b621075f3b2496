"""The evaluation harness's folds and calibration target, on tiny manifests made here.

Nothing here reads the dev set: the documents are invented, with only the label fields the
fold assignment looks at.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]


def _harness() -> ModuleType:
    path = ROOT / "scripts" / "eval_parse.py"
    spec = importlib.util.spec_from_file_location("eval_parse", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # attrs resolves the module of its classes
    spec.loader.exec_module(module)
    return module


harness = _harness()


def _doc(doc_id: str, **expected: Any) -> dict[str, Any]:
    return {"id": doc_id, "file": f"{doc_id}.pdf", "mime": "application/pdf", "expected": expected}


def _manifest() -> list[dict[str, Any]]:
    """Receipts and invoices from a few invented sellers, some sellers spelt two ways."""
    docs = [
        _doc("r-01", company="Kopi Lamaru Sdn. Bhd.", total="4.50"),
        _doc("r-02", company="KOPI LAMARU SDN BHD", total="7.10"),
        _doc("r-03", company="kopi lamaru sdn bhd", total="3.20"),
        _doc("r-04", company="Toko Serani", total="12.00"),
        _doc("r-05", company="TOKO SERANI", total="1.00"),
        _doc("i-06", issuer="Velmora GmbH", total="100.00"),
        _doc("i-07", issuer="Velmora  GmbH", total="90.00"),
        _doc("i-08", issuer="Brastin S.A.", total="80.00"),
        _doc("i-09", total="70.00"),  # no seller label: its own group
        _doc("i-10", issuer="", total="60.00"),  # an empty label is no label
    ]
    docs += [_doc(f"x-{i:02d}", issuer=f"Seller {i}") for i in range(11, 23)]
    return docs


def test_a_document_belongs_to_its_sellers_group_whatever_the_spelling() -> None:
    assert harness.group_of(_doc("a", company="Kopi Lamaru Sdn. Bhd.")) == harness.group_of(
        _doc("b", company="KOPI LAMARU SDN BHD")
    )
    assert harness.group_of(_doc("a", issuer="Velmora GmbH")) != harness.group_of(
        _doc("b", issuer="Brastin S.A.")
    )


def test_a_document_without_a_seller_label_is_a_group_of_its_own() -> None:
    contract = _doc("nda-1", party=["A Corp", "B Ltd"], jurisdiction="Delaware")
    other = _doc("nda-2", party=["A Corp", "B Ltd"], jurisdiction="Delaware")
    assert harness.group_of(contract) == "id:nda-1"
    assert harness.group_of(contract) != harness.group_of(other)
    assert harness.group_of(_doc("i-10", issuer="", total="1")) == "id:i-10"


def test_every_document_is_in_exactly_one_fold_of_the_k_asked() -> None:
    docs = _manifest()
    folds = harness.assign_folds(docs, 5)
    assert sorted(folds) == sorted(d["id"] for d in docs)
    assert set(folds.values()) <= set(range(5))
    assert set(folds.values()) == set(range(5))  # 22 documents fill all 5 folds


def test_a_sellers_documents_are_never_split_across_folds() -> None:
    docs = _manifest()
    for k in (2, 3, 5, 7):
        folds = harness.assign_folds(docs, k)
        by_group: dict[str, set[int]] = {}
        for doc in docs:
            by_group.setdefault(harness.group_of(doc), set()).add(folds[doc["id"]])
        assert all(len(fs) == 1 for fs in by_group.values()), k
        assert folds["r-01"] == folds["r-02"] == folds["r-03"]
        assert folds["i-06"] == folds["i-07"]


def test_fold_assignment_is_deterministic_and_independent_of_manifest_order() -> None:
    docs = _manifest()
    first = harness.assign_folds(docs, 5)
    shuffled = list(docs)
    random.Random(7).shuffle(shuffled)
    assert harness.assign_folds(shuffled, 5) == first
    assert harness.assign_folds(_manifest(), 5) == first


def test_folds_of_single_document_groups_differ_in_size_by_at_most_one() -> None:
    docs = [_doc(f"nda-{i}", jurisdiction="Delaware") for i in range(26)]
    folds = harness.assign_folds(docs, 5)
    sizes = [list(folds.values()).count(f) for f in range(5)]
    assert max(sizes) - min(sizes) <= 1


def test_fewer_than_one_fold_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        harness.assign_folds(_manifest(), 0)


def test_fold_figures_give_each_folds_micro_f1_its_spread_and_the_gap_to_the_rest() -> None:
    # Per document, per field [tp, fp, fn, tp_fuzzy].
    per_doc = {
        "a": {"total": [1, 0, 0, 1]},
        "b": {"total": [1, 0, 0, 1]},
        "c": {"total": [0, 1, 1, 0]},
        "d": {"total": [1, 0, 0, 1]},
    }
    figures = harness._fold_figures(per_doc, {"a": 0, "b": 0, "c": 1, "d": 1}, 3)
    rows = figures["folds"]
    assert [r["documents"] for r in rows] == [2, 2, 0]
    assert rows[0]["micro"]["f1"] == 1.0
    assert rows[1]["micro"]["f1"] == pytest.approx(0.5)
    assert rows[2]["micro"] is None
    assert rows[1]["rest_f1"] == 1.0
    assert figures["min_f1"] == pytest.approx(0.5)
    assert figures["max_f1"] == 1.0
    assert figures["spread"] == pytest.approx(0.5)
    assert figures["worst_gap"] == pytest.approx(0.5)


def test_the_calibration_target_passes_at_97_percent_right_and_fails_below() -> None:
    passing = [(0.9, True)] * 97 + [(0.85, False)] * 3
    failing = [(0.9, True)] * 96 + [(0.8, False)] * 4
    assert harness.calibration_check(passing)["passed"] is True
    check = harness.calibration_check(failing)
    assert check["passed"] is False
    assert (check["count"], check["right"]) == (100, 96)


def test_the_calibration_target_ignores_fields_under_the_confidence_it_is_about() -> None:
    judgements = [(0.95, True)] * 10 + [(0.79, False)] * 50
    check = harness.calibration_check(judgements)
    assert (check["count"], check["right"], check["passed"]) == (10, 10, True)


def test_the_calibration_target_has_no_verdict_without_high_confidence_fields() -> None:
    check = harness.calibration_check([(0.5, True), (0.1, False)])
    assert check["passed"] is None
    assert check["count"] == 0
    assert "nothing to check" in harness._render_check("receipts", check)
    passed = harness._render_check("receipts", harness.calibration_check([(0.9, True)]))
    assert passed.startswith("PASS receipts")


def test_the_command_line_wants_a_dev_set_or_a_synthetic_one() -> None:
    with pytest.raises(SystemExit) as exit_info:
        harness.main([])
    assert exit_info.value.code == 2
