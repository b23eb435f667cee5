"""`offline novel-gate` (and `offline score`) grade a `capture/1` export directly: the
export is validated as `release metrics` validates it, unlabelled captures are left ungraded
(not failed), operator reviews label them, and a bad capture marks only itself."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from offline_kit import ev, resp, write

from rcaeval.cli import main
from rcaeval.offline import novel_gate, score_fixtures
from rcaeval.offline._captures import read_capture_fixtures


def _hash(cid: str) -> str:
    return "sha256:" + hashlib.sha256(cid.encode()).hexdigest()


def _cap(cid: str, response: dict[str, Any], *, labels: dict[str, Any] | None,
         status: str = "passed", stage: str = "staging",
         at: str = "2026-11-02T10:00:00Z") -> dict[str, Any]:
    return {"capture_id": cid, "captured_at": at, "stage": stage, "population": "eu-1",
            "incident_id": f"inc-{cid}", "response": response,
            "harness": {"status": status, "analysis_hash": _hash(cid)}, "labels": labels,
            "tool_executions": [], "knowledge_activations": [], "outage_test": None,
            "review_ids": []}


def _known_ok() -> dict[str, Any]:
    return _cap("c-known", resp("oom_kill", evidence=[ev("E01", supports=["oom_kill"])]),
                labels={"case_type": "known", "expected_family": "oom_kill",
                        "expected_outcome": "diagnose", "relevant_evidence_ids": ["E01"]})


def _novel_ok() -> dict[str, Any]:
    r = resp(None, confidence="low", outcome="provisional", hypotheses=[], novel=True,
             evidence=[ev("E01", "logs", supports=["clock_skew"])],
             claims=[{"text": "offset 94s", "material": True, "evidence_ids": ["E01"]}])
    return _cap("c-novel", r, labels={"case_type": "novel", "expected_outcome": "novel",
                                      "relevant_evidence_ids": ["E01"]})


def _unlabelled() -> dict[str, Any]:
    return _cap("c-unlabelled", resp("oom_kill"), labels=None)


def test_a_clean_export_passes_and_unlabelled_captures_are_left_ungraded(tmp_path: Path):
    path = write(tmp_path / "export.jsonl", [_known_ok(), _novel_ok(), _unlabelled()])
    g = novel_gate(path)
    assert g.ok, g.failures
    assert g.cases["case_id"].to_list() == ["c-known", "c-novel"]
    assert [(u.case_id, u.field) for u in g.ungraded] == [("c-unlabelled", "labels.case_type")]
    assert main(["offline", "novel-gate", "--captures", str(path)]) == 0


def test_a_false_novel_capture_fails_the_gate(tmp_path: Path):
    bad = _cap("c-false-novel", resp("oom_kill", novel=True),
               labels={"case_type": "known", "expected_family": "oom_kill",
                       "relevant_evidence_ids": ["E01"]})
    path = write(tmp_path / "export.jsonl", [_known_ok(), bad])
    g = novel_gate(path)
    assert "1 false novel result(s)" in g.failures
    assert main(["offline", "novel-gate", "--fixtures", str(path)]) == 4  # detected


def test_an_abstain_label_expects_insufficient_evidence(tmp_path: Path):
    diag = _cap("c-abstain", resp("oom_kill"), labels={
        "case_type": "tool_degraded", "expected_outcome": "abstain",
        "relevant_evidence_ids": ["E01"]})
    g = novel_gate(write(tmp_path / "export.jsonl", [diag]))
    assert any("incorrect abstention" in f and "insufficient_evidence" in f for f in g.failures)


def test_an_invalid_capture_marks_only_itself(tmp_path: Path, capsys):
    broken = {**_known_ok(), "capture_id": "c-broken", "stage": "prod"}
    path = write(tmp_path / "export.jsonl", [_known_ok(), broken, _novel_ok()])
    g = novel_gate(path)
    assert [(e.line, e.case_id, e.field) for e in g.errors] == [(2, "c-broken", "stage")]
    assert g.cases["case_id"].to_list() == ["c-known", "c-novel"]
    assert main(["offline", "novel-gate", "--captures", str(path)]) == 3
    assert f"{path}:2 [stage]" in capsys.readouterr().err


def test_reviews_label_captures_and_the_window_and_stage_select(tmp_path: Path):
    late = {**_known_ok(), "capture_id": "c-late", "captured_at": "2026-12-20T00:00:00Z",
            "harness": {"status": "passed", "analysis_hash": _hash("c-late")}}
    path = write(tmp_path / "export.jsonl", [_known_ok(), _unlabelled(), late])
    review = {"review_id": "r1", "analysis_hash": _hash("c-unlabelled"),
              "reviewed_at": "2026-11-03T09:00:00Z", "case_type": "known",
              "expected_family": "oom_kill", "hard_gate_assessment": "pass",
              "scores": {s: 4 for s in _review_scores()}}
    reviews = write(tmp_path / "reviews.jsonl", [review])
    fs = read_capture_fixtures(path, reviews=reviews, window="2026-11-01..2026-11-30",
                               stage="staging")
    assert [f.case_id for f in fs.fixtures] == ["c-known", "c-unlabelled"]
    assert not fs.skipped
    assert fs.fixtures[1].expected_family == "oom_kill"
    assert main(["offline", "novel-gate", "--captures", str(path), "--reviews", str(reviews),
                 "--window", "2026-11-01..2026-11-30", "--stage", "shadow"]) == 3  # none


def test_a_parquet_export_grades_like_its_jsonl(tmp_path: Path):
    rows = [_known_ok(), _novel_ok(), _unlabelled()]
    nested = ("response", "harness", "labels", "tool_executions", "knowledge_activations",
              "review_ids")
    frame = pl.DataFrame([{k: (orjson.dumps(v).decode() if k in nested else v)
                           for k, v in r.items()} for r in rows],
                         schema={k: pl.Utf8 for k in rows[0]})
    frame.write_parquet(tmp_path / "export.parquet")
    a = novel_gate(tmp_path / "export.parquet")
    b = novel_gate(write(tmp_path / "export.jsonl", rows))
    assert a.ok and b.ok
    assert a.cases.drop("line").to_dicts() == b.cases.drop("line").to_dicts()


def test_offline_score_reads_a_capture_export(tmp_path: Path):
    s = score_fixtures(write(tmp_path / "export.jsonl", [_known_ok(), _novel_ok()]))
    top1 = {r["metric"]: r for r in s.metrics.to_dicts()}["offline_known_top1"]
    assert (top1["numerator"], top1["denominator"]) == (1, 1)


def test_the_sample_capture_export_is_graded():
    from rcaeval._paths import data_dir

    fs = read_capture_fixtures(data_dir() / "captures" / "sample-window.parquet",
                               reviews=data_dir() / "captures" / "reviews.jsonl")
    assert len(fs.fixtures) > 1000 and not fs.errors


@pytest.mark.slow
def test_novel_gate_on_the_sample_capture_export(capsys):
    """`offline novel-gate --captures` on the project's own sample export (capture/2 Parquet,
    read as `release metrics` reads it, labelled by its reviews): graded, not rejected, and
    failed (exit 4) on exactly what the synthetic window was generated with
    (docs/offline.md)."""
    from rcaeval._paths import data_dir

    d = data_dir() / "captures"
    assert main(["offline", "novel-gate", "--captures", str(d / "sample-window.parquet"),
                 "--reviews", str(d / "reviews.jsonl"), "--json"]) == 4
    g = orjson.loads(capsys.readouterr().out)
    assert (len(g["cases"]), len(g["ungraded"]), g["errors"], g["ok"]) == (5525, 475, [], False)
    m = {r["metric"]: r for r in g["metrics"]}
    assert {k: m[f"novel_gate_{k}"]["value"] for k in
            ("false_novel", "incorrect_abstention", "unsafe")} == {
        "false_novel": 33, "incorrect_abstention": 78, "unsafe": 1}
    assert (m["novel_gate_link_precision"]["numerator"],
            m["novel_gate_link_precision"]["denominator"]) == (4575, 9931)
    assert (m["novel_gate_link_recall"]["numerator"],
            m["novel_gate_link_recall"]["denominator"]) == (4575, 4575)
    assert "1 unsafe output(s)" in g["failures"]


def _review_scores() -> tuple[str, ...]:
    from rcaeval.release import REVIEW_SCORES

    return tuple(REVIEW_SCORES)
