"""Layer (b): each bucket's status, score and check rows, for runs that break one thing each.
All scenarios are judged in ONE set-based pass (one run per scenario)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from judge_kit import (
    CASE,
    bucket,
    check,
    healthy_rows,
    judge_rows,
    judge_spec,
    make_db,
    verdict,
)

Rows = dict[str, list[dict]]


def _drop(table: str, pred: Callable[[dict], bool]) -> Callable[[Rows], None]:
    def f(rows: Rows) -> None:
        rows[table] = [r for r in rows[table] if not pred(r)]
    return f


def _all(*fs: Callable[[Rows], None]) -> Callable[[Rows], None]:
    def f(rows: Rows) -> None:
        for g in fs:
            g(rows)
    return f


def _bundle(status: str, reason: str) -> Callable[[Rows], None]:
    def f(rows: Rows) -> None:
        rows["raw_bundle"][0].update(status=status, reason=reason, bundle_dir=None)
    return f


def _tele_drop(*events: str):
    return _drop("raw_telemetry", lambda r: r["event"] in events)


def _output(text: str):
    def f(rows: Rows) -> None:
        rows["raw_output_sentence"].append({
            "run_id": rows["raw_bundle"][0]["run_id"], "case_id": CASE, "section_idx": 1,
            "section": "Root cause", "section_kind": "root_cause", "sentence_idx": 9,
            "line_no": 9, "text": text})
    return f


SCENARIOS: dict[str, Callable[[Rows], None]] = {
    "healthy": lambda rows: None,
    "missing": _bundle("bundle_missing", "no evidences/workspace_evidence_report.json"),
    "ambiguous": _bundle("bundle_ambiguous", "2 bundles; manifest does not decide"),
    "extract-error": _bundle("extract_error", "OSError: gone"),
    "workflow-partial": _tele_drop("architecture_context.loaded"),
    "workflow-fail": _tele_drop("architecture_context.loaded", "guardrails.loaded",
                                "diagnosis_run.initialized"),
    "core-missing": _drop("raw_file", lambda r: r["file"] == "evidences/metrics.json"),
    "events-missing": _all(
        _drop("raw_event", lambda r: True),
        _drop("raw_file", lambda r: r["file"] == "evidences/events.json"),
        _drop("raw_json", lambda r: r["path"] == "$.channels.events.attempted"),
        _drop("raw_patch_ref", lambda r: r["ref_type"] == "event")),
    "critical-partial": _drop("raw_log_line", lambda r: "panic" in r["text"]),
    "critical-fail": _all(
        _drop("raw_log_line", lambda r: "panic" in r["text"]),
        _drop("raw_json", lambda r: "termination" in r["path"]),
        lambda rows: [p.update(value=0.0) for p in rows["raw_metric_point"]]),
    "routing-fail": lambda rows: rows["raw_patch_ref"][1].update(ref_id="M-nope"),
    "routing-partial": lambda rows: rows["raw_patch_ref"][0].update(ref_id="L-nope"),
    "no-patch": _all(
        _drop("raw_file", lambda r: r["file"] == "analysis_patch.json"),
        _drop("raw_json", lambda r: r["file"] == "analysis_patch.json"),
        _drop("raw_patch_item", lambda r: True), _drop("raw_patch_ref", lambda r: True)),
    "bad-item": lambda rows: rows["raw_patch_item"][0].update(
        shape_ok=False, problem="role must be one of key|supporting (got 'primary')"),
    "diagnosis-fail": _output("The root cause is a network partition between tikv and pd."),
    "supporting-miss": lambda rows: [
        s.update(text=s["text"].replace("; it restarted 4 times", ""))
        for s in rows["raw_output_sentence"]],
}


@pytest.fixture(scope="module")
def frames():
    merged: Rows = {}
    for run_id, mutate in SCENARIOS.items():
        rows = healthy_rows(run_id)
        mutate(rows)
        for table, items in rows.items():
            merged.setdefault(table, []).extend(items)
    con = make_db()
    out = judge_rows(con, merged)
    yield out
    con.close()


def test_every_scenario_judged_in_one_pass(frames):
    assert sorted(frames.judgments["run_id"]) == sorted(SCENARIOS)
    assert frames.buckets.height == 7 * len(SCENARIOS)


def test_healthy(frames):
    for name in ("contract", "workflow", "execution_contract", "evidence_collection",
                 "critical_evidence", "evidence_routing", "diagnosis"):
        assert bucket(frames, name, "healthy")["status"] == "pass", name
    assert verdict(frames, "healthy")["score"] == 100.0


@pytest.mark.parametrize("run_id", ["missing", "ambiguous", "extract-error"])
def test_unresolved_bundle_is_invalid_and_not_evaluated(frames, run_id):
    v = verdict(frames, run_id)
    subtype = {"missing": "bundle_missing", "ambiguous": "bundle_ambiguous",
               "extract-error": "extract_error"}[run_id]
    assert (v["verdict"], v["subtype"], v["score"], v["step"]) == ("invalid", subtype, 0.0, 0)
    assert bucket(frames, "contract", run_id)["status"] == "fail"
    assert bucket(frames, "execution_contract", run_id)["status"] == "fail"
    synthetic = check(frames, "contract", "bundle_resolved", run_id)
    assert synthetic["passed"] is False and subtype in synthetic["reason"]
    for name in ("workflow", "evidence_collection", "critical_evidence", "evidence_routing",
                 "diagnosis"):
        b = bucket(frames, name, run_id)
        assert (b["status"], b["score"]) == ("not_evaluated", 0.0), name
    c = frames.checks
    assert c.filter((c["run_id"] == run_id) & (c["bucket"] == "diagnosis")).height == 0


def test_workflow_partial_when_the_run_progressed(frames):
    b = bucket(frames, "workflow", "workflow-partial")
    assert b["status"] == "partial" and b["score"] == 7.5  # 3 of 4 required weight
    assert "progressed" in b["reason"]
    # the execution contract requires every required workflow check: it fails first
    assert bucket(frames, "execution_contract", "workflow-partial")["status"] == "fail"
    v = verdict(frames, "workflow-partial")
    assert (v["verdict"], v["subtype"]) == ("invalid", "execution_contract_fail")


def test_workflow_fail_when_less_than_half_passed(frames):
    b = bucket(frames, "workflow", "workflow-fail")
    assert b["status"] == "fail" and b["score"] == 2.5
    failed = check(frames, "workflow", "architecture_context_loaded", "workflow-fail")
    assert failed["passed"] is False and "architecture_context_loaded = false" in failed["reason"]


def test_evidence_collection_fail_on_core_bundle(frames):
    b = bucket(frames, "evidence_collection", "core-missing")
    assert b["status"] == "fail" and "required_artifacts_present" in b["reason"]
    v = verdict(frames, "core-missing")
    assert (v["verdict"], v["subtype"]) == ("invalid", "evidence_collection_fail")


def test_optional_channel_missing_makes_partials(frames):
    assert bucket(frames, "execution_contract", "events-missing")["status"] == "partial"
    b = bucket(frames, "evidence_collection", "events-missing")
    assert b["status"] == "partial" and b["score"] == 3.75
    assert check(frames, "evidence_collection", "attempted_events_collection_persisted",
                 "events-missing")["passed"] is True  # never attempted
    v = verdict(frames, "events-missing")
    assert (v["verdict"], v["subtype"]) == ("fail", "evidence_collection_partial")
    assert v["hard_gate"] is True and v["score"] == 98.75


def test_critical_evidence_partial_and_fail(frames):
    b = bucket(frames, "critical_evidence", "critical-partial")
    assert b["status"] == "partial" and b["score"] == 22.5  # weights 1 + 1 + 2, 3 passed
    v = verdict(frames, "critical-partial")
    assert (v["verdict"], v["subtype"], v["hard_gate"]) == (
        "fail", "critical_evidence_partial", False)
    assert v["raw_score"] == 92.5 and v["score"] == 69.0  # banded down: no hard gate
    b = bucket(frames, "critical_evidence", "critical-fail")
    assert (b["status"], b["score"]) == ("fail", 0.0)
    assert verdict(frames, "critical-fail")["subtype"] == "critical_evidence_fail"


def test_evidence_routing(frames):
    b = bucket(frames, "evidence_routing", "routing-fail")
    assert b["status"] == "fail" and b["score"] == round(5 * 5 / 6, 4)
    c = check(frames, "evidence_routing", "metric_refs_resolvable", "routing-fail")
    assert c["passed"] is False and "M-nope" in c["reason"]
    assert c["evidence_file"] == "analysis_patch.json"
    assert c["evidence_path"] == "$.items[0].refs[1]"
    assert verdict(frames, "routing-fail")["subtype"] == "evidence_routing_fail"
    b = bucket(frames, "evidence_routing", "routing-partial")
    assert b["status"] == "partial" and b["score"] == 5.0  # required checks only
    assert verdict(frames, "routing-partial")["subtype"] == "evidence_routing_partial"
    b = bucket(frames, "evidence_routing", "no-patch")
    assert b["status"] == "fail" and b["score"] == 0.0
    c = check(frames, "evidence_routing", "items_shape_valid", "bad-item")
    assert c["passed"] is False and "got 'primary'" in c["reason"]


def test_diagnosis(frames):
    b = bucket(frames, "diagnosis", "diagnosis-fail")
    assert b["status"] == "fail" and b["score"] == 41.0  # 18 * 1/2 + 32
    c = check(frames, "diagnosis", "no_network_blame", "diagnosis-fail")
    assert c["passed"] is False and c["evidence_line"] == 9
    v = verdict(frames, "diagnosis-fail")
    assert (v["verdict"], v["subtype"], v["raw_score"], v["score"]) == (
        "fail", "diagnosis_fail", 91.0, 69.0)
    b = bucket(frames, "diagnosis", "supporting-miss")
    assert b["status"] == "pass" and b["score"] == 18.0
    v = verdict(frames, "supporting-miss")
    assert (v["verdict"], v["raw_score"], v["score"]) == ("pass", 68.0, 70.0)  # banded up


@pytest.mark.parametrize("soft", [None, True, False])
def test_soft_check_lowers_the_score_but_never_the_status(db, soft):
    """attempted_events_collection_persisted is a soft deduction (soft by default): even
    when a judge.yaml marks it required, failing it lowers evidence_collection's score and
    leaves its status pass, so the run's verdict is pass. ``soft: false`` opts out: then it
    is an ordinary required check and its failure fails the bucket."""
    def mutate(raw):
        events = {"id": "attempted_events_collection_persisted", "required": True,
                  "all_of": [{"fact": "channel.events_attempted_implies_persisted"}]}
        if soft is not None:
            events["soft"] = soft
        raw["judge"]["evidence_collection"] = {
            "preferred_channels": ["logs", "metrics", "queries"],
            "checks": [
                {"id": "required_artifacts_present", "required": True,
                 "all_of": [{"fact": "evidence.core_bundle_present"}]},
                events,
            ]}

    rows = healthy_rows()
    _all(_drop("raw_event", lambda r: True),
         _drop("raw_file", lambda r: r["file"] == "evidences/events.json"),
         _drop("raw_patch_ref", lambda r: r["ref_type"] == "event"))(rows)
    frames = judge_rows(db, rows, judge_spec(mutate))
    c = check(frames, "evidence_collection", "attempted_events_collection_persisted")
    assert c["passed"] is False and "was attempted" in c["reason"]
    assert c["evidence_path"] == "$.channels.events.attempted"
    assert c["soft"] is (soft is not False)
    b = bucket(frames, "evidence_collection")
    v = verdict(frames)
    if soft is False:
        assert (b["status"], b["score"]) == ("fail", 2.5)
        assert (v["verdict"], v["subtype"]) == ("invalid", "evidence_collection_fail")
        return
    assert (b["status"], b["score"]) == ("pass", 2.5)
    assert b["reason"] == ("1/2 check(s) passed; soft deduction: "
                           "attempted_events_collection_persisted")
    assert (v["verdict"], v["subtype"], v["raw_score"]) == ("pass", "diagnosis_pass", 97.5)


def test_soft_checks_in_critical_evidence_workflow_and_diagnosis(db):
    """A soft check anywhere it can carry score: its failure lowers the score and changes
    no status; the reason names it."""
    def mutate(raw):
        ce = raw["judge"]["critical_evidence"]["checks"]
        ce.append({"id": "soft_evidence", "soft": True, "all_of": [
            {"method": "keyword_any", "source": "logs", "keywords": ["no such line"]}]})
        raw["judge"]["diagnosis"]["hard_checks"].append(
            {"id": "soft_hard", "soft": True, "all_of": [{"detector": "blames_network"}]})
        raw["judge"]["workflow"] = {"checks": [
            {"id": "arch", "required": True,
             "all_of": [{"fact": "workflow.architecture_context_loaded"}]},
            {"id": "soft_req", "required": True, "soft": True,
             "all_of": [{"fact": "channel.alerts_observed"}]}]}

    frames = judge_rows(db, healthy_rows(), judge_spec(mutate))
    ce = bucket(frames, "critical_evidence")
    assert ce["status"] == "pass" and ce["reason"].endswith("soft deduction: soft_evidence")
    assert ce["score"] == pytest.approx(30 * 4 / 5)
    dg = bucket(frames, "diagnosis")
    assert dg["status"] == "pass" and dg["reason"].endswith("soft deduction: soft_hard")
    assert dg["score"] == pytest.approx(18 * 2 / 3 + 32)
    wf = bucket(frames, "workflow")
    assert (wf["status"], wf["score"]) == ("pass", 5.0)
    assert verdict(frames)["verdict"] == "pass"


def test_soft_is_rejected_in_gate_buckets():
    from pydantic import ValidationError

    def mutate(raw):
        raw["judge"]["contract"] = {"checks": [
            {"id": "c", "soft": True, "all_of": [{"fact": "bundle.resolved"}]}]}

    with pytest.raises(ValidationError, match="gate bucket"):
        judge_spec(mutate)


def test_blended_mode_scores_like_deterministic(db):
    def mutate(raw):
        raw["judge"]["diagnosis"]["mode"] = "blended"

    frames = judge_rows(db, healthy_rows(), judge_spec(mutate))
    b = bucket(frames, "diagnosis")
    assert b["status"] == "pass" and b["score"] == 50.0 and "blended" in b["reason"]


def test_seed000_profile_scores_routing_out_of_10(db):
    frames = judge_rows(db, healthy_rows(), profile="seed000")
    assert bucket(frames, "evidence_routing")["max_score"] == 10.0
    v = verdict(frames)
    assert (v["raw_score"], v["score"]) == (105.0, 105.0)
