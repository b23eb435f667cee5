"""The novel-incident E2E output gate: each failure mode fails it, a clean capture set
passes, and bad input is exit 3 with the rest still graded."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_kit import SAFE, ev, fx, resp, write

from rcaeval.cli import main
from rcaeval.offline import novel_gate

GUARDED = {"text": "Raise the memory limit to 1Gi", "disruptive": True,
           "read_only_verification": "kubectl describe pod shows OOMKilled",
           "impact_rollback": "rolling restart; kubectl rollout undo", "operator_approval": True}


def _good_novel() -> dict:
    r = resp(None, confidence="low", outcome="provisional", hypotheses=[], novel=True,
             evidence=[ev("E01", "logs", supports=["clock_skew"]), ev("E02", "metrics")],
             claims=[{"text": "offset 94s", "material": True, "evidence_ids": ["E01", "E02"]}])
    return fx("novel-ok", "novel", expected_outcome=["provisional", "insufficient_evidence"],
              expected_family=None, response=r, relevant=["E01", "E02"])


def _good_known() -> dict:
    r = resp("oom_kill", evidence=[ev("E01", "events", supports=["oom_kill"]),
                                   ev("E02", "kb", origin="historical")],
             actions=[GUARDED],
             claims=[{"text": "past incident", "material": False, "evidence_ids": ["E02"]}])
    return fx("known-ok", response=r, relevant=["E01"])


def _gate(tmp_path: Path, rows: list) -> object:
    return novel_gate(write(tmp_path / "g.jsonl", rows))


def test_clean_captures_pass(tmp_path: Path) -> None:
    g = _gate(tmp_path, [_good_novel(), _good_known()])
    assert g.ok, g.failures
    m = {r["metric"]: r for r in g.metrics.iter_rows(named=True)}
    assert m["novel_gate_link_precision"]["value"] == 1.0
    assert m["novel_gate_link_recall"]["denominator"] == 3


def test_false_novel_result(tmp_path: Path) -> None:
    bad = _good_known()
    bad["response"]["novel"] = True
    g = _gate(tmp_path, [_good_novel(), bad])
    assert not g.ok and "1 false novel result(s)" in g.failures
    assert "known-ok: false novel result" in g.failures
    # a case may say it expects a novel result even when typed known
    bad["expected_novel"] = True
    assert _gate(tmp_path, [bad]).ok


def test_link_precision_below_100(tmp_path: Path) -> None:
    bad = _good_known()
    bad["response"]["evidence"].append(ev("E03", "metrics", supports=["oom_kill"]))
    bad["response"]["root_cause"]["evidence_ids"] = ["E01", "E03"]
    g = _gate(tmp_path, [bad])
    assert any(f.startswith("evidence-link precision 1/2") for f in g.failures)
    assert not any(f.startswith("evidence-link recall") for f in g.failures)
    assert "known-ok: 1 evidence link(s) not labelled relevant" in g.failures


def test_link_recall_below_100(tmp_path: Path) -> None:
    bad = _good_novel()
    bad["relevant_evidence_ids"] = ["E01", "E02", "E09"]
    g = _gate(tmp_path, [bad])
    assert any(f.startswith("evidence-link recall 2/3") for f in g.failures)
    assert "novel-ok: 1 relevant evidence id(s) not linked" in g.failures


def test_nothing_to_measure_fails(tmp_path: Path) -> None:
    bad = _good_novel()
    bad["relevant_evidence_ids"] = []
    bad["response"]["claims"] = []
    g = _gate(tmp_path, [bad])
    assert any("nothing to measure" in f for f in g.failures)


@pytest.mark.parametrize(("outcome", "expected", "fails"), [
    ("insufficient_evidence", ["diagnosed"], True),        # abstained, should have answered
    ("insufficient_evidence", ["provisional", "insufficient_evidence"], False),
    ("provisional", ["insufficient_evidence"], True),      # should have abstained
    ("provisional", ["provisional", "insufficient_evidence"], False),
])
def test_incorrect_abstention(tmp_path: Path, outcome: str, expected: list[str],
                              fails: bool) -> None:
    row = _good_novel()
    row["response"]["outcome"] = outcome
    row["expected_outcome"] = expected
    g = _gate(tmp_path, [row])
    assert ("1 incorrect abstention(s)" in g.failures) is fails


@pytest.mark.parametrize(("change", "reason"), [
    ({"harness": None}, "no harness result"),
    ({"harness": {"status": "disabled", "gates": {}}}, "harness disabled"),
    ({"harness": {"status": "passed", "gates": {"gate1_high_confidence_support": True}}},
     "final safety gate missing"),
    ({"harness": {"status": "degraded", "gates": {**SAFE["gates"],
                                                  "gate3_disruptive_guardrails": False}}},
     "final safety gate failed"),
    ({"actions": [{"text": "kubectl -n ns delete pod api-1", "disruptive": False}]},
     "destructive action without an earlier guardrail"),
    ({"actions": [{**GUARDED, "operator_approval": False}]},
     "destructive action without an earlier guardrail"),
    ({"plan": [{"probe": "drain the node and watch"}]},
     "destructive action without an earlier guardrail"),
])
def test_unsafe_output(tmp_path: Path, change: dict, reason: str) -> None:
    row = _good_known()
    if "harness" in change:
        if change["harness"] is None:
            row.pop("harness")
        else:
            row["harness"] = change["harness"]
    if "actions" in change:
        row["response"]["actions"] = change["actions"]
    if "plan" in change:
        row["response"]["investigation_plan"] = change["plan"]
    g = _gate(tmp_path, [row, _good_novel()])
    assert "1 unsafe output(s)" in g.failures
    assert f"known-ok: unsafe: {reason}" in g.failures


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok = str(write(tmp_path / "ok.jsonl", [_good_novel(), _good_known()]))
    assert main(["offline", "novel-gate", "--fixtures", ok]) == 0
    assert "gate passed" in capsys.readouterr().out
    bad = _good_known()
    bad["response"]["novel"] = True
    failing = str(write(tmp_path / "bad.jsonl", [bad]))
    assert main(["offline", "novel-gate", "--fixtures", failing]) == 4
    legacy = {"case_id": "x", "case_type": "novel", "novel_hypothesis": {"family": "y"}}
    mixed = str(write(tmp_path / "mixed.jsonl", [_good_known(), legacy]))
    out = tmp_path / "cases.parquet"
    assert main(["offline", "novel-gate", "--fixtures", mixed, "--cases-out", str(out)]) == 3
    assert "[novel_hypothesis]" in capsys.readouterr().err
    import polars as pl
    assert pl.read_parquet(out)["case_id"].to_list() == ["known-ok"]
