"""NaN and infinite numbers in the registry's YAML (``.nan``, ``.inf``) are rejected with the
file and field: a NaN threshold would never be exceeded (DuckDB orders NaN above every
number), an infinite weight would make a bucket's score NaN (inf / inf)."""

from __future__ import annotations

import shutil

import pytest

from rcaeval._paths import data_dir
from rcaeval.errors import InputError
from rcaeval.judge._profiles import _validate
from rcaeval.registry._loader import load_case_dir

CASE = "tikv-panic-restart-001"


@pytest.mark.parametrize("old,new,field", [
    ("threshold: 2", "threshold: .nan", "threshold"),
    ("threshold: 2", "threshold: .inf", "threshold"),
    ("weight: 2", "weight: .inf", "weight"),
])
def test_non_finite_numbers_in_judge_yaml_are_problems(tmp_path, old, new, field):
    root = tmp_path / "registry"
    src = data_dir() / "registry" / "cases" / CASE
    case = root / "cases" / CASE
    shutil.copytree(src, case)
    judge = case / "judge.yaml"
    text = judge.read_text("utf-8")
    assert old in text
    judge.write_text(text.replace(old, new, 1), "utf-8")
    merged, problems = load_case_dir(root, case)
    assert merged is None
    hits = [p for p in problems if p.file.endswith("judge.yaml") and field in p.field]
    assert hits, problems
    assert "finite" in hits[0].message, hits[0]


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_profile_maxima_are_rejected(value):
    doc = {"p": {"maxima": {"workflow": value, "evidence_collection": 5,
                            "critical_evidence": 30, "evidence_routing": 5,
                            "diagnosis_hard": 18, "diagnosis_supporting": 32}}}
    with pytest.raises(InputError, match="finite"):
        _validate(doc, "profiles.yaml")
