"""Rules that read inside elided JSON containers (docs/extract.md "raw_json"): the points of
metrics.json and the entries of logs.json are stored as one raw_json row each, and the judge
rebuilds their values for the case runs whose method conditions name those files, in a full
judge and in a re-judge from the store alike. Through the CLI, on a sample bundle."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml

from rcaeval._paths import data_dir
from rcaeval.cli import main

RECORDED = data_dir() / "recorded"
REGISTRY = data_dir() / "registry"
RUN, CASE = "rec-thorough", "disk-full-tikv-001"

pytestmark = pytest.mark.skipif(
    not (RECORDED / RUN / CASE).is_dir() or not (REGISTRY / "cases" / CASE).is_dir(),
    reason="sample data not generated yet (data/recorded, data/registry)")

EXTRA_CHECKS = [
    {"id": "point_timestamp", "weight": 1, "any_of": [
        {"method": "json_text_contains_any", "file": "metrics.json",
         "path": "$.series[*].points", "needles": ["T11:01:00Z"]}]},
    {"id": "point_list", "weight": 1, "any_of": [
        {"method": "json_list_nonempty", "file": "metrics.json",
         "path": "$.series[0].points[0]"}]},
    {"id": "entry_message", "weight": 1, "any_of": [
        {"method": "json_text_contains_any", "file": "logs.json",
         "path": "$.entries[*].message", "needles": ["slow-query"]}]},
    {"id": "entry_absent", "weight": 1, "any_of": [
        {"method": "json_text_contains_any", "file": "logs.json",
         "path": "$.entries[*].message", "needles": ["no such text anywhere"]}]},
]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("elided")
    registry = tmp / "registry"
    shutil.copytree(REGISTRY, registry)
    spec_file = registry / "cases" / CASE / "judge.yaml"
    spec = yaml.safe_load(spec_file.read_text(encoding="utf-8"))
    spec["judge"]["critical_evidence"]["checks"].extend(EXTRA_CHECKS)
    spec_file.write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True),
                         encoding="utf-8")
    audits = tmp / "audits" / RUN
    audits.mkdir(parents=True)
    shutil.copytree(RECORDED / RUN / CASE, audits / CASE)
    return tmp, registry, audits


def _checks(db: Path) -> dict[str, tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT check_id, passed, reason, evidence_file, evidence_path, evidence_excerpt"
            " FROM eval_check WHERE case_id = ? AND check_id IN ?",
            [CASE, [c["id"] for c in EXTRA_CHECKS]]).fetchall()
    finally:
        con.close()
    return {r[0]: r[1:] for r in rows}


def test_methods_read_elided_values_in_a_judge_and_a_rejudge(setup, capsys) -> None:
    tmp, registry, audits = setup
    db = tmp / "s.duckdb"
    args = ["--registry", str(registry), "--db", str(db), "--no-progress"]
    assert main(["judge", str(audits), *args, "--out", str(tmp / "o1"), "--workers", "1"]) == 0
    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = con.execute(
            "SELECT count(*) FILTER (WHERE starts_with(path, '$.series[0].points[')),"
            " count(*) FILTER (WHERE elided_json IS NOT NULL) FROM raw_json"
            " WHERE case_id = ?", [CASE]).fetchall()[0]
    finally:
        con.close()
    assert stored[0] == 0 and stored[1] > 1  # the points are elided in the store
    first = _checks(db)
    assert set(first) == {c["id"] for c in EXTRA_CHECKS}

    passed, _, file, path, excerpt = first["point_timestamp"]
    assert passed and file == "evidences/metrics.json"
    assert re.fullmatch(r"\$\.series\[\d+\]\.points\[\d+\]\[0\]", path), path
    assert "T11:01:00Z" in excerpt
    passed, _, file, path, _ = first["point_list"]
    assert passed and (file, path) == ("evidences/metrics.json", "$.series[0].points[0]")
    passed, _, file, path, excerpt = first["entry_message"]
    assert passed and file == "evidences/logs.json" and "slow-query" in excerpt
    assert re.fullmatch(r"\$\.entries\[\d+\]\.message", path), path
    assert first["entry_absent"][0] is False

    shutil.rmtree(audits)  # a re-judge reads no audit file
    capsys.readouterr()
    assert main(["judge", "--from-store", *args, "--out", str(tmp / "o2")]) == 0
    assert _checks(db) == first
