"""Layer (b): verdict precedence (seed 001 §6.1) and banding over EVERY combination of bucket
statuses, against a plain Python reference written here, in one set-based SQL pass."""

from __future__ import annotations

import itertools

import pyarrow as pa
import pytest
from judge_kit import make_db

from rcaeval.judge import load_profiles
from rcaeval.judge._pipeline import _load_profiles, score_and_verdict

STATUSES = {
    "contract": ("pass", "fail"),
    "execution_contract": ("pass", "partial", "fail"),
    "workflow": ("pass", "partial", "fail"),
    "evidence_collection": ("pass", "partial", "fail"),
    "critical_evidence": ("pass", "partial", "fail"),
    "evidence_routing": ("pass", "partial", "fail"),
    "diagnosis": ("pass", "fail"),
}
FRAC = {"pass": 1.0, "partial": 0.6, "fail": 0.2}
MAXIMA = {"workflow": 10, "evidence_collection": 5, "critical_evidence": 30,
          "evidence_routing": 5}


def reference_verdict(s: dict[str, str]) -> tuple[str, str]:
    """Seed 001 §6.1, literally."""
    if s["contract"] == "fail":
        return "invalid", "contract_fail"
    if s["execution_contract"] == "fail":
        return "invalid", "execution_contract_fail"
    if s["workflow"] in ("fail", "partial"):
        return "invalid", "workflow_incomplete"
    if s["evidence_collection"] == "fail":
        return "invalid", "evidence_collection_fail"
    if s["evidence_collection"] == "partial":
        return "fail", "evidence_collection_partial"
    if s["critical_evidence"] == "fail":
        return "fail", "critical_evidence_fail"
    if s["critical_evidence"] == "partial":
        return "fail", "critical_evidence_partial"
    if s["evidence_routing"] == "fail":
        return "fail", "evidence_routing_fail"
    if s["evidence_routing"] == "partial":
        return "fail", "evidence_routing_partial"
    if s["diagnosis"] == "pass":
        return "pass", "diagnosis_pass"
    return "fail", "diagnosis_fail"


def reference_scores(s: dict[str, str], verdict: str) -> tuple[float, float, bool]:
    raw = sum(m * FRAC[s[b]] for b, m in MAXIMA.items())
    raw += 18 * (1.0 if s["diagnosis"] == "pass" else 0.5) + 32 * 0.75
    raw = round(raw, 4)
    gate = s["critical_evidence"] == "pass" and s["diagnosis"] == "pass"
    if verdict == "invalid":
        return raw, 0.0, gate
    return raw, (max(raw, 70.0) if gate else min(raw, 69.0)), gate


COMBOS = [dict(zip(STATUSES, combo, strict=True))
          for combo in itertools.product(*STATUSES.values())]


@pytest.fixture(scope="module")
def judged():
    con = make_db()
    scope, buckets = [], []
    for i, s in enumerate(COMBOS):
        run_id = f"r{i:04d}"
        scope.append({"run_id": run_id, "case_id": "c", "case_type": "known",
                      "scoring_profile": "default", "rules_hash": "h",
                      "bundle_status": "resolved", "bundle_reason": "ok", "resolved": True})
        for b, st in s.items():
            buckets.append({
                "run_id": run_id, "case_id": "c", "bucket": b, "status": st,
                "reason": f"{b} is {st}",
                "frac": FRAC[st] if b in MAXIMA else None,
                "frac_hard": (1.0 if st == "pass" else 0.5) if b == "diagnosis" else None,
                "frac_supporting": 0.75 if b == "diagnosis" else None,
            })
    # two unresolved bundles: step 0 wins whatever the (not evaluated) buckets say
    for run_id, status in (("u-missing", "bundle_missing"), ("u-ambiguous", "bundle_ambiguous")):
        scope.append({"run_id": run_id, "case_id": "c", "case_type": "known",
                      "scoring_profile": "default", "rules_hash": "h", "bundle_status": status,
                      "bundle_reason": "no report", "resolved": False})
        for b in STATUSES:
            st = "fail" if b in ("contract", "execution_contract") else "not_evaluated"
            buckets.append({"run_id": run_id, "case_id": "c", "bucket": b, "status": st,
                            "reason": "unresolved", "frac": None, "frac_hard": None,
                            "frac_supporting": None})
    for name, rows in (("j_scope", scope), ("j_bucket", buckets)):
        con.register("__in", pa.Table.from_pylist(rows))
        con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM __in")
        con.unregister("__in")
    _load_profiles(con, load_profiles())
    frames = score_and_verdict(con)
    yield {r["run_id"]: r for r in frames.judgments.iter_rows(named=True)}
    con.close()


def test_every_combination_is_judged(judged):
    assert len(COMBOS) == 2 * 3 ** 5 * 2
    assert len(judged) == len(COMBOS) + 2


def test_precedence_and_banding_match_the_reference(judged):
    mismatches = []
    for i, s in enumerate(COMBOS):
        row = judged[f"r{i:04d}"]
        verdict, subtype = reference_verdict(s)
        raw, score, gate = reference_scores(s, verdict)
        got = (row["verdict"], row["subtype"], row["raw_score"], row["score"], row["hard_gate"])
        if got != (verdict, subtype, raw, score, gate):
            mismatches.append((s, got, (verdict, subtype, raw, score, gate)))
    assert not mismatches, mismatches[:5]


def test_partial_never_becomes_pass(judged):
    for i, s in enumerate(COMBOS):
        if judged[f"r{i:04d}"]["verdict"] == "pass":
            assert s["contract"] == "pass" and s["execution_contract"] != "fail"
            assert all(s[b] == "pass" for b in ("workflow", "evidence_collection",
                                                "critical_evidence", "evidence_routing",
                                                "diagnosis"))
            assert judged[f"r{i:04d}"]["score"] >= 70


def test_reason_names_the_deciding_bucket(judged):
    for i, s in enumerate(COMBOS):
        row = judged[f"r{i:04d}"]
        if row["subtype"] == "workflow_incomplete":
            assert row["reason"] == f"workflow_incomplete: workflow is {s['workflow']}"


@pytest.mark.parametrize("run_id,subtype", [("u-missing", "bundle_missing"),
                                            ("u-ambiguous", "bundle_ambiguous")])
def test_unresolved_bundles(judged, run_id, subtype):
    row = judged[run_id]
    assert (row["verdict"], row["subtype"], row["score"], row["step"]) == (
        "invalid", subtype, 0.0, 0)
    assert row["reason"] == f"{subtype}: no report"
