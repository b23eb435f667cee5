"""Case proofs end to end: the reference agents as real subprocesses through the runner,
the MCP incident tools and the sandbox (slow: each case runs three agents)."""

from __future__ import annotations

import json

import pytest
from prove_kit import keep_only, make_unreachable, rcaeval, registry_copy

pytestmark = pytest.mark.slow

SMOKE = ("cpu-hotspot-region-001", "disk-full-tikv-001", "fake-alarm-scrape-gap-001",
         "hot-write-autoinc-001", "kill-query-chain-001", "missing-index-fullscan-001",
         "mvcc-gc-buildup-001", "pd-leader-election-storm-001", "stale-stats-plan-flip-001",
         "tikv-panic-restart-001", "tooldeg-events-api-io-stall-001",
         "tooldeg-metrics-api-tidb-oom-001", "upgrade-plan-regression-001")
EXPECTED_SMOKE: dict[str, list[str]] = {case: [] for case in SMOKE}
"""The smoke suite's proof table: the reasons of each unproven case (empty: proven)."""


@pytest.mark.timeout(1800)
def test_prove_the_smoke_suite() -> None:
    res = rcaeval("case", "prove", "--suite", "smoke", "--json")
    doc = json.loads(res.stdout)
    got = {row["case_id"]: row["reasons"] for row in doc["cases"]}
    assert got == EXPECTED_SMOKE
    for row in doc["cases"]:
        assert row["status"] == ("unproven" if row["reasons"] else "proven")
        if not row["reasons"]:
            assert (row["oracle"], row["lazy"], row["wrong"]) == ("pass", "fail", "fail")
    unproven = sum(1 for r in EXPECTED_SMOKE.values() if r)
    assert doc["counts"] == {"proven": 13 - unproven, "unproven": unproven, "exempt": 0}
    assert res.returncode == (4 if unproven else 0), res.stderr


def test_an_unreachable_check_fails_the_proof_with_its_reason(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    check = make_unreachable(root)
    res = rcaeval("case", "prove", "--registry", str(root), "--suite", "smoke",
                  "disk-full-tikv-001")
    assert res.returncode == 4, res.stderr
    assert "disk-full-tikv-001" in res.stdout and "unproven" in res.stdout
    assert (f"critical_evidence check {check} reads evidences/operator_notes.json, which no "
            "tool writes") in res.stdout
    assert "0/1 proven, 1 unproven" in res.stdout


def test_validate_prove_adds_the_proof_to_the_lint(tmp_path) -> None:
    root = registry_copy(tmp_path / "reg")
    keep_only(root, "disk-full-tikv-001")
    check = make_unreachable(root)
    res = rcaeval("validate", "--prove", "--registry", str(root), "--format", "json")
    assert res.returncode == 4, res.stderr
    doc = json.loads(res.stdout)
    assert doc["ok"] is True  # the lint has warnings only
    assert [w["field"] for w in doc["warnings"] if w["code"] == "unreachable_evidence"] == [
        "judge.critical_evidence.checks[3]"]
    (row,) = doc["proof"]["cases"]
    assert (row["case_id"], row["status"], row["oracle"]) == ("disk-full-tikv-001",
                                                              "unproven", "fail")
    assert row["reasons"] == [f"critical_evidence check {check} reads "
                              "evidences/operator_notes.json, which no tool writes"]
